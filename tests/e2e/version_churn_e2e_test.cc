// Version churn without scrapes: one model replaced over and over, each time under a new version
// label, while every front end (native gRPC, the Open Inference Protocol over gRPC and over REST)
// sends each version an inference and asks its metadata, statistics, readiness and the
// repository index, and nobody scrapes /metrics until the end. What a version leaves behind once
// it is replaced must be bounded by --max-retired-metric-versions, not by how many versions came
// and went: the retired versions whose series wait stay at that limit (the oldest going first,
// counted), and the allocator's bytes in use (neuronserve_heap_in_use_bytes, glibc's mallinfo2;
// RSS is too coarse, the daemon's malloc settings keep freed memory) do not grow with the
// versions. Under a sanitizer, whose allocator mallinfo2 does not describe, fewer versions run and
// only the series are bounded.
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/prometheus/prometheus_text_parser.h"
#include "tests/support/http_connection.h"
#include "tests/support/http_get.h"
#include "tests/support/sanitizer_build.h"

namespace neuronserve::testing {
namespace version_churn_e2e_test {
namespace {

constexpr char kModel[] = "churn";
// The daemon's default --max-retired-metric-versions (ServingMetrics::kMaxRetiredVersions).
constexpr int kRetiredLimit = 128;
// Versions loaded before the first scrape: the retired ones fill up to the limit.
constexpr int kWarmUpVersions = kRetiredLimit + 20;
// Versions loaded between the two scrapes.
constexpr int kChurnedVersions = kUnderSanitizer ? 250 : 1000;
// How much the allocator's bytes in use may grow over kChurnedVersions versions. Without the
// limit (measured by lifting it, --max-retired-metric-versions=100000) each version left 2 kB of
// series until a scrape or 5 minutes passed: 1000 versions grew the heap by 2.0 MB. With it, 55 kB.
constexpr double kHeapGrowthBound = 512 << 10;

std::vector<PromFamily> Scrape(HttpConnection& http) {
  const HttpAnswer answer = http.Send({.path = "/metrics", .method = "GET"});
  EXPECT_EQ(answer.status, 200) << answer.error;
  absl::StatusOr<std::vector<PromFamily>> families = ParsePrometheusText(answer.body);
  EXPECT_TRUE(families.ok()) << families.status();
  return families.ok() ? *std::move(families) : std::vector<PromFamily>{};
}

double Value(const std::vector<PromFamily>& families, const std::string& name,
             const std::map<std::string, std::string>& labels = {}) {
  absl::StatusOr<double> value = FindSample(families, name, labels);
  EXPECT_TRUE(value.ok()) << name << ": " << value.status();
  return value.ok() ? *value : -1;
}

// Model versions that have a neuronserve_requests_total series now.
std::set<std::string> VersionsWithSeries(const std::vector<PromFamily>& families) {
  std::set<std::string> versions;
  for (const PromFamily& family : families) {
    for (const PromSample& sample : family.samples) {
      if (sample.name != "neuronserve_requests_total") continue;
      auto model = sample.labels.find("model");
      if (model != sample.labels.end() && model->second == kModel) {
        versions.insert(sample.labels.at("version"));
      }
    }
  }
  return versions;
}

// Every front end's calls to the version now serving; a failure names the call.
class FrontEnds {
 public:
  FrontEnds(RunningDaemon& daemon, const std::string& http_address)
      : daemon_(daemon),
        v2_(inference::GRPCInferenceService::NewStub(daemon.channel)),
        http_(http_address) {}

