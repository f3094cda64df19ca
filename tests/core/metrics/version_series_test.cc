// ServingMetrics' per-version series: held while a handle of the version is held, rendered by
// one more scrape after the last handle is released (with the final values), removed by the
// scrape after that, or after the grace period when nobody scrapes; a version asked for again
// before then counts on. At most max_retired_versions retired versions wait (the oldest go first,
// those never rendered counted). Under endless version churn the rendered text stays bounded,
// scraped or not. The concurrency case (holders released while scrapes run) runs under
// ThreadSanitizer.
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/metrics/metrics_registry.h"
#include "core/metrics/serving_metrics.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve {
namespace version_series_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The sample line of the version's OK request count, as the registry renders it.
std::string OkLine(const std::string& model, const std::string& version, int count) {
  return absl::StrCat("neuronserve_requests_total{model=\"", model, "\",version=\"", version,
                      "\",code=\"OK\"} ", count);
}

std::string VersionLabel(const std::string& version) {
  return absl::StrCat("version=\"", version, "\"");
}

TEST(VersionSeriesTest, HeldSeriesStayAcrossScrapes) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry);
  std::shared_ptr<const ModelRequestMetrics> held = metrics.ForModel("m", "v1");
  held->CountRequest(absl::StatusCode::kOk);
  for (int scrape = 0; scrape < 3; ++scrape) {
    EXPECT_THAT(registry.RenderText(), HasSubstr(OkLine("m", "v1", 1)));
  }
  EXPECT_EQ(metrics.versions_with_series(), 2u);  // m/v1 and the unknown model
}

TEST(VersionSeriesTest, ARetiredVersionIsRenderedOnceMoreWithItsFinalValuesThenRemoved) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry);
  std::shared_ptr<const ModelRequestMetrics> held = metrics.ForModel("m", "v1");
  const VariantMetrics* variant = metrics.ForVariant(*held, 8);
  variant->executions->Increment();
  held->CountRequest(absl::StatusCode::kOk);
  held->CountRequest(absl::StatusCode::kOk);
  held.reset();  // the version is unloaded: retired

  const std::string last = registry.RenderText();
  EXPECT_THAT(last, HasSubstr(OkLine("m", "v1", 2)));
  EXPECT_THAT(last, HasSubstr("neuronserve_batch_executions_total{model=\"m\",version=\"v1\","
                              "variant=\"8\"} 1"));
  const std::string after = registry.RenderText();
  EXPECT_THAT(after, Not(HasSubstr(VersionLabel("v1"))));
  EXPECT_EQ(metrics.versions_with_series(), 1u);
  // The families stay, with their HELP and TYPE, and the unknown model's series.
  EXPECT_THAT(after, HasSubstr("# TYPE neuronserve_requests_total counter"));
  EXPECT_THAT(after, HasSubstr(OkLine("", "", 0)));
}

TEST(VersionSeriesTest, TwoHoldersOfOneVersionShareItsSeriesUntilTheLastLetsGo) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry);
  std::shared_ptr<const ModelRequestMetrics> first = metrics.ForModel("m", "v1");
  std::shared_ptr<const ModelRequestMetrics> second = metrics.ForModel("m", "v1");
  EXPECT_EQ(first.get(), second.get());
  first->CountRequest(absl::StatusCode::kOk);
  first.reset();
  registry.RenderText();
  registry.RenderText();
  second->CountRequest(absl::StatusCode::kOk);
  EXPECT_THAT(registry.RenderText(), HasSubstr(OkLine("m", "v1", 2)));
}

TEST(VersionSeriesTest, AVersionAskedForAgainBeforeItsRemovalCountsOn) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry);
  std::shared_ptr<const ModelRequestMetrics> held = metrics.ForModel("m", "v1");
  held->CountRequest(absl::StatusCode::kOk);
  held.reset();
  registry.RenderText();  // renders the final values; the next scrape would remove them
  held = metrics.ForModel("m", "v1");
  held->CountRequest(absl::StatusCode::kOk);
  registry.RenderText();
  EXPECT_THAT(registry.RenderText(), HasSubstr(OkLine("m", "v1", 2)));
}

TEST(VersionSeriesTest, AVersionLoadedAgainAfterItsRemovalStartsFromZero) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry);
  std::shared_ptr<const ModelRequestMetrics> held = metrics.ForModel("m", "v1");
  held->CountRequest(absl::StatusCode::kOk);
  held.reset();
  registry.RenderText();
  registry.RenderText();
  held = metrics.ForModel("m", "v1");
  EXPECT_THAT(registry.RenderText(), HasSubstr(OkLine("m", "v1", 0)));
}

TEST(VersionSeriesTest, WithoutScrapesRetiredSeriesGoAfterTheGracePeriod) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry, /*retired_series_grace=*/absl::ZeroDuration());
  for (int version = 0; version < 100; ++version) {
    std::shared_ptr<const ModelRequestMetrics> held =
        metrics.ForModel("m", absl::StrCat("v", version));
    metrics.ForVariant(*held, 4)->executions->Increment();
  }
  // Each ForModel removed the versions retired before it; only the last one is left.
  EXPECT_EQ(metrics.versions_with_series(), 2u);
  std::shared_ptr<const ModelRequestMetrics> next = metrics.ForModel("m", "next");
  EXPECT_EQ(metrics.versions_with_series(), 2u);
  EXPECT_THAT(registry.RenderText(), Not(HasSubstr(VersionLabel("v99"))));
}

