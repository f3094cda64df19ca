// RecordRequestOutcome, the one recorder of a request's outcome: one call shows in both the
// model version's succeeded/failed (what GetModel reports) and neuronserve_requests_total; a
// request refused before a model was found counts in the unknown model's metric only. And
// ModelSourceName, the API's strings for ModelSource.
#include "core/serving/request_outcome.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "core/metrics/metrics_registry.h"
#include "core/metrics/serving_metrics.h"
#include "core/serving/model_info.h"
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

double Count(const ModelRequestMetrics& metrics, absl::StatusCode code) {
  return metrics.by_code[static_cast<int>(code)]->value();
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

  RecordRequestOutcome(&*lease, lease->request_metrics(), absl::StatusCode::kOk);
  RecordRequestOutcome(&*lease, lease->request_metrics(), absl::StatusCode::kOk);
  RecordRequestOutcome(&*lease, lease->request_metrics(), absl::StatusCode::kUnavailable);
  RecordRequestOutcome(&*lease, lease->request_metrics(), absl::StatusCode::kInvalidArgument);

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

  RecordRequestOutcome(nullptr, &metrics_.unknown_model(), absl::StatusCode::kNotFound);

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

  RecordRequestOutcome(&*lease, nullptr, absl::StatusCode::kOk);
  RecordRequestOutcome(&*lease, nullptr, absl::StatusCode::kDeadlineExceeded);

  EXPECT_EQ(model->requests_succeeded(), 1u);
  EXPECT_EQ(model->requests_failed(), 1u);
}

TEST(ModelSourceTest, NamesAreTheApiStrings) {
  EXPECT_EQ(ModelSourceName(ModelSource::kUpload), "upload");
  EXPECT_EQ(ModelSourceName(ModelSource::kRepository), "repository");
  EXPECT_EQ(ModelSourceName(ModelSource::kState), "state");
}

}  // namespace
}  // namespace neuronserve
