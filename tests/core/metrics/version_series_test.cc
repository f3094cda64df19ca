// ServingMetrics' per-version series: held while a handle of the version is held, rendered by
// one more scrape after the last handle is released (with the final values), removed by the
// scrape after that, or after the grace period when nobody scrapes; a version asked for again
// before then counts on. Under endless version churn the rendered text stays bounded. The
// concurrency case (holders released while scrapes run) runs under ThreadSanitizer.
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
