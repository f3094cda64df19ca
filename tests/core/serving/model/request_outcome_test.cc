// RecordRequestOutcome, the one recorder of a request's outcome: one call shows in both the
// model version's succeeded/failed (what GetModel reports) and neuronserve_requests_total; a
// request refused before a model was found counts in the unknown model's metric only. And
// ModelSourceName, the API's strings for ModelSource. And the version's cumulative request
// statistics (the v2 ModelStatistics), summed by the same call, also from many threads at once.
#include "core/serving/model/request_outcome.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "core/metrics/metrics_registry.h"
#include "core/metrics/serving_metrics.h"
#include "core/serving/model/model_info.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;

// A version with no replicas and no queue: enough to hold counters and take leases.
std::shared_ptr<LoadedModel> BareModel(const std::string& name, const std::string& version) {
  return std::make_shared<LoadedModel>(ModelIdentity{name, version, ModelSource::kUpload},
                                       std::vector<std::unique_ptr<ModelReplica>>{}, ModelTensors{},
                                       0, absl::Now(), absl::ZeroDuration());
}

// A request whose durations the test does not look at.
constexpr RequestDurations kUntimed{};

double Count(const ModelRequestMetrics& metrics, absl::StatusCode code) {
  return metrics.requests_with_code(code);
}

class RequestOutcomeTest : public ::testing::Test {
 protected:
  metrics::MetricsRegistry registry_;
  ServingMetrics metrics_{registry_};
};

TEST_F(RequestOutcomeTest, OneRecordShowsInTheModelsCountsAndInTheMetricByCode) {
  std::shared_ptr<LoadedModel> model = BareModel("m", "1");
  model->set_request_metrics(metrics_.ForModel("m", "1"));
  LoadedModel::Lease lease(model);

  RecordRequestOutcome(&*lease, lease->request_metrics(), absl::StatusCode::kOk, kUntimed);
  RecordRequestOutcome(&*lease, lease->request_metrics(), absl::StatusCode::kOk, kUntimed);
  RecordRequestOutcome(&*lease, lease->request_metrics(), absl::StatusCode::kUnavailable, kUntimed);
  RecordRequestOutcome(&*lease, lease->request_metrics(), absl::StatusCode::kInvalidArgument,
                       kUntimed);

  EXPECT_EQ(model->requests_succeeded(), 2u);
  EXPECT_EQ(model->requests_failed(), 2u);
  const ModelInfo info = DescribeLoadedModel(*model, ModelState::kReady);
  EXPECT_EQ(info.requests_succeeded, 2u);
  EXPECT_EQ(info.requests_failed, 2u);

  const ModelRequestMetrics& counted = *model->request_metrics();
  EXPECT_EQ(Count(counted, absl::StatusCode::kOk), 2);
  EXPECT_EQ(Count(counted, absl::StatusCode::kUnavailable), 1);
  EXPECT_EQ(Count(counted, absl::StatusCode::kInvalidArgument), 1);
  EXPECT_EQ(Count(counted, absl::StatusCode::kNotFound), 0);
  const std::string scrape = registry_.RenderText();
  EXPECT_THAT(scrape,
              HasSubstr("neuronserve_requests_total{model=\"m\",version=\"1\",code=\"OK\"} 2"));
  EXPECT_THAT(scrape, HasSubstr("neuronserve_requests_total{model=\"m\",version=\"1\","
                                "code=\"UNAVAILABLE\"} 1"));
  // Nothing leaked into the unknown model's counter.
  EXPECT_EQ(Count(metrics_.unknown_model(), absl::StatusCode::kOk), 0);
}

TEST_F(RequestOutcomeTest, ARequestRefusedBeforeAModelWasFoundCountsInTheUnknownModelOnly) {
  std::shared_ptr<LoadedModel> model = BareModel("m", "1");
  model->set_request_metrics(metrics_.ForModel("m", "1"));

  RecordRequestOutcome(nullptr, &metrics_.unknown_model(), absl::StatusCode::kNotFound, kUntimed);

  EXPECT_EQ(Count(metrics_.unknown_model(), absl::StatusCode::kNotFound), 1);
  EXPECT_THAT(registry_.RenderText(),
              HasSubstr("neuronserve_requests_total{model=\"\",version=\"\","
                        "code=\"NOT_FOUND\"} 1"));
  EXPECT_EQ(model->requests_succeeded(), 0u);
  EXPECT_EQ(model->requests_failed(), 0u);
  EXPECT_EQ(Count(*model->request_metrics(), absl::StatusCode::kNotFound), 0);
}

TEST_F(RequestOutcomeTest, WithoutMetricsTheModelStillCounts) {
  std::shared_ptr<LoadedModel> model = BareModel("m", "1");
  LoadedModel::Lease lease(model);
  ASSERT_EQ(lease->request_metrics(), nullptr);

  RecordRequestOutcome(&*lease, nullptr, absl::StatusCode::kOk, kUntimed);
  RecordRequestOutcome(&*lease, nullptr, absl::StatusCode::kDeadlineExceeded, kUntimed);

  EXPECT_EQ(model->requests_succeeded(), 1u);
  EXPECT_EQ(model->requests_failed(), 1u);
}

