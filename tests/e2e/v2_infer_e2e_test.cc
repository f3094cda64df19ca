// The Open Inference Protocol's ModelInfer and ModelStreamInfer through the real daemon, with
// stubs generated from proto/inference: the MLP and the classifier against references computed
// here, the queue timeout parameter, and one request form behind both front ends (shared counts
// and access log). Every dtype: v2_infer_dtypes_e2e_test.cc; errors: v2_infer_errors_e2e_test.cc.
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "client/simmodel/classifier_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/e2e/dtype_samples.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/e2e/v2_infer_client.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing {
namespace v2_infer_e2e_test {
namespace {

void AddRawInput(ModelInferRequest& request, const std::string& name, const std::string& datatype,
                 std::vector<int64_t> shape, std::string bytes) {
  auto* input = request.add_inputs();
  input->set_name(name);
  input->set_datatype(datatype);
  for (int64_t d : shape) input->add_shape(d);
  request.add_raw_input_contents(std::move(bytes));
}

template <typename T>
std::vector<T> ValuesOf(const std::string& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

// ---- The MLP and the classifier ----

constexpr int kMlpIn = 8;
constexpr int kMlpOut = 4;

ModelInferRequest MlpRequest(const std::vector<float>& x, bool raw, const std::string& id) {
  ModelInferRequest request;
  request.set_model_name("mlp");
  request.set_id(id);
  if (raw) {
    AddRawInput(request, "input", "FP32", {1, kMlpIn}, BytesOf(x));
  } else {
    auto* input = request.add_inputs();
    input->set_name("input");
    input->set_datatype("FP32");
    input->add_shape(1);
    input->add_shape(kMlpIn);
    input->mutable_contents()->mutable_fp32_contents()->Add(x.begin(), x.end());
  }
  return request;
}

// The MLP's answer after checking its metadata: raw, whichever form the request took (as Triton
// answers).
std::vector<float> MlpOutput(const ModelInferResponse& response) {
  EXPECT_EQ(response.model_name(), "mlp");
  EXPECT_EQ(response.model_version(), "1");
  if (response.outputs_size() != 1) {
    ADD_FAILURE() << "outputs: " << response.outputs_size();
    return {};
  }
  const auto& output = response.outputs(0);
  EXPECT_EQ(output.name(), "output");
  EXPECT_EQ(output.datatype(), "FP32");
  EXPECT_THAT(output.shape(), ElementsAre(1, kMlpOut));
  EXPECT_EQ(response.raw_output_contents_size(), 1);
  EXPECT_FALSE(output.has_contents());
  return response.raw_output_contents_size() == 1 ? ValuesOf<float>(response.raw_output_contents(0))
                                                  : std::vector<float>{};
}

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::abs(want[i])) << what << " [" << i << "]";
  }
}

TEST(V2InferE2ETest, TheMlpMatchesAReferenceRawAndTypedInAndRawOutUnaryAndStreamed) {
  START_DAEMON(daemon, SimDaemonArgs());
  const simmodel::SimModel mlp = SmallMlp(11);
  ASSERT_TRUE(Upload(*daemon->stub, Config("mlp", "1"), EncodeNeff(mlp)).status.ok());
  auto v2 = V2Stub(*daemon);
  std::mt19937 random(5);
  std::uniform_real_distribution<float> value(-2, 2);
  std::map<std::string, std::vector<float>> sent;
  std::vector<ModelInferRequest> streamed;
  for (int i = 0; i < 40; ++i) {
    std::vector<float> x(kMlpIn);
    for (float& v : x) v = value(random);
    const bool raw = i % 2 == 0;
    const std::string id = absl::StrCat("u", i);
    ModelInferResponse response;
    grpc::Status status = ModelInfer(*v2, MlpRequest(x, raw, id), &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.id(), id);
    ExpectNear(MlpOutput(response), MlpReference(mlp, x, 2), id);
    const std::string stream_id = absl::StrCat("s", i);
    sent[stream_id] = x;
    streamed.push_back(MlpRequest(x, raw, stream_id));
  }
  grpc::Status status;
  std::vector<ModelStreamInferResponse> answers = RunV2Stream(*v2, streamed, &status);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(answers.size(), streamed.size());
  for (const ModelStreamInferResponse& answer : answers) {
    EXPECT_EQ(answer.error_message(), "");
    const std::string& id = answer.infer_response().id();
    ASSERT_EQ(sent.count(id), 1u) << id;
    ExpectNear(MlpOutput(answer.infer_response()), MlpReference(mlp, sent[id], 2), id);
  }
}