  void Touch(const std::string& version) {
    SCOPED_TRACE("version " + version);
    // Native: inference, the model's status, the list.
    v1::InferRequest request;
    request.set_model(kModel);
    request.set_version(version);
    AddInput(request, "x", {1, 4}, {1, -2, 3, -4}, TensorForm::kRaw);
    v1::InferResponse response;
    ASSERT_TRUE(Infer(*daemon_.stub, request, &response).ok());
    v1::ModelStatus status;
    ASSERT_TRUE(GetModel(*daemon_.stub, kModel, &status).ok());
    ASSERT_EQ(status.version(), version);
    ASSERT_EQ(ListModels(*daemon_.stub).models_size(), 1);

    // The Open Inference Protocol over gRPC.
    {
      grpc::ClientContext context;
      inference::ModelInferRequest infer;
      infer.set_model_name(kModel);
      infer.set_model_version(version);
      inference::ModelInferRequest::InferInputTensor* input = infer.add_inputs();
      input->set_name("x");
      input->set_datatype("FP32");
      input->add_shape(1);
      input->add_shape(4);
      for (float value : {1.0f, -2.0f, 3.0f, -4.0f}) input->mutable_contents()->add_fp32_contents(value);
      inference::ModelInferResponse answer;
      const grpc::Status called = v2_->ModelInfer(&context, infer, &answer);
      ASSERT_TRUE(called.ok()) << called.error_message();
    }
    {
      grpc::ClientContext context;
      inference::ModelMetadataRequest metadata;
      metadata.set_name(kModel);
      metadata.set_version(version);
      inference::ModelMetadataResponse answer;
      ASSERT_TRUE(v2_->ModelMetadata(&context, metadata, &answer).ok());
    }
    {
      grpc::ClientContext context;
      inference::ModelStatisticsRequest statistics;
      statistics.set_name(kModel);
      statistics.set_version(version);
      inference::ModelStatisticsResponse answer;
      ASSERT_TRUE(v2_->ModelStatistics(&context, statistics, &answer).ok());
      ASSERT_EQ(answer.model_stats_size(), 1);
      ASSERT_EQ(answer.model_stats(0).inference_count(), 2u);  // native and v2 gRPC so far
    }
    {
      grpc::ClientContext context;
      inference::ModelReadyRequest ready;
      ready.set_name(kModel);
      ready.set_version(version);
      inference::ModelReadyResponse answer;
      ASSERT_TRUE(v2_->ModelReady(&context, ready, &answer).ok());
      ASSERT_TRUE(answer.ready());
    }
    {
      grpc::ClientContext context;
      inference::RepositoryIndexResponse answer;
      ASSERT_TRUE(v2_->RepositoryIndex(&context, {}, &answer).ok());
    }

    // REST.
    const std::string model_path = absl::StrCat("/v2/models/", kModel, "/versions/", version);
    Expect200({.path = model_path + "/infer",
               .body = R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1,4],)"
                       R"("data":[1,-2,3,-4]}]})"});
    Expect200({.path = model_path, .method = "GET"});
    Expect200({.path = model_path + "/stats", .method = "GET"});
    Expect200({.path = model_path + "/ready", .method = "GET"});
    Expect200({.path = "/v2/repository/index", .body = "{}"});
  }

  HttpConnection& http() { return http_; }

 private:
  void Expect200(const HttpPost& request) {
    const HttpAnswer answer = http_.Send(request);
    ASSERT_EQ(answer.status, 200) << request.method << " " << request.path << ": " << answer.error
                                  << answer.body;
  }

  RunningDaemon& daemon_;
  std::unique_ptr<inference::GRPCInferenceService::Stub> v2_;
  HttpConnection http_;
};

TEST(VersionChurnE2ETest, AThousandNewVersionsUnscrapedLeaveNoMoreThanTheRetiredLimit) {
  START_DAEMON(daemon, SimDaemonArgs({"--http-listen=127.0.0.1:0"}));
  const std::optional<std::string> http = WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+)");
  ASSERT_TRUE(http.has_value());
  FrontEnds front_ends(*daemon, *http);
  int loaded = 0;
  auto load_next = [&] {
    const std::string version = absl::StrCat("v", ++loaded);
    const LoadResult upload =
        Upload(*daemon->stub, Config(kModel, version), SimNeff({.tag = version}));
    ASSERT_TRUE(upload.status.ok()) << version << ": " << upload.status.error_message();
    front_ends.Touch(version);
  };

  for (int i = 0; i < kWarmUpVersions; ++i) {
    ASSERT_NO_FATAL_FAILURE(load_next());
  }
  const std::vector<PromFamily> before = Scrape(front_ends.http());
  const double unscraped_before =
      Value(before, "neuronserve_retired_versions_unscraped_total", {{"reason", "limit"}});

  for (int i = 0; i < kChurnedVersions; ++i) {
    ASSERT_NO_FATAL_FAILURE(load_next());
  }
  const std::vector<PromFamily> after = Scrape(front_ends.http());

  // The replaced versions drain in the background: the last few may still be held.
  const double retired = Value(after, "neuronserve_retired_metric_versions");
  EXPECT_LE(retired, kRetiredLimit);
  EXPECT_GE(retired, kRetiredLimit - 8);
  const std::set<std::string> shown = VersionsWithSeries(after);
  EXPECT_LE(shown.size(), static_cast<size_t>(kRetiredLimit + 8));
  EXPECT_TRUE(shown.count(absl::StrCat("v", loaded))) << "the serving version";
  // Every version retired beyond the limit without a scrape in between is counted.
  const double unscraped =
      Value(after, "neuronserve_retired_versions_unscraped_total", {{"reason", "limit"}}) -
      unscraped_before;
  EXPECT_GE(unscraped, kChurnedVersions - kRetiredLimit - 8);
  EXPECT_LE(unscraped, kChurnedVersions);

  if (!kUnderSanitizer) {
    const double heap_before = Value(before, "neuronserve_heap_in_use_bytes");
    const double heap_after = Value(after, "neuronserve_heap_in_use_bytes");
    EXPECT_GT(heap_before, 0);
    EXPECT_LE(heap_after - heap_before, kHeapGrowthBound)
        << "the allocator's bytes in use grew from " << heap_before << " to " << heap_after
        << " over " << kChurnedVersions << " versions";
    std::printf("heap in use: %.0f bytes after %d versions, %.0f after %d more (%+.1f per version)\n",
                heap_before, kWarmUpVersions, heap_after, kChurnedVersions,
                (heap_after - heap_before) / kChurnedVersions);
  }
}

}  // namespace
}  // namespace version_churn_e2e_test
}  // namespace neuronserve::testing
