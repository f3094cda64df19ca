// core/metrics: the exact text a registry renders, that Prometheus (our strict parser) reads
// every render back, histogram bucketing, scrape hooks, misuse aborts, and totals that stay
// exact while many threads update and others render.
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "core/metrics/counter.h"
#include "core/metrics/gauge.h"
#include "core/metrics/histogram.h"
#include "core/metrics/metric_family.h"
#include "core/metrics/metrics_registry.h"
#include "core/metrics/text_exposition.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/prometheus/prometheus_text_parser.h"

namespace neuronserve::metrics {
namespace {

using ::neuronserve::testing::FindSample;
using ::neuronserve::testing::ParsePrometheusText;
using ::neuronserve::testing::PromFamily;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<PromFamily> ParseOrDie(const std::string& text) {
  absl::StatusOr<std::vector<PromFamily>> parsed = ParsePrometheusText(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
  return parsed.ok() ? *std::move(parsed) : std::vector<PromFamily>{};
}

double ValueOf(const std::vector<PromFamily>& families, const std::string& name,
               const std::map<std::string, std::string>& labels) {
  absl::StatusOr<double> value = FindSample(families, name, labels);
  EXPECT_TRUE(value.ok()) << value.status();
  return value.ok() ? *value : std::nan("");
}

TEST(MetricsRenderTest, SmallRegistryRendersExactText) {
  MetricsRegistry registry;
  Family<Counter>& requests =
      registry.AddCounter("neuronserve_requests_total", "Requests answered.", {"model", "code"});
  Family<Gauge>& queue = registry.AddGauge("neuronserve_queue_depth", "Requests waiting.", {});
  Family<Histogram>& latency = registry.AddHistogram(
      "neuronserve_request_duration_seconds", "Request latency.", {"model"}, {0.005, 0.25, 1});
  requests.WithLabels({"mlp", "OK"}).Increment(3);
  requests.WithLabels({"mlp", "INVALID_ARGUMENT"}).Increment();
  requests.WithLabels({"bert", "OK"}).Increment(2.5);
  queue.WithLabels({}).Set(7);
  Histogram& mlp_latency = latency.WithLabels({"mlp"});
  mlp_latency.Observe(0.25);
  mlp_latency.Observe(0.125);
  mlp_latency.Observe(4);

  EXPECT_EQ(registry.RenderText(),
            "# HELP neuronserve_requests_total Requests answered.\n"
            "# TYPE neuronserve_requests_total counter\n"
            "neuronserve_requests_total{model=\"bert\",code=\"OK\"} 2.5\n"
            "neuronserve_requests_total{model=\"mlp\",code=\"INVALID_ARGUMENT\"} 1\n"
            "neuronserve_requests_total{model=\"mlp\",code=\"OK\"} 3\n"
            "# HELP neuronserve_queue_depth Requests waiting.\n"
            "# TYPE neuronserve_queue_depth gauge\n"
            "neuronserve_queue_depth 7\n"
            "# HELP neuronserve_request_duration_seconds Request latency.\n"
            "# TYPE neuronserve_request_duration_seconds histogram\n"
            "neuronserve_request_duration_seconds_bucket{model=\"mlp\",le=\"0.005\"} 0\n"
            "neuronserve_request_duration_seconds_bucket{model=\"mlp\",le=\"0.25\"} 2\n"
            "neuronserve_request_duration_seconds_bucket{model=\"mlp\",le=\"1\"} 2\n"
            "neuronserve_request_duration_seconds_bucket{model=\"mlp\",le=\"+Inf\"} 3\n"
            "neuronserve_request_duration_seconds_sum{model=\"mlp\"} 4.375\n"
            "neuronserve_request_duration_seconds_count{model=\"mlp\"} 3\n");
}

TEST(MetricsRenderTest, HistogramWithoutLabelsHasOnlyLe) {
  MetricsRegistry registry;
  registry.AddHistogram("x_seconds", "h", {}, {1}).WithLabels({}).Observe(0.5);
  EXPECT_EQ(registry.RenderText(),
            "# HELP x_seconds h\n"
            "# TYPE x_seconds histogram\n"
            "x_seconds_bucket{le=\"1\"} 1\n"
            "x_seconds_bucket{le=\"+Inf\"} 1\n"
            "x_seconds_sum 0.5\n"
            "x_seconds_count 1\n");
}

TEST(MetricsRenderTest, EscapesHelpAndLabelValues) {
  MetricsRegistry registry;
  registry
      .AddGauge("g", "First line\nsecond \\ line with \"quotes\"", {"path"})
      .WithLabels({"C:\\dir\n\"name\""})
      .Set(1);
  EXPECT_EQ(registry.RenderText(),
            "# HELP g First line\\nsecond \\\\ line with \"quotes\"\n"
            "# TYPE g gauge\n"
            "g{path=\"C:\\\\dir\\n\\\"name\\\"\"} 1\n");
}

TEST(MetricsRenderTest, ReplacesInvalidUtf8WithReplacementCharacter) {
  MetricsRegistry registry;
  registry.AddGauge("g", "bad \xff byte", {"v"}).WithLabels({"a\xc3(b\xe2\x82\xac"}).Set(1);
  const std::string text = registry.RenderText();
  EXPECT_EQ(text,
            "# HELP g bad \xEF\xBF\xBD byte\n"
            "# TYPE g gauge\n"
            "g{v=\"a\xEF\xBF\xBD(b\xe2\x82\xac\"} 1\n");
  EXPECT_TRUE(ParsePrometheusText(text).ok()) << ParsePrometheusText(text).status();
}

TEST(MetricsRenderTest, FormatsNumbers) {
  EXPECT_EQ(FormatValue(0), "0");
  EXPECT_EQ(FormatValue(-0.0), "0");
  EXPECT_EQ(FormatValue(42), "42");
  EXPECT_EQ(FormatValue(-3), "-3");
  EXPECT_EQ(FormatValue(1e15), "1000000000000000");
  EXPECT_EQ(FormatValue(9007199254740991.0), "9007199254740991");  // 2^53 - 1
  EXPECT_EQ(FormatValue(0.1), "0.1");
  EXPECT_EQ(FormatValue(2.5), "2.5");
  EXPECT_EQ(FormatValue(0.00005), "5e-05");
  EXPECT_EQ(FormatValue(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatValue(1e300), "1e+300");
  EXPECT_EQ(FormatValue(kInf), "+Inf");
  EXPECT_EQ(FormatValue(-kInf), "-Inf");
  EXPECT_EQ(FormatValue(std::nan("")), "NaN");
  // From 2^53 on, integral values are no longer all exact: shortest round-trip form.
  EXPECT_EQ(FormatValue(9007199254740992.0), "9007199254740992");
  EXPECT_EQ(FormatValue(1e20), "1e+20");
  EXPECT_EQ(FormatValue(123456789.125), "123456789.125");
  for (double value : {1e20, 1.0 / 3, -1e-300, 5e-324, 1.7976931348623157e308}) {
    EXPECT_EQ(std::strtod(FormatValue(value).c_str(), nullptr), value) << FormatValue(value);
  }
}

TEST(MetricsRenderTest, SamplesAreSortedByLabelValues) {
  MetricsRegistry registry;
  Family<Counter>& family = registry.AddCounter("c_total", "h", {"a", "b"});
  for (const Labels& labels : std::vector<Labels>{{"z", "1"}, {"a", "2"}, {"m", "0"},
                                                  {"a", "10"}, {"", "x"}}) {
    family.WithLabels(labels).Increment();
  }
  EXPECT_EQ(registry.RenderText(),
            "# HELP c_total h\n"
            "# TYPE c_total counter\n"
            "c_total{a=\"\",b=\"x\"} 1\n"
            "c_total{a=\"a\",b=\"10\"} 1\n"
            "c_total{a=\"a\",b=\"2\"} 1\n"
            "c_total{a=\"m\",b=\"0\"} 1\n"
            "c_total{a=\"z\",b=\"1\"} 1\n");
}

TEST(MetricsRenderTest, FamilyWithoutSamplesStillHasHelpAndType) {
  MetricsRegistry registry;
  registry.AddCounter("empty_total", "Nothing yet.", {"model"});
  registry.AddHistogram("empty_seconds", "Nothing yet.", {"model"}, LatencyBucketsSeconds());
  const std::string text = registry.RenderText();
  EXPECT_EQ(text,
            "# HELP empty_total Nothing yet.\n"
            "# TYPE empty_total counter\n"
            "# HELP empty_seconds Nothing yet.\n"
            "# TYPE empty_seconds histogram\n");
  const std::vector<PromFamily> families = ParseOrDie(text);
  ASSERT_EQ(families.size(), 2u);
  EXPECT_EQ(families[1].type, "histogram");
  EXPECT_TRUE(families[1].samples.empty());
}

TEST(MetricsRenderTest, EmptyRegistryRendersNothing) {
  MetricsRegistry registry;
  EXPECT_EQ(registry.RenderText(), "");
}

TEST(MetricsRenderTest, RenderParsesAndValuesRoundTrip) {
  MetricsRegistry registry;
  Family<Counter>& bytes = registry.AddCounter("bytes_total", "Bytes.", {"model", "version"});
  Family<Gauge>& gauges = registry.AddGauge("odd_values", "Odd \"values\"\\.", {"kind"});
  Family<Histogram>& latency =
      registry.AddHistogram("latency_seconds", "Latency.", {"model"}, LatencyBucketsSeconds());
  bytes.WithLabels({"mlp", "1"}).Increment(1234567);
  bytes.WithLabels({"weird \"name\"\n\\", ""}).Increment(0.1);
  const std::map<std::string, double> odd = {
      {"huge", 1e300}, {"tiny", 5e-324}, {"negative", -2.75}, {"pinf", kInf},
      {"ninf", -kInf}, {"third", 1.0 / 3}, {"big_integer", 9007199254740991.0}};
  for (const auto& [kind, value] : odd) gauges.WithLabels({kind}).Set(value);
  gauges.WithLabels({"nan"}).Set(std::nan(""));
  for (double seconds : {0.00001, 0.00005, 0.0003, 0.02, 0.7, 3.0, 100.0}) {
    latency.WithLabels({"mlp"}).Observe(seconds);
  }

  const std::vector<PromFamily> families = ParseOrDie(registry.RenderText());
  ASSERT_EQ(families.size(), 3u);
  EXPECT_EQ(families[0].type, "counter");
  EXPECT_EQ(families[1].help, "Odd \"values\"\\.");
  EXPECT_EQ(ValueOf(families, "bytes_total", {{"model", "mlp"}, {"version", "1"}}), 1234567);
  EXPECT_EQ(ValueOf(families, "bytes_total", {{"model", "weird \"name\"\n\\"}, {"version", ""}}),
            0.1);
  for (const auto& [kind, value] : odd) {
    EXPECT_EQ(ValueOf(families, "odd_values", {{"kind", kind}}), value) << kind;
  }
  EXPECT_TRUE(std::isnan(ValueOf(families, "odd_values", {{"kind", "nan"}})));
  EXPECT_EQ(ValueOf(families, "latency_seconds_bucket", {{"model", "mlp"}, {"le", "5e-05"}}), 2);
  EXPECT_EQ(ValueOf(families, "latency_seconds_bucket", {{"model", "mlp"}, {"le", "0.025"}}), 4);
  EXPECT_EQ(ValueOf(families, "latency_seconds_bucket", {{"model", "mlp"}, {"le", "60"}}), 6);
  EXPECT_EQ(ValueOf(families, "latency_seconds_bucket", {{"model", "mlp"}, {"le", "+Inf"}}), 7);
  EXPECT_EQ(ValueOf(families, "latency_seconds_count", {{"model", "mlp"}}), 7);
  EXPECT_DOUBLE_EQ(ValueOf(families, "latency_seconds_sum", {{"model", "mlp"}}),
                   0.00001 + 0.00005 + 0.0003 + 0.02 + 0.7 + 3.0 + 100.0);
}

TEST(HistogramTest, BoundaryValueGoesIntoItsOwnBucket) {
  Histogram histogram({0.1, 1, 10});
  histogram.Observe(0.1);  // le="0.1": value <= bound
  histogram.Observe(1);
  histogram.Observe(std::nextafter(1.0, 2.0));
  histogram.Observe(10);
  histogram.Observe(10.5);
  const Histogram::Snapshot snapshot = histogram.Read();
  EXPECT_THAT(snapshot.upper_bounds, ElementsAre(0.1, 1, 10));
  EXPECT_THAT(snapshot.cumulative_counts, ElementsAre(1u, 2u, 4u, 5u));
  EXPECT_EQ(snapshot.count, 5u);
}

TEST(HistogramTest, SumAndCount) {
  Histogram histogram({1});
  EXPECT_EQ(histogram.Read().count, 0u);
  EXPECT_EQ(histogram.Read().sum, 0);
  for (double value : {-1.5, 0.0, 0.25, 2.0, 100.0}) histogram.Observe(value);
  const Histogram::Snapshot snapshot = histogram.Read();
  EXPECT_THAT(snapshot.cumulative_counts, ElementsAre(3u, 5u));
  EXPECT_EQ(snapshot.count, 5u);
  EXPECT_EQ(snapshot.sum, 100.75);
}

TEST(HistogramTest, NanCountsOnlyInTheInfBucket) {
  Histogram histogram({1});
  histogram.Observe(std::nan(""));
  const Histogram::Snapshot snapshot = histogram.Read();
  EXPECT_THAT(snapshot.cumulative_counts, ElementsAre(0u, 1u));
  EXPECT_TRUE(std::isnan(snapshot.sum));
}

TEST(HistogramTest, TrailingInfBoundIsImplicit) {
  Histogram histogram({1, kInf});
  histogram.Observe(kInf);
  EXPECT_THAT(histogram.Read().upper_bounds, ElementsAre(1));
  EXPECT_THAT(histogram.Read().cumulative_counts, ElementsAre(0u, 1u));
}

TEST(HistogramTest, LatencyBucketsSpan50MicrosecondsTo60Seconds) {
  const std::vector<double> bounds = LatencyBucketsSeconds();
  ASSERT_GE(bounds.size(), 14u);
  ASSERT_LE(bounds.size(), 20u);
  EXPECT_EQ(bounds.front(), 0.00005);
  EXPECT_EQ(bounds.back(), 60);
  for (size_t i = 1; i < bounds.size(); ++i) {
    EXPECT_GT(bounds[i] / bounds[i - 1], 1.9) << i;
    EXPECT_LE(bounds[i] / bounds[i - 1], 6.0) << i;
  }
  Histogram histogram(bounds);  // valid bounds: does not abort
}

TEST(CounterTest, OnlyGoesUp) {
  Counter counter;
  counter.Increment();
  counter.Increment(2.5);
  counter.Increment(-10);
  counter.Increment(std::nan(""));
  EXPECT_EQ(counter.value(), 3.5);
}

TEST(GaugeTest, SetAndAdd) {
  Gauge gauge;
  gauge.Set(10);
  gauge.Add(-12.5);
  EXPECT_EQ(gauge.value(), -2.5);
  gauge.Set(1);
  EXPECT_EQ(gauge.value(), 1);
}

TEST(FamilyTest, SameLabelValuesGiveTheSameMetricAndReferencesStayValid) {
  MetricsRegistry registry;
  Family<Counter>& family = registry.AddCounter("c_total", "h", {"i"});
  Counter& first = family.WithLabels({"first"});
  first.Increment();
  for (int i = 0; i < 1000; ++i) family.WithLabels({std::to_string(i)}).Increment();
  EXPECT_EQ(&family.WithLabels({"first"}), &first);
  first.Increment();
  EXPECT_EQ(family.WithLabels({"first"}).value(), 2);
}

TEST(ScrapeHookTest, HooksRunBeforeEachRenderInRegistrationOrder) {
  MetricsRegistry registry;
  Family<Gauge>& depth = registry.AddGauge("queue_depth", "h", {"model"});
  std::vector<std::string> calls;
  int scrapes = 0;
  registry.AddScrapeHook([&] {
    calls.push_back("first");
    depth.WithLabels({"mlp"}).Set(++scrapes * 10);
  });
  registry.AddScrapeHook([&] { calls.push_back("second"); });
  EXPECT_EQ(ValueOf(ParseOrDie(registry.RenderText()), "queue_depth", {{"model", "mlp"}}), 10);
  EXPECT_EQ(ValueOf(ParseOrDie(registry.RenderText()), "queue_depth", {{"model", "mlp"}}), 20);
  EXPECT_THAT(calls, ElementsAre("first", "second", "first", "second"));
}

TEST(ScrapeHookTest, ClearRemovesSamplesAndHookRefillsThem) {
  MetricsRegistry registry;
  Family<Gauge>& models = registry.AddGauge("models", "Models by state.", {"state"});
  std::map<std::string, int> by_state = {{"READY", 2}, {"LOADING", 1}};
  registry.AddScrapeHook([&] {
    models.Clear();
    for (const auto& [state, count] : by_state) models.WithLabels({state}).Set(count);
  });
  EXPECT_EQ(registry.RenderText(),
            "# HELP models Models by state.\n# TYPE models gauge\n"
            "models{state=\"LOADING\"} 1\nmodels{state=\"READY\"} 2\n");
  by_state = {{"READY", 3}};
  EXPECT_EQ(registry.RenderText(),
            "# HELP models Models by state.\n# TYPE models gauge\nmodels{state=\"READY\"} 3\n");
  by_state.clear();
  EXPECT_EQ(registry.RenderText(), "# HELP models Models by state.\n# TYPE models gauge\n");
}

TEST(MetricsRegistryDeathTest, RejectsBadMetricName) {
  MetricsRegistry registry;
  EXPECT_DEATH(registry.AddGauge("1st", "h", {}), "metric name \"1st\" does not match");
  EXPECT_DEATH(registry.AddGauge("a-b", "h", {}), "metric name \"a-b\" does not match");
  EXPECT_DEATH(registry.AddGauge("", "h", {}), "metric name \"\" does not match");
}

TEST(MetricsRegistryDeathTest, RejectsCounterNameWithoutTotal) {
  MetricsRegistry registry;
  EXPECT_DEATH(registry.AddCounter("requests", "h", {}), "does not end in \"_total\"");
}

TEST(MetricsRegistryDeathTest, RejectsBadAndReservedLabelNames) {
  MetricsRegistry registry;
  EXPECT_DEATH(registry.AddGauge("g", "h", {"a:b"}), "label name \"a:b\" does not match");
  EXPECT_DEATH(registry.AddGauge("g", "h", {"__x"}), "starts with \"__\"");
  EXPECT_DEATH(registry.AddGauge("g", "h", {"a", "a"}), "label name \"a\" repeats");
  EXPECT_DEATH(registry.AddHistogram("h", "h", {"le"}, {1}), "\"le\" is the bucket label");
}

TEST(MetricsRegistryDeathTest, RejectsDuplicateAndClashingNames) {
  MetricsRegistry registry;
  registry.AddGauge("g", "h", {});
  EXPECT_DEATH(registry.AddGauge("g", "h", {}), "sample name \"g\" is already registered");
  registry.AddGauge("x_count", "h", {});
  EXPECT_DEATH(registry.AddHistogram("x", "h", {}, {1}),
               "sample name \"x_count\" is already registered");
  registry.AddHistogram("y", "h", {}, {1});
  EXPECT_DEATH(registry.AddGauge("y_bucket", "h", {}), "\"y_bucket\" is already registered");
}

TEST(MetricsRegistryDeathTest, RejectsBadBucketBounds) {
  MetricsRegistry registry;
  EXPECT_DEATH(registry.AddHistogram("h", "h", {}, {1, 0.5}), "must be strictly ascending");
  EXPECT_DEATH(registry.AddHistogram("h", "h", {}, {1, 1}), "must be strictly ascending");
  EXPECT_DEATH({ Histogram histogram({std::nan("")}); }, "not NaN");
}

TEST(MetricsRegistryDeathTest, WrongNumberOfLabelValuesAborts) {
  MetricsRegistry registry;
  Family<Counter>& family = registry.AddCounter("c_total", "h", {"model", "version"});
  EXPECT_DEATH(family.WithLabels({"mlp"}),
               "metric \"c_total\" has 2 label name\\(s\\) \\(model, version\\) but "
               "WithLabels got 1 value\\(s\\)");
}

// Workers update shared and per-thread label sets (and create new ones) while two threads
// render and parse; scrape hooks Clear and refill a family each time.
TEST(MetricsConcurrencyTest, TotalsExactAndEveryRenderParsesWhileThreadsUpdate) {
  MetricsRegistry registry;
  Family<Counter>& requests = registry.AddCounter("test_requests_total", "h", {"worker"});
  Family<Histogram>& latency =
      registry.AddHistogram("test_latency_seconds", "h", {"worker"}, {0.25, 0.5, 1});
  Family<Gauge>& in_flight = registry.AddGauge("test_in_flight", "h", {});
  Family<Gauge>& generation = registry.AddGauge("test_scrape_generation", "h", {"slot"});
  std::atomic<int> scrapes{0};
  registry.AddScrapeHook([&] {
    generation.Clear();
    const int n = ++scrapes;
    generation.WithLabels({std::to_string(n % 3)}).Set(n);
  });

  constexpr int kWorkers = 8;
  constexpr int kIterations = 20000;
  std::atomic<int> workers_done{0};
  std::atomic<int> renders{0};
  std::atomic<int> renderers_running{2};
  std::vector<std::thread> workers;
  for (int t = 0; t < kWorkers; ++t) {
    workers.emplace_back([&, t] {
      const std::string mine = "w" + std::to_string(t);
      Counter& my_requests = requests.WithLabels({mine});
      Histogram& my_latency = latency.WithLabels({mine});
      for (int i = 0; i < kIterations; ++i) {
        const double seconds = (i % 5) * 0.25;  // 0, 0.25, 0.5, 0.75, 1: exact sums
        in_flight.WithLabels({}).Add(1);
        requests.WithLabels({"shared"}).Increment();  // a lookup each time, on purpose
        my_requests.Increment();
        latency.WithLabels({"shared"}).Observe(seconds);
        my_latency.Observe(seconds);
        if (i % 1000 == 0) {
          requests.WithLabels({"new_" + mine + "_" + std::to_string(i)}).Increment();
        }
        in_flight.WithLabels({}).Add(-1);
        // Halfway, make sure some renders overlap the updates however fast the workers are.
        if (i == kIterations / 2) {
          while (renders.load() < 3 && renderers_running.load() > 0) std::this_thread::yield();
        }
      }
      ++workers_done;
    });
  }
  std::vector<std::thread> renderers;
  for (int r = 0; r < 2; ++r) {
    renderers.emplace_back([&] {
      double last_shared = 0;
      // One render and its checks; sets `checked` unless an ASSERT ended it early.
      bool checked = false;
      const auto render_and_check = [&] {
        checked = false;
        const std::string text = registry.RenderText();
        absl::StatusOr<std::vector<PromFamily>> parsed = ParsePrometheusText(text);
        ASSERT_TRUE(parsed.ok()) << parsed.status();
        const auto shared = FindSample(*parsed, "test_requests_total", {{"worker", "shared"}});
        if (shared.ok()) {
          EXPECT_GE(*shared, last_shared);
          last_shared = *shared;
        }
        const auto flying = FindSample(*parsed, "test_in_flight", {});
        ASSERT_TRUE(flying.ok()) << flying.status();
        EXPECT_GE(*flying, 0);
        EXPECT_LE(*flying, kWorkers);
        // One scrape at a time: the hook's Clear and refill never interleave.
        ASSERT_EQ(parsed->size(), 4u);
        ASSERT_EQ((*parsed)[3].name, "test_scrape_generation");
        EXPECT_EQ((*parsed)[3].samples.size(), 1u);
        ++renders;
        checked = true;
      };
      do {
        render_and_check();
      } while (checked && workers_done.load() < kWorkers);
      --renderers_running;
    });
  }
  for (std::thread& worker : workers) worker.join();
  for (std::thread& renderer : renderers) renderer.join();
  EXPECT_GE(renders.load(), 3);

  const std::vector<PromFamily> families = ParseOrDie(registry.RenderText());
  const double total = kWorkers * kIterations;
  EXPECT_EQ(ValueOf(families, "test_requests_total", {{"worker", "shared"}}), total);
  EXPECT_EQ(ValueOf(families, "test_in_flight", {}), 0);
  for (int t = 0; t < kWorkers; ++t) {
    const std::string mine = "w" + std::to_string(t);
    EXPECT_EQ(ValueOf(families, "test_requests_total", {{"worker", mine}}), kIterations);
    EXPECT_EQ(ValueOf(families, "test_latency_seconds_count", {{"worker", mine}}), kIterations);
    EXPECT_EQ(ValueOf(families, "test_latency_seconds_sum", {{"worker", mine}}),
              kIterations / 5 * 2.5);
    for (int i = 0; i < kIterations; i += 1000) {
      EXPECT_EQ(ValueOf(families, "test_requests_total",
                        {{"worker", "new_" + mine + "_" + std::to_string(i)}}),
                1);
    }
  }
  const auto bucket = [&](const std::string& le) {
    return ValueOf(families, "test_latency_seconds_bucket", {{"worker", "shared"}, {"le", le}});
  };
  EXPECT_EQ(bucket("0.25"), total * 2 / 5);
  EXPECT_EQ(bucket("0.5"), total * 3 / 5);
  EXPECT_EQ(bucket("1"), total);
  EXPECT_EQ(bucket("+Inf"), total);
  EXPECT_EQ(ValueOf(families, "test_latency_seconds_sum", {{"worker", "shared"}}),
            total / 5 * 2.5);
  EXPECT_EQ(ValueOf(families, "test_scrape_generation",
                    {{"slot", std::to_string(scrapes.load() % 3)}}),
            scrapes.load());
}

TEST(MetricsRegistryTest, ContentTypeIsTextFormat004) {
  EXPECT_THAT(std::string(MetricsRegistry::kContentType), HasSubstr("version=0.0.4"));
}

}  // namespace
}  // namespace neuronserve::metrics