TEST(VersionSeriesTest, WithinTheGracePeriodUnscrapedSeriesStay) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry);  // five minutes
  metrics.ForModel("m", "v1").reset();
  metrics.ForModel("m", "v2").reset();
  EXPECT_EQ(metrics.versions_with_series(), 3u);
  EXPECT_THAT(registry.RenderText(), HasSubstr(VersionLabel("v1")));
}

TEST(VersionSeriesTest, EndlessChurnWithScrapesKeepsTheTextBounded) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry);
  std::shared_ptr<const ModelRequestMetrics> serving = metrics.ForModel("m", "v0");
  size_t largest_after_warm_up = 0;
  size_t first_after_warm_up = 0;
  for (int version = 1; version <= 2000; ++version) {
    std::shared_ptr<const ModelRequestMetrics> next =
        metrics.ForModel("m", absl::StrCat("v", version));
    metrics.ForVariant(*next, 8)->rows->Observe(3);
    serving = std::move(next);  // a replacement: the old version is retired
    const size_t size = registry.RenderText().size();
    if (version == 10) first_after_warm_up = size;
    if (version >= 10) largest_after_warm_up = std::max(largest_after_warm_up, size);
  }
  // Held, retired-and-rendered, and the unknown model: never more.
  EXPECT_LE(metrics.versions_with_series(), 3u);
  // Only the version strings' lengths change ("v10" to "v2000").
  EXPECT_LE(largest_after_warm_up, first_after_warm_up * 11 / 10);
}

// The value of an unlabelled or single-sample line `prefix` in `text`, or -1 when absent.
double SampleValue(const std::string& text, const std::string& prefix) {
  const size_t at = text.find("\n" + prefix + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + prefix.size() + 2));
}

TEST(VersionSeriesTest, BeyondTheLimitTheOldestRetiredVersionsGoFirstAndAreCounted) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry, ServingMetrics::kRetiredSeriesGrace,
                         /*max_retired_versions=*/3);
  for (int version = 1; version <= 10; ++version) {
    std::shared_ptr<const ModelRequestMetrics> held =
        metrics.ForModel("m", absl::StrCat("v", version));
    held->CountRequest(absl::StatusCode::kOk);
    metrics.ForVariant(*held, 4)->executions->Increment();
    EXPECT_LE(metrics.retired_versions(), 3u);
  }
  EXPECT_EQ(metrics.retired_versions(), 3u);
  EXPECT_EQ(metrics.versions_with_series(), 4u);  // v8, v9, v10 and the unknown model
  const std::string text = registry.RenderText();
  for (int version = 1; version <= 7; ++version) {
    EXPECT_THAT(text, Not(HasSubstr(VersionLabel(absl::StrCat("v", version)))));
  }
  for (int version = 8; version <= 10; ++version) {
    EXPECT_THAT(text, HasSubstr(OkLine("m", absl::StrCat("v", version), 1)));
  }
  EXPECT_EQ(SampleValue(text, "neuronserve_retired_metric_versions"), 3);
  EXPECT_EQ(SampleValue(text, "neuronserve_retired_versions_unscraped_total{reason=\"limit\"}"),
            7);
  EXPECT_EQ(SampleValue(text, "neuronserve_retired_versions_unscraped_total{reason=\"grace\"}"),
            0);
}

TEST(VersionSeriesTest, VersionsAScrapeRenderedMakeRoomBeforeThoseItDidNot) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry, ServingMetrics::kRetiredSeriesGrace,
                         /*max_retired_versions=*/2);
  metrics.ForModel("m", "seen1").reset();
  metrics.ForModel("m", "seen2").reset();
  registry.RenderText();  // renders seen1 and seen2's final values
  metrics.ForModel("m", "new1").reset();
  metrics.ForModel("m", "new2").reset();
  const std::string text = registry.RenderText();
  EXPECT_THAT(text, HasSubstr(VersionLabel("new1")));
  EXPECT_THAT(text, HasSubstr(VersionLabel("new2")));
  EXPECT_THAT(text, Not(HasSubstr(VersionLabel("seen1"))));
  // Both made room without losing a value no scrape had shown.
  EXPECT_EQ(SampleValue(text, "neuronserve_retired_versions_unscraped_total{reason=\"limit\"}"),
            0);
}

TEST(VersionSeriesTest, AVersionTakenBackLeavesTheRetiredCount) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry, ServingMetrics::kRetiredSeriesGrace,
                         /*max_retired_versions=*/1);
  metrics.ForModel("m", "v1").reset();
  EXPECT_EQ(metrics.retired_versions(), 1u);
  std::shared_ptr<const ModelRequestMetrics> again = metrics.ForModel("m", "v1");
  EXPECT_EQ(metrics.retired_versions(), 0u);
  metrics.ForModel("m", "v2").reset();  // the only retired one: v1 is held, not dropped
  again->CountRequest(absl::StatusCode::kOk);
  EXPECT_THAT(registry.RenderText(), HasSubstr(OkLine("m", "v1", 1)));
}

