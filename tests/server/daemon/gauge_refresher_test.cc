#include "server/daemon/gauge_refresher.h"

#include <cmath>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "tests/prometheus/prometheus_text_parser.h"

namespace neuronserve {
namespace {

using testing::FindSample;
using testing::ParsePrometheusText;
using testing::PromFamily;

// Refresh over state the test sets, read back through the registry's Prometheus text: no
// runtime, no registry of models, no daemon.
class GaugeRefresherTest : public ::testing::Test {
 protected:
  // The value of one sample in a fresh render; NaN when it is not there.
  double Sample(const std::string& name, const std::map<std::string, std::string>& labels) {
    absl::StatusOr<std::vector<PromFamily>> families = ParsePrometheusText(registry_.RenderText());
    EXPECT_TRUE(families.ok()) << families.status();
    if (!families.ok()) return std::nan("");
    absl::StatusOr<double> value = FindSample(*families, name, labels);
    return value.ok() ? *value : std::nan("");
  }

  static ModelInfo Model(const std::string& name, ModelState state, size_t queue_depth = 0) {
    ModelInfo model;
    model.identity = {name, "1", ModelSource::kRepository};
    model.state = state;
    model.queue_depth = queue_depth;
    model.load_duration = absl::Milliseconds(1500);
    return model;
  }

  const absl::Time started_ = absl::FromUnixSeconds(1000);
  metrics::MetricsRegistry registry_;
  ServingMetrics metrics_{registry_};
  GaugeRefresher refresher_{metrics_, started_};
};

TEST_F(GaugeRefresherTest, ModelsByStateAndTheServedModelsQueueAndLoadTime) {
  GaugeInputs inputs;
  inputs.models = {Model("a", ModelState::kReady, 3), Model("b", ModelState::kUnloading, 1),
                   Model("c", ModelState::kFailed), Model("d", ModelState::kReady)};
  refresher_.Refresh(inputs, started_ + absl::Seconds(1));
  EXPECT_EQ(Sample("neuronserve_models", {{"state", "READY"}}), 2);
  EXPECT_EQ(Sample("neuronserve_models", {{"state", "UNLOADING"}}), 1);
  EXPECT_EQ(Sample("neuronserve_models", {{"state", "FAILED"}}), 1);
  EXPECT_EQ(Sample("neuronserve_models", {{"state", "LOADING"}}), 0);
  EXPECT_EQ(Sample("neuronserve_queue_depth", {{"model", "a"}, {"version", "1"}}), 3);
  EXPECT_EQ(Sample("neuronserve_queue_depth", {{"model", "b"}, {"version", "1"}}), 1);
  EXPECT_EQ(Sample("neuronserve_model_load_duration_seconds", {{"model", "a"}, {"version", "1"}}),
            1.5);
  // A FAILED model has no queue and no load time.
  EXPECT_TRUE(std::isnan(Sample("neuronserve_queue_depth", {{"model", "c"}, {"version", "1"}})));

  // Gone from the registry: gone from the per-model gauges.
  inputs.models = {Model("d", ModelState::kReady)};
  refresher_.Refresh(inputs, started_ + absl::Seconds(2));
  EXPECT_TRUE(std::isnan(Sample("neuronserve_queue_depth", {{"model", "a"}, {"version", "1"}})));
  EXPECT_EQ(Sample("neuronserve_models", {{"state", "READY"}}), 1);
}

TEST_F(GaugeRefresherTest, PerCoreGaugesAndMemoryOnlyWhereKnown) {
  GaugeInputs inputs;
  inputs.cores.resize(2);
  inputs.cores[0] = {
      .executing = true, .healthy = true, .memory_used = 4096, .memory_total = 16384};
  inputs.cores[1] = {.executing = false, .healthy = false};
  refresher_.Refresh(inputs, started_ + absl::Seconds(1));
  EXPECT_EQ(Sample("neuronserve_executions_in_flight", {{"core", "0"}}), 1);
  EXPECT_EQ(Sample("neuronserve_executions_in_flight", {{"core", "1"}}), 0);
  EXPECT_EQ(Sample("neuronserve_core_healthy", {{"core", "0"}}), 1);
  EXPECT_EQ(Sample("neuronserve_core_healthy", {{"core", "1"}}), 0);
  EXPECT_EQ(Sample("neuronserve_device_memory_used_bytes", {{"core", "0"}}), 4096);
  EXPECT_EQ(Sample("neuronserve_device_memory_bytes", {{"core", "0"}}), 16384);
  EXPECT_TRUE(std::isnan(Sample("neuronserve_device_memory_used_bytes", {{"core", "1"}})));
  EXPECT_TRUE(std::isnan(Sample("neuronserve_device_memory_bytes", {{"core", "1"}})));
}

TEST_F(GaugeRefresherTest, BusyRatioIsOverTheIntervalSinceTheLastScrapeAndKeptWhenTooShort) {
  GaugeInputs inputs;
  inputs.cores.resize(1);
  metrics::Counter& busy = *metrics_.ForCore(0).busy_seconds;
  busy.Increment(0.5);
  refresher_.Refresh(inputs, started_ + absl::Seconds(1));  // first interval: from the start
  EXPECT_NEAR(Sample("neuronserve_core_busy_ratio", {{"core", "0"}}), 0.5, 1e-9);

  busy.Increment(0.01);
  refresher_.Refresh(inputs, started_ + absl::Milliseconds(1050));  // 50 ms: keeps 0.5
  EXPECT_NEAR(Sample("neuronserve_core_busy_ratio", {{"core", "0"}}), 0.5, 1e-9);

  busy.Increment(0.24);  // 0.25 since the scrape at 1 s
  refresher_.Refresh(inputs, started_ + absl::Seconds(2));
  EXPECT_NEAR(Sample("neuronserve_core_busy_ratio", {{"core", "0"}}), 0.25, 1e-9);

  busy.Increment(5);  // more than the interval: clamped
  refresher_.Refresh(inputs, started_ + absl::Seconds(3));
  EXPECT_NEAR(Sample("neuronserve_core_busy_ratio", {{"core", "0"}}), 1.0, 1e-9);
}

TEST_F(GaugeRefresherTest, ReadyAndLiveFollowTheHealthReport) {
  GaugeInputs inputs;
  inputs.health.serving = true;
  inputs.health.live = false;
  refresher_.Refresh(inputs, started_ + absl::Seconds(1));
  EXPECT_EQ(Sample("neuronserve_ready", {}), 1);
  EXPECT_EQ(Sample("neuronserve_live", {}), 0);
}

}  // namespace
}  // namespace neuronserve