TEST(V2InferE2ETest, TheClassifierMatchesAReferenceAndAnswersRawWhateverTheInputsForm) {
  START_DAEMON(daemon, SimDaemonArgs());
  const simmodel::SimModel model = ExampleClassifier();
  ASSERT_TRUE(Upload(*daemon->stub, Config("classifier"), EncodeNeff(model)).status.ok());
  auto v2 = V2Stub(*daemon);
  std::mt19937 random(3);
  std::uniform_int_distribution<int64_t> token(0, kClassifierVocab - 1);
  for (int i = 0; i < 20; ++i) {
    std::vector<int64_t> ids(kClassifierSequence), mask(kClassifierSequence);
    const uint32_t kept = 1 + i % kClassifierSequence;
    for (uint32_t s = 0; s < kClassifierSequence; ++s) {
      ids[s] = s < kept ? token(random) : 0;
      mask[s] = s < kept ? 1 : 0;
    }
    const std::vector<double> want = ClassifierReference(model, ids, mask);
    const bool raw = i % 2 == 0;
    ModelInferRequest request;
    request.set_model_name("classifier");
    for (const auto& [name, values] : {std::pair{simmodel::kClassifierIds, &ids},
                                       std::pair{simmodel::kClassifierMask, &mask}}) {
      if (raw) {
        AddRawInput(request, name, "INT64", {1, kClassifierSequence}, BytesOf(*values));
        continue;
      }
      auto* input = request.add_inputs();
      input->set_name(name);
      input->set_datatype("INT64");
      input->add_shape(1);
      input->add_shape(kClassifierSequence);
      input->mutable_contents()->mutable_int64_contents()->Add(values->begin(), values->end());
    }
    // Both outputs, raw.
    ModelInferResponse response;
    grpc::Status status = ModelInfer(*v2, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(response.outputs_size(), 2);
    EXPECT_EQ(response.outputs(0).datatype(), "FP32");
    EXPECT_EQ(response.outputs(1).datatype(), "FP16");
    ASSERT_EQ(response.raw_output_contents_size(), 2);
    EXPECT_FALSE(response.outputs(0).has_contents());
    const std::vector<float> logits = ValuesOf<float>(response.raw_output_contents(0));
    ExpectNear(logits, want, absl::StrCat("request ", i));
    EXPECT_EQ(response.raw_output_contents(1).size(), 2u * kClassifierClasses);

    // The float32 logits alone, which have a typed field: raw all the same, as tritonclient's
    // InferResult.as_numpy reads them.
    request.add_outputs()->set_name(simmodel::kClassifierLogits);
    status = ModelInfer(*v2, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(response.outputs_size(), 1);
    EXPECT_EQ(response.outputs(0).name(), simmodel::kClassifierLogits);
    EXPECT_FALSE(response.outputs(0).has_contents());
    ASSERT_EQ(response.raw_output_contents_size(), 1);
    ExpectNear(ValuesOf<float>(response.raw_output_contents(0)), want,
               raw ? "raw subset" : "typed-in subset");
  }
}

// ---- Every dtype ----

TEST(V2InferE2ETest, TheTimeoutParameterBoundsTheTimeInTheQueue) {
  START_DAEMON(daemon,
               SimDaemonArgs({"--http-listen=127.0.0.1:0"}, {{"NRTSIM_CORES", "1"}}));
  // 300 ms per execution on one core: the second request waits behind the first, in the queue.
  // Unpipelined: a pipelined replica would take it off the queue at once, to write its inputs
  // while the first executes, and the timeout bounds the time in the queue only.
  v1::ModelConfig config = Config("slow");
  config.set_pipeline_depth(1);
  ASSERT_TRUE(Upload(*daemon->stub, config, EncodeNeff(IdentityModel({4}, 300000))).status.ok());
  auto v2 = V2Stub(*daemon);
  auto request = [](int64_t timeout_us) {
    ModelInferRequest r;
    r.set_model_name("slow");
    AddRawInput(r, "input", "FP32", {4}, std::string(16, '\0'));
    if (timeout_us >= 0) (*r.mutable_parameters())["timeout"].set_int64_param(timeout_us);
    (*r.mutable_parameters())["unknown_parameter"].set_bool_param(true);  // ignored
    return r;
  };
  grpc::Status first;
  std::thread blocker([&] { first = ModelInfer(*v2, request(-1), nullptr); });
  // Wait until the first is in the daemon (queued or on the device).
  const bool in_flight = WaitUntilInFlight(*daemon->process, 1);
  if (!in_flight) blocker.join();
  ASSERT_TRUE(in_flight);
  const absl::Time sent = absl::Now();
  grpc::Status late = ModelInfer(*v2, request(1000), nullptr);
  EXPECT_EQ(late.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << late.error_message();
  // Answered without running: it never waited out an execution of its own.
  EXPECT_LT(absl::Now() - sent, absl::Seconds(5));
  blocker.join();
  EXPECT_TRUE(first.ok()) << first.error_message();
  // With a timeout of 0 (none) or a long one, it runs.
  EXPECT_TRUE(ModelInfer(*v2, request(0), nullptr).ok());
  EXPECT_TRUE(ModelInfer(*v2, request(10000000), nullptr).ok());
}

TEST(V2InferE2ETest, BothFrontEndsShareTheModelsCountsAndTheAccessLog) {
  TempDir dir;
  const std::string access_log = dir.Join("access.log");
  START_DAEMON(daemon,
               SimDaemonArgs({"--access-log=" + access_log, "--http-listen=127.0.0.1:0"}));
  LoadIdentity(*daemon->stub, DataType::kInt64, {2, 3});
  auto v2 = V2Stub(*daemon);
  ModelInferRequest good = IdentityRequest(DataType::kInt64, "INT64");
  for (int v = 0; v < 6; ++v) good.mutable_inputs(0)->mutable_contents()->add_int64_contents(v);
  good.set_id("v2-good");
  ModelInferRequest bad = IdentityRequest(DataType::kInt64, "FP64");
  bad.set_id("v2-bad");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(ModelInfer(*v2, good, nullptr).ok());
  EXPECT_EQ(ModelInfer(*v2, bad, nullptr).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::InferRequest native;
  native.set_model("id_int64");
  native.set_id("native-good");
  auto* input = native.add_inputs();
  input->set_name("input");
  for (int v = 0; v < 6; ++v) input->add_int64_data(v);
  ASSERT_TRUE(Infer(*daemon->stub, native, nullptr).ok());

  v1::ModelStatus model;
  ASSERT_TRUE(GetModel(*daemon->stub, "id_int64", &model).ok());
  EXPECT_EQ(model.requests().succeeded(), 4u);
  EXPECT_EQ(model.requests().failed(), 1u);
  // ModelStatistics counts the same requests, by outcome, whichever front end carried them.
  grpc::ClientContext context;
  inference::ModelStatisticsRequest stats_request;
  stats_request.set_name("id_int64");
  inference::ModelStatisticsResponse stats;
  ASSERT_TRUE(v2->ModelStatistics(&context, stats_request, &stats).ok());
  ASSERT_EQ(stats.model_stats_size(), 1);
  const inference::InferStatistics& infer = stats.model_stats(0).inference_stats();
  EXPECT_EQ(infer.success().count(), 4u);
  EXPECT_EQ(infer.fail().count(), 1u);
  EXPECT_EQ(infer.queue().count(), 4u);
  EXPECT_EQ(infer.compute_infer().count(), 4u);
  EXPECT_EQ(stats.model_stats(0).inference_count(), 4u);
  EXPECT_EQ(stats.model_stats(0).execution_count(), 4u);
  // Every call has its line, under the RPC that carried it. A line is written after its answer
  // is sent, by the log's own thread, so the lines of calls answered one after another may come
  // in another order: polled until all five are there (or the deadline).
  std::string log;
  std::map<std::string, int> by_method;
  WaitUntil([&] {
    std::ifstream file(access_log);
    std::stringstream text;
    text << file.rdbuf();
    log = text.str();
    by_method.clear();
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("id_int64") == std::string::npos) continue;
      for (const char* method : {"method=ModelInfer ", "method=Infer "}) {
        if (line.find(method) != std::string::npos) ++by_method[method];
      }
    }
    return by_method["method=ModelInfer "] >= 4 && by_method["method=Infer "] >= 1;
  }, absl::Seconds(10));
  EXPECT_EQ(by_method["method=ModelInfer "], 4) << log;
  EXPECT_EQ(by_method["method=Infer "], 1) << log;
  // The same counts in the metrics, by model and code, and by front end.
  const std::optional<std::string> http = WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+)");
  ASSERT_TRUE(http.has_value());
  const std::string metrics = HttpGet("http://" + *http + "/metrics").body;
  EXPECT_THAT(metrics, HasSubstr("neuronserve_requests_by_protocol_total{protocol=\"v2\"} 4\n"));
  EXPECT_THAT(metrics,
              HasSubstr("neuronserve_requests_by_protocol_total{protocol=\"native\"} 1\n"));
  EXPECT_THAT(metrics, HasSubstr("neuronserve_requests_total{model=\"id_int64\",version=\"\","
                                 "code=\"OK\"} 4\n"));
}

}  // namespace
}  // namespace v2_infer_e2e_test
}  // namespace neuronserve::testing