TEST(VersionSeriesTest, WithALimitOfZeroAVersionsSeriesGoWhenItIsRetired) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry, ServingMetrics::kRetiredSeriesGrace,
                         /*max_retired_versions=*/0);
  metrics.ForModel("m", "v1").reset();
  EXPECT_EQ(metrics.versions_with_series(), 1u);
  EXPECT_THAT(registry.RenderText(), Not(HasSubstr(VersionLabel("v1"))));
}

TEST(VersionSeriesTest, UnscrapedSeriesPastTheGracePeriodAreCounted) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry, /*retired_series_grace=*/absl::ZeroDuration());
  metrics.ForModel("m", "v1").reset();
  metrics.ForModel("m", "v2").reset();  // removes v1, which no scrape rendered
  EXPECT_EQ(metrics.versions_with_series(), 2u);
  // The scrape's own hook removes v2 before rendering: no grace is left to show it.
  const std::string text = registry.RenderText();
  EXPECT_EQ(SampleValue(text, "neuronserve_retired_versions_unscraped_total{reason=\"grace\"}"),
            2);
  EXPECT_THAT(text, Not(HasSubstr(VersionLabel("v2"))));
}

TEST(VersionSeriesTest, AVersionCarriesOnlyTheCodesItAnswered) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry);
  std::shared_ptr<const ModelRequestMetrics> held = metrics.ForModel("m", "v1");
  std::string text = registry.RenderText();
  EXPECT_THAT(text, HasSubstr(OkLine("m", "v1", 0)));  // OK from the start
  EXPECT_THAT(text, Not(HasSubstr("version=\"v1\",code=\"NOT_FOUND\"")));
  held->CountRequest(absl::StatusCode::kNotFound);
  held->CountRequest(absl::StatusCode::kNotFound);
  EXPECT_EQ(held->requests_with_code(absl::StatusCode::kNotFound), 2);
  EXPECT_EQ(held->requests_with_code(absl::StatusCode::kInternal), 0);
  text = registry.RenderText();
  EXPECT_THAT(text, HasSubstr("neuronserve_requests_total{model=\"m\",version=\"v1\","
                              "code=\"NOT_FOUND\"} 2"));
  held.reset();
  registry.RenderText();
  EXPECT_THAT(registry.RenderText(), Not(HasSubstr(VersionLabel("v1"))));
}

TEST(VersionSeriesTest, EndlessChurnWithoutScrapesKeepsTheSeriesBounded) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry);  // five minutes' grace: only the limit bounds them here
  std::shared_ptr<const ModelRequestMetrics> serving = metrics.ForModel("m", "v0");
  for (int version = 1; version <= 5000; ++version) {
    std::shared_ptr<const ModelRequestMetrics> next =
        metrics.ForModel("m", absl::StrCat("v", version));
    next->CountRequest(version % 7 == 0 ? absl::StatusCode::kDeadlineExceeded
                                        : absl::StatusCode::kOk);
    metrics.ForVariant(*next, 8)->rows->Observe(3);
    serving = std::move(next);
  }
  EXPECT_EQ(metrics.retired_versions(), ServingMetrics::kMaxRetiredVersions);
  EXPECT_EQ(metrics.versions_with_series(), ServingMetrics::kMaxRetiredVersions + 2);
}

TEST(VersionSeriesConcurrencyTest, HoldersComeAndGoWhileScrapesRun) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry);
  std::atomic<bool> stop{false};
  std::thread scraper([&] {
    while (!stop.load()) registry.RenderText();
  });
  std::vector<std::thread> loaders;
  for (int t = 0; t < 4; ++t) {
    loaders.emplace_back([&metrics, t] {
      for (int i = 0; i < 300; ++i) {
        // Two threads share each version, so holds overlap and retired versions come back.
        std::shared_ptr<const ModelRequestMetrics> held =
            metrics.ForModel("m", absl::StrCat("v", (t / 2) * 1000 + i % 50));
        metrics.ForVariant(*held, 2)->executions->Increment();
        held->CountRequest(absl::StatusCode::kOk);
        // A code's first answer makes its series, racing the other holder of the version.
        held->CountRequest(i % 3 == 0 ? absl::StatusCode::kCancelled
                                      : absl::StatusCode::kDeadlineExceeded);
        held->total_seconds->Observe(0.001);
      }
    });
  }
  for (std::thread& loader : loaders) loader.join();
  stop.store(true);
  scraper.join();
  registry.RenderText();
  registry.RenderText();
  EXPECT_EQ(metrics.versions_with_series(), 1u);
  EXPECT_THAT(registry.RenderText(), Not(HasSubstr(VersionLabel("v0"))));
}

}  // namespace
}  // namespace version_series_test
}  // namespace neuronserve
