// What the HostileInputE2ETest files share: the fixture (a daemon on the simulator with the MLP
// loaded, over gRPC and HTTP, checked SERVING and answering a valid request after each test),
// the MLP's valid row, and ExpectRefused (a status other than OK and UNIMPLEMENTED, with a
// message naming what is wrong).
//
// Thread safety: the fixture is used by its test's thread.
#ifndef NEURON_SERVE_TESTS_E2E_HOSTILE_INPUT_FIXTURE_H_
#define NEURON_SERVE_TESTS_E2E_HOSTILE_INPUT_FIXTURE_H_

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/health_check.h"
#include "tests/support/http_get.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing::hostile_input_e2e_test {

using inference::GRPCInferenceService;
using inference::ModelInferRequest;
using inference::ModelInferResponse;
using Json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

inline constexpr int kHealthServing = 1;  // grpc.health.v1 HealthCheckResponse.SERVING
inline constexpr int kHostileMlpIn = 8;
inline constexpr int kHostileMlpOut = 4;

inline std::vector<float> MlpRow() { return {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f, 0.0f, 3.0f}; }

// A status the daemon gave to a hostile call: the code expected (never OK, never UNIMPLEMENTED,
// which would send a user looking for a missing method) and a message holding every part.
inline void ExpectRefused(const grpc::Status& status, grpc::StatusCode code,
                          const std::vector<std::string>& parts, const std::string& what) {
  EXPECT_NE(status.error_code(), grpc::StatusCode::OK) << what;
  EXPECT_NE(status.error_code(), grpc::StatusCode::UNIMPLEMENTED) << what;
  EXPECT_EQ(status.error_code(), code) << what << ": " << status.error_message();
  EXPECT_FALSE(status.error_message().empty()) << what;
  for (const std::string& part : parts) {
    EXPECT_THAT(status.error_message(), HasSubstr(part)) << what;
  }
}

// The daemon with its HTTP endpoint, the MLP loaded as "mlp", and the three ways to reach it.
class HostileInputE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = StartDaemon(
        SimDaemonArgs({"--http-listen=127.0.0.1:0", "--state-dir=" + state_.Join("state")}), &log_);
    ASSERT_NE(daemon_, nullptr) << log_;
    const std::optional<std::string> http =
        WaitForLog(*daemon_->process, "HTTP endpoint on ([^ ]+) \\(");
    ASSERT_TRUE(http.has_value()) << daemon_->process->Stderr();
    http_ = "http://" + *http;
    v2_ = GRPCInferenceService::NewStub(daemon_->channel);
    LoadResult loaded = Upload(*daemon_->stub, Config("mlp", "1"), EncodeNeff(mlp_));
    ASSERT_TRUE(loaded.status.ok()) << loaded.status.error_message();
  }

  // SERVING, and a valid MLP request still gets the reference's values.
  void ExpectStillServing() {
    EXPECT_EQ(HealthCheck(daemon_->channel, ""), kHealthServing);
    v1::InferRequest request;
    request.set_model("mlp");
    AddInput(request, "input", {1, kHostileMlpIn}, MlpRow(), TensorForm::kFloat);
    v1::InferResponse response;
    grpc::Status status = Infer(*daemon_->stub, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(response.outputs_size(), 1);
    const std::vector<float> got = OutputValues(response.outputs(0));
    const std::vector<double> want = MlpReference(mlp_, MlpRow(), 2);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  }

  // 60 s for the whole exchange: under ASan, beside other tests, the daemon took over 10 s (curl's
  // default here) to parse and refuse the 7 MB body of 100,000 inputs.
  HttpResult Post(const std::string& path, const std::string& body) {
    return HttpFetch({.url = http_ + path,
                      .method = "POST",
                      .body_file = bodies_.Write(absl::StrCat("body", ++body_count_), body),
                      .max_seconds = 60});
  }

  // A REST request on the MLP whose one input carries `fields` (JSON members).
  HttpResult PostMlpInput(const std::string& fields) {
    return Post("/v2/models/mlp/infer",
                absl::StrCat(R"({"inputs":[{"name":"input","datatype":"FP32",)", fields, "}]}"));
  }

  TempDir state_;
  TempDir bodies_;
  int body_count_ = 0;
  std::string log_;
  std::unique_ptr<RunningDaemon> daemon_;
  std::unique_ptr<GRPCInferenceService::Stub> v2_;
  std::string http_;
  const simmodel::SimModel mlp_ = SmallMlp(20);
};

}  // namespace neuronserve::testing::hostile_input_e2e_test

#endif  // NEURON_SERVE_TESTS_E2E_HOSTILE_INPUT_FIXTURE_H_