TEST_F(RequestOutcomeTest, DurationsSumInTheVersionsStatisticsByOutcome) {
  std::shared_ptr<LoadedModel> model = BareModel("m", "1");
  LoadedModel::Lease lease(model);
  EXPECT_EQ(model->statistics().last_request, absl::InfinitePast());
  const absl::Time before = absl::Now();

  RecordRequestOutcome(&*lease, nullptr, absl::StatusCode::kOk,
                       {absl::Microseconds(100), absl::Microseconds(30), absl::Microseconds(50)});
  RecordRequestOutcome(&*lease, nullptr, absl::StatusCode::kOk,
                       {absl::Microseconds(200), absl::Microseconds(10), absl::Microseconds(150)});
  // Refused before the device (a bad shape): a failure that never ran.
  RecordRequestOutcome(&*lease, nullptr, absl::StatusCode::kInvalidArgument,
                       {absl::Microseconds(7), absl::ZeroDuration(), absl::ZeroDuration()});
  // Failed on the device: an execution, but no queue or compute sample (as in Triton).
  RecordRequestOutcome(&*lease, nullptr, absl::StatusCode::kInternal,
                       {absl::Microseconds(40), absl::Microseconds(5), absl::Microseconds(20)});

  const RequestStatistics stats = DescribeLoadedModel(*model, ModelState::kReady).statistics;
  EXPECT_EQ(stats.success_count, 2u);
  EXPECT_EQ(stats.success_ns, 300'000u);
  EXPECT_EQ(stats.fail_count, 2u);
  EXPECT_EQ(stats.fail_ns, 47'000u);
  EXPECT_EQ(stats.queue_count, 2u);
  EXPECT_EQ(stats.queue_ns, 40'000u);
  EXPECT_EQ(stats.compute_count, 2u);
  EXPECT_EQ(stats.compute_ns, 200'000u);
  EXPECT_EQ(stats.executions, 3u);
  EXPECT_GE(stats.last_request, before);
  EXPECT_LE(stats.last_request, absl::Now());
  // The request counts GetModel reports are the same counts.
  EXPECT_EQ(model->requests_succeeded(), stats.success_count);
  EXPECT_EQ(model->requests_failed(), stats.fail_count);
}

TEST_F(RequestOutcomeTest, ANegativeDurationCountsAsZero) {
  std::shared_ptr<LoadedModel> model = BareModel("m", "1");
  LoadedModel::Lease lease(model);
  RecordRequestOutcome(&*lease, nullptr, absl::StatusCode::kOk,
                       {absl::Microseconds(-5), absl::Microseconds(-1), absl::Microseconds(3)});
  const RequestStatistics stats = model->statistics();
  EXPECT_EQ(stats.success_ns, 0u);
  EXPECT_EQ(stats.queue_ns, 0u);
  EXPECT_EQ(stats.compute_ns, 3'000u);
}

// Many threads record at once while another reads: every sum is exact at the end, and no count
// a reader saw ever goes down (run under TSAN in CI: the counters are lock-free atomics).
TEST_F(RequestOutcomeTest, ConcurrentRecordsSumExactly) {
  std::shared_ptr<LoadedModel> model = BareModel("m", "1");
  model->set_request_metrics(metrics_.ForModel("m", "1"));
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2000;
  std::atomic<bool> done{false};
  std::atomic<bool> went_down{false};
  std::thread reader([&] {
    RequestStatistics previous;
    while (!done.load()) {
      const RequestStatistics now = model->statistics();
      if (now.success_count < previous.success_count || now.fail_count < previous.fail_count ||
          now.executions < previous.executions || now.last_request < previous.last_request) {
        went_down.store(true);
      }
      previous = now;
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&] {
      LoadedModel::Lease lease(model);
      for (int i = 0; i < kPerThread; ++i) {
        const bool ok = i % 4 != 0;  // 3 of 4 succeed
        RecordRequestOutcome(&*lease, lease->request_metrics(),
                             ok ? absl::StatusCode::kOk : absl::StatusCode::kUnavailable,
                             {absl::Nanoseconds(10), absl::Nanoseconds(2),
                              ok ? absl::Nanoseconds(5) : absl::ZeroDuration()});
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  done.store(true);
  reader.join();

  const uint64_t total = kThreads * kPerThread;
  const uint64_t failed = total / 4;
  const uint64_t succeeded = total - failed;
  const RequestStatistics stats = model->statistics();
  EXPECT_FALSE(went_down.load());
  EXPECT_EQ(stats.success_count, succeeded);
  EXPECT_EQ(stats.success_ns, succeeded * 10);
  EXPECT_EQ(stats.fail_count, failed);
  EXPECT_EQ(stats.fail_ns, failed * 10);
  EXPECT_EQ(stats.queue_count, succeeded);
  EXPECT_EQ(stats.queue_ns, succeeded * 2);
  EXPECT_EQ(stats.compute_count, succeeded);
  EXPECT_EQ(stats.compute_ns, succeeded * 5);
  EXPECT_EQ(stats.executions, succeeded);
  EXPECT_EQ(Count(*model->request_metrics(), absl::StatusCode::kOk), succeeded);
  EXPECT_EQ(Count(*model->request_metrics(), absl::StatusCode::kUnavailable), failed);
}

TEST(ModelSourceTest, NamesAreTheApiStrings) {
  EXPECT_EQ(ModelSourceName(ModelSource::kUpload), "upload");
  EXPECT_EQ(ModelSourceName(ModelSource::kRepository), "repository");
  EXPECT_EQ(ModelSourceName(ModelSource::kState), "state");
}

}  // namespace
}  // namespace neuronserve
