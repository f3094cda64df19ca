// A batched model served by the real daemon on the simulator, through all three front ends
// (native gRPC, v2 gRPC, v2 REST): the MLP compiled for 1 and 4 rows, loaded from the model
// repository on two replicas with max_batch_size 10 (so a request of more than 4 rows is split,
// and its ranges may run on both cores at once), next to the
// same MLP unbatched as the reference. Requests of random row counts from the three protocols
// at once must each get, bit for bit, the answers the unbatched model gives for their rows one
// by one; the model's metadata shows its variable batch dimension on every API; and what the
// batch dimension refuses is refused with the model, the tensor and the numbers. Also: what
// `neuronctl bench` reports of the batches, a request with a short deadline not held for a
// batch (measured), and one overload answer for both schedulers.
#include <atomic>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/prometheus/prometheus_text_parser.h"
#include "tests/support/build_paths.h"
#include "tests/support/http_get.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing {
namespace batching_e2e_test {
namespace {

using Json = nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint32_t kIn = 8;
constexpr uint32_t kOut = 4;
constexpr uint32_t kMaxBatch = 10;

simmodel::SimModel BatchMlp(int64_t batch, uint64_t latency_us) {
  simmodel::MlpOptions options;
  options.layer_sizes = {kIn, 16, kOut};
  options.seed = 11;  // every variant and the reference: the same weights
  options.batch = batch;
  simmodel::SimModel model = MlpModel(options);
  model.latency_us = latency_us;
  return model;
}

// Writes the repository model `name`: the MLP compiled for 1 row (1 ms per execution) and for 4
// rows (1.5 ms), and a config.pbtxt naming both variants and then `more_config`.
void WriteBatchedMlp(const TempDir& repository, const std::string& name,
                     const std::string& more_config) {
  WriteFile(repository.Join(name + "/b1.neff"), EncodeNeff(BatchMlp(1, 1000)));
  WriteFile(repository.Join(name + "/b4.neff"), EncodeNeff(BatchMlp(4, 1500)));
  WriteFile(repository.Join(name + "/config.pbtxt"),
            "variant { file: \"b1.neff\" batch_size: 1 }\n"
            "variant { file: \"b4.neff\" batch_size: 4 }\n" +
                more_config);
}

std::string Floats(const std::vector<float>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

std::vector<float> FloatsOf(const std::string& bytes) {
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

// The daemon with the repository's "mlpb" (batched) and "ref" (the same MLP, one row per
// execution), its HTTP endpoint, and the reference answers per row.
class BatchingE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteBatchedMlp(repository_, "mlpb",
                    absl::StrCat("replicas: 2\nmax_batch_size: ", kMaxBatch, "\n"));
    WriteFile(repository_.Join("ref/model.neff"), EncodeNeff(BatchMlp(1, 0)));
    daemon_ = StartDaemon(
        SimDaemonArgs({"--model-repository=" + repository_.path(), "--load-models=mlpb,ref",
                       "--http-listen=127.0.0.1:0", "--access-log=" + access_log_},
                      {{"NRTSIM_CORES", "3"}}),
        &log_);
    ASSERT_NE(daemon_, nullptr) << log_;
    const std::optional<std::string> http =
        WaitForLog(*daemon_->process, "HTTP endpoint on ([^ ]+) \\(");
    ASSERT_TRUE(http.has_value()) << daemon_->process->Stderr();
    http_ = "http://" + *http;
    v2_ = inference::GRPCInferenceService::NewStub(daemon_->channel);
  }

  // The unbatched model's answer for each row of `x` (rows of kIn), one request per row.
  std::vector<float> Reference(const std::vector<float>& x) {
    std::vector<float> out;
    for (size_t row = 0; row * kIn < x.size(); ++row) {
      v1::InferRequest request;
      request.set_model("ref");
      AddInput(request, "input", {1, kIn},
               std::vector<float>(x.begin() + row * kIn, x.begin() + (row + 1) * kIn),
               TensorForm::kRaw);
      v1::InferResponse response;
      const grpc::Status status = Infer(*daemon_->stub, request, &response);
      EXPECT_TRUE(status.ok()) << status.error_message();
      if (!status.ok() || response.outputs_size() != 1) return {};
      for (float value : OutputValues(response.outputs(0))) out.push_back(value);
    }
    return out;
  }

  // One request of `rows` rows to "mlpb" through `front_end` (0 native, 1 v2 gRPC, 2 REST):
  // the output's shape and values, or the error.
  struct Result {
    std::string error;
    std::vector<int64_t> shape;
    std::vector<float> values;
  };
  Result Run(int front_end, uint32_t rows, const std::vector<float>& x) {
    Result result;
    if (front_end == 0) {
      v1::InferRequest request;
      request.set_model("mlpb");
      AddInput(request, "input", {rows, kIn}, x, TensorForm::kRaw);
      v1::InferResponse response;
      const grpc::Status status = Infer(*daemon_->stub, request, &response);
      if (!status.ok()) return {status.error_message(), {}, {}};
      result.shape.assign(response.outputs(0).shape().begin(), response.outputs(0).shape().end());
      result.values = OutputValues(response.outputs(0));
    } else if (front_end == 1) {
      inference::ModelInferRequest request;
      request.set_model_name("mlpb");
      auto* input = request.add_inputs();
      input->set_name("input");
      input->set_datatype("FP32");
      input->add_shape(rows);
      input->add_shape(kIn);
      request.add_raw_input_contents(Floats(x));
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
      inference::ModelInferResponse response;
      const grpc::Status status = v2_->ModelInfer(&context, request, &response);
      if (!status.ok()) return {status.error_message(), {}, {}};
      result.shape.assign(response.outputs(0).shape().begin(), response.outputs(0).shape().end());
      result.values = FloatsOf(response.raw_output_contents(0));
    } else {
      // Binary outputs: the device's bytes, so the comparison can be exact.
      const Json body = {
          {"inputs",
           {{{"name", "input"}, {"shape", {rows, kIn}}, {"datatype", "FP32"}, {"data", x}}}},
          {"parameters", {{"binary_data_output", true}}}};
      const std::string file = dir_.Write(absl::StrCat("body", next_body_.fetch_add(1)), body.dump());
      const HttpResult answer = HttpFetch({.url = http_ + "/v2/models/mlpb/infer",
                                           .method = "POST",
                                           .headers = {"Content-Type: application/json"},
                                           .body_file = file});
      if (answer.status != 200) return {answer.ErrorField(), {}, {}};
      const size_t json_length = std::stoul(answer.Header("Inference-Header-Content-Length"));
      const Json json = Json::parse(answer.body.substr(0, json_length));
      result.shape = json["outputs"][0]["shape"].get<std::vector<int64_t>>();
      result.values = FloatsOf(answer.body.substr(json_length));
    }
    return result;
  }

  TempDir repository_;
  TempDir dir_;
  const std::string access_log_ = dir_.Join("access.log");
  // Atomic: Run is called from many client threads at once, and two bodies must never share a
  // file (one request would send the other's inputs).
  std::atomic<int> next_body_{0};
  std::string log_;
  std::unique_ptr<RunningDaemon> daemon_;
  std::unique_ptr<inference::GRPCInferenceService::Stub> v2_;
  std::string http_;
};

TEST_F(BatchingE2ETest, EveryFrontEndGetsEachRowsUnbatchedAnswerBitForBit) {
  // 30 requests of 1..10 rows (more than the largest variant's 4 are split), a third through
  // each front end, all in flight at once so that the batcher gathers them.
  constexpr int kRequests = 30;
  std::mt19937 random(20261205);
  std::uniform_int_distribution<uint32_t> row_count(1, kMaxBatch);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<uint32_t> rows(kRequests);
  std::vector<std::vector<float>> inputs(kRequests);
  for (int i = 0; i < kRequests; ++i) {
    rows[i] = row_count(random);
    for (uint32_t k = 0; k < rows[i] * kIn; ++k) inputs[i].push_back(value(random));
  }
  std::vector<Result> results(kRequests);
  {
    std::vector<std::thread> clients;
    for (int i = 0; i < kRequests; ++i) {
      clients.emplace_back([&, i] { results[i] = Run(i % 3, rows[i], inputs[i]); });
    }
    for (std::thread& client : clients) client.join();
  }
  for (int i = 0; i < kRequests; ++i) {
    SCOPED_TRACE(absl::StrCat("request ", i, " (front end ", i % 3, ", ", rows[i], " rows)"));
    ASSERT_EQ(results[i].error, "");
    EXPECT_THAT(results[i].shape, ElementsAre(rows[i], kOut));
    const std::vector<float> expected = Reference(inputs[i]);
    ASSERT_EQ(results[i].values.size(), expected.size());
    EXPECT_EQ(
        std::memcmp(results[i].values.data(), expected.data(), expected.size() * sizeof(float)), 0);
  }
}

// What the batcher did adds up across everything that reports it: each response and access
// log line names a batch it could have run in; the v2 batch_stats count every row executed
// exactly once; the per-variant metrics agree with them, padding included.
TEST_F(BatchingE2ETest, WhatTheBatcherDidIsReportedConsistentlyEverywhere) {
  constexpr int kRequests = 24;
  std::mt19937 random(5);
  std::uniform_int_distribution<uint32_t> row_count(1, kMaxBatch);
  std::vector<uint32_t> rows(kRequests);
  uint64_t total_rows = 0;
  for (uint32_t& r : rows) total_rows += r = row_count(random);
  std::vector<v1::InferResponse> responses(kRequests);
  {
    std::vector<std::thread> clients;
    for (int i = 0; i < kRequests; ++i) {
      clients.emplace_back([&, i] {
        v1::InferRequest request;
        request.set_model("mlpb");
        request.set_id(absl::StrCat("r", i));
        AddInput(request, "input", {rows[i], kIn}, std::vector<float>(rows[i] * kIn, 0.5f),
                 TensorForm::kRaw);
        EXPECT_TRUE(Infer(*daemon_->stub, request, &responses[i]).ok());
      });
    }
    for (std::thread& client : clients) client.join();
  }
  for (const v1::InferResponse& response : responses) {
    EXPECT_THAT(response.batch_size(), ::testing::AnyOf(1u, 4u)) << response.id();
    EXPECT_GE(response.batch_rows(), 1u) << response.id();
    EXPECT_LE(response.batch_rows(), response.batch_size()) << response.id();
  }

  // v2 batch_stats: per executed batch size; every row ran exactly once.
  inference::ModelStatisticsRequest request;
  request.set_name("mlpb");
  inference::ModelStatisticsResponse statistics;
  grpc::ClientContext context;
  ASSERT_TRUE(v2_->ModelStatistics(&context, request, &statistics).ok());
  ASSERT_EQ(statistics.model_stats_size(), 1);
  uint64_t executed_rows = 0;
  uint64_t executions = 0;
  for (const inference::InferBatchStatistics& batch : statistics.model_stats(0).batch_stats()) {
    EXPECT_GE(batch.batch_size(), 1u);
    EXPECT_LE(batch.batch_size(), 4u);
    EXPECT_GT(batch.compute_infer().ns(), 0u);
    // The three parts of the device time, one count (the batch's executions).
    EXPECT_EQ(batch.compute_input().count(), batch.compute_infer().count());
    EXPECT_EQ(batch.compute_output().count(), batch.compute_infer().count());
    executed_rows += batch.batch_size() * batch.compute_infer().count();
    executions += batch.compute_infer().count();
  }
  EXPECT_EQ(executed_rows, total_rows);

  // Prometheus: executions and rows per variant add up to the same, and padding is what the
  // variants' sizes left over. (The warm-up executions at load are not counted.)
  const HttpResult scrape = HttpGet(http_ + "/metrics");
  ASSERT_EQ(scrape.status, 200);
  const absl::StatusOr<std::vector<PromFamily>> families = ParsePrometheusText(scrape.body + "\n");
  ASSERT_TRUE(families.ok()) << families.status();
  double metric_executions = 0;
  double metric_rows = 0;
  double capacity = 0;
  double padded = 0;
  for (const char* variant : {"1", "4"}) {
    const std::map<std::string, std::string> labels = {
        {"model", "mlpb"}, {"version", ""}, {"variant", variant}};
    const absl::StatusOr<double> runs =
        FindSample(*families, "neuronserve_batch_executions_total", labels);
    ASSERT_TRUE(runs.ok()) << variant << ": " << runs.status();
    metric_executions += *runs;
    capacity += *runs * std::stod(variant);
    const absl::StatusOr<double> row_sum =
        FindSample(*families, "neuronserve_batch_rows_sum", labels);
    ASSERT_TRUE(row_sum.ok()) << row_sum.status();
    metric_rows += *row_sum;
    const absl::StatusOr<double> pads =
        FindSample(*families, "neuronserve_batch_padded_rows_total", labels);
    ASSERT_TRUE(pads.ok()) << pads.status();
    padded += *pads;
  }
  EXPECT_EQ(metric_executions, static_cast<double>(executions));
  EXPECT_EQ(metric_rows, static_cast<double>(total_rows));
  EXPECT_EQ(padded, capacity - static_cast<double>(total_rows));

  // The access log: every request's line names its batch (written by a background thread).
  std::string log;
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  int lines = 0;
  while (absl::Now() < deadline) {
    log = ReadFileContents(access_log_);
    lines = 0;
    for (size_t at = log.find("batch_rows"); at != std::string::npos;
         at = log.find("batch_rows", at + 1)) {
      ++lines;
    }
    if (lines >= kRequests) break;
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_GE(lines, kRequests) << log;
}

TEST_F(BatchingE2ETest, EveryApiShowsTheVariableBatchDimensionAndTheVariants) {
  v1::ModelStatus model;
  ASSERT_TRUE(GetModel(*daemon_->stub, "mlpb", &model).ok());
  EXPECT_EQ(model.max_batch_size(), kMaxBatch);
  EXPECT_THAT(model.batch_variants(), ElementsAre(1u, 4u));
  ASSERT_EQ(model.inputs_size(), 1);
  // One row: shape[0] stands for the request's rows.
  EXPECT_THAT(model.inputs(0).shape(), ElementsAre(1u, kIn));
  EXPECT_EQ(model.inputs(0).byte_size(), kIn * sizeof(float));
  v1::ModelStatus unbatched;
  ASSERT_TRUE(GetModel(*daemon_->stub, "ref", &unbatched).ok());
  EXPECT_EQ(unbatched.max_batch_size(), 0u);
  EXPECT_TRUE(unbatched.batch_variants().empty());

  inference::ModelMetadataRequest request;
  request.set_name("mlpb");
  inference::ModelMetadataResponse metadata;
  grpc::ClientContext context;
  ASSERT_TRUE(v2_->ModelMetadata(&context, request, &metadata).ok());
  ASSERT_EQ(metadata.inputs_size(), 1);
  EXPECT_THAT(metadata.inputs(0).shape(), ElementsAre(-1, kIn));
  EXPECT_THAT(metadata.outputs(0).shape(), ElementsAre(-1, kOut));

  const HttpResult rest = HttpGet(http_ + "/v2/models/mlpb");
  ASSERT_EQ(rest.status, 200) << rest.body;
  EXPECT_EQ(Json::parse(rest.body)["inputs"][0]["shape"], Json::array({-1, kIn}));
  const HttpResult models = HttpGet(http_ + "/v1/models");
  ASSERT_EQ(models.status, 200) << models.body;
  const Json listing = Json::parse(models.body);  // kept: the loop reads into it
  bool listed_mlpb = false;
  for (const Json& listed : listing.at("models")) {
    if (listed["name"] != "mlpb") continue;
    listed_mlpb = true;
    EXPECT_EQ(listed["max_batch_size"], kMaxBatch);
    EXPECT_EQ(listed["batch_variants"], Json::array({1, 4}));
  }
  EXPECT_TRUE(listed_mlpb) << models.body;
}

TEST_F(BatchingE2ETest, RowsOutsideTheBatchDimensionAreRefusedNamingTheNumbers) {
  for (int front_end = 0; front_end < 3; ++front_end) {
    SCOPED_TRACE(absl::StrCat("front end ", front_end));
    const Result too_many =
        Run(front_end, kMaxBatch + 1, std::vector<float>((kMaxBatch + 1) * kIn, 0.5f));
    EXPECT_THAT(too_many.error,
                HasSubstr("model 'mlpb' input 'input': 11 rows, but the model takes 1 to 10 rows "
                          "per request (max_batch_size 10)"));
    // The daemon goes on serving the batched model.
    const Result fine = Run(front_end, 2, std::vector<float>(2 * kIn, 0.5f));
    EXPECT_EQ(fine.error, "");
    EXPECT_THAT(fine.shape, ElementsAre(2, kOut));
  }
  // Past the batch dimension the shape is exact.
  v1::InferRequest request;
  request.set_model("mlpb");
  AddInput(request, "input", {2, kIn + 1}, std::vector<float>(2 * (kIn + 1), 0.f),
           TensorForm::kRaw);
  v1::InferResponse response;
  const grpc::Status status = Infer(*daemon_->stub, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("model 'mlpb' input 'input': expected shape [2,8], got [2,9]"));
  // Without a shape the rows are what the values make, when they make whole rows.
  v1::InferRequest no_shape;
  no_shape.set_model("mlpb");
  AddInput(no_shape, "input", {}, std::vector<float>(3 * kIn, 0.25f), TensorForm::kFloat);
  ASSERT_TRUE(Infer(*daemon_->stub, no_shape, &response).ok());
  EXPECT_THAT(response.outputs(0).shape(), ElementsAre(3u, kOut));
  v1::InferRequest ragged;
  ragged.set_model("mlpb");
  AddInput(ragged, "input", {}, std::vector<float>(kIn + 3, 0.25f), TensorForm::kFloat);
  const grpc::Status refused = Infer(*daemon_->stub, ragged, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("model 'mlpb' input 'input': 11 values of float_data are not a whole "
                        "number of rows of 8 (shape [1,8] per row); give the input's shape"));
}

// `neuronctl bench` (the real binary) prints the mean rows of the executions its requests ran
// in: exactly 1 with one request in flight, more once requests wait together for the core; and
// nothing (null, "-") over the v2 protocol, whose answers do not say.
TEST_F(BatchingE2ETest, NeuronctlBenchPrintsTheMeanBatchItsRequestsRanIn) {
  const auto bench = [&](std::vector<std::string> flags) {
    std::vector<std::string> argv = {NEURONCTL_PATH, "bench", "mlpb",
                                     "--server=" + daemon_->address, "--warmup=0"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    return RunProcess(argv);
  };
  const ProcessResult json =
      bench({"--concurrency-range=1:8:7", "--requests=200", "--format=json"});
  ASSERT_EQ(json.exit_code, 0) << json.out << json.err;
  const Json report = Json::parse(json.out);
  ASSERT_EQ(report["levels"].size(), 2u) << json.out;
  const Json& alone = report["levels"][0];
  const Json& crowded = report["levels"][1];
  EXPECT_EQ(alone["concurrency"], 1);
  EXPECT_DOUBLE_EQ(alone["mean_batch_rows"].get<double>(), 1.0);
  EXPECT_EQ(crowded["concurrency"], 8);
  // 8 single-row requests in flight on one core that takes 1-1.5 ms per execution: they queue
  // behind each other and share executions of the 4-row variant.
  EXPECT_GT(crowded["mean_batch_rows"].get<double>(), 1.0) << json.out;
  EXPECT_LE(crowded["mean_batch_rows"].get<double>(), 4.0) << json.out;
  std::cout << "mean batch rows at 8 in flight: " << crowded["mean_batch_rows"] << "\n";

  const ProcessResult table = bench({"--requests=20"});
  ASSERT_EQ(table.exit_code, 0) << table.out << table.err;
  const std::vector<std::string> lines = absl::StrSplit(table.out, '\n', absl::SkipEmpty());
  ASSERT_GE(lines.size(), 2u) << table.out;
  EXPECT_THAT(lines[0], HasSubstr("device ms  batch  errors"));
  EXPECT_THAT(lines[1], ::testing::EndsWith(" 1.00  -"));

  const ProcessResult v2 = bench({"--requests=20", "--format=json", "--protocol=v2"});
  ASSERT_EQ(v2.exit_code, 0) << v2.out << v2.err;
  EXPECT_TRUE(Json::parse(v2.out)["levels"][0]["mean_batch_rows"].is_null()) << v2.out;
}

// A request whose deadline comes before the batcher's max_queue_delay would end is not held
// for company: measured with a 400 ms delay, a lone request without a deadline waits the whole
// delay for a preferred batch of 4, and a lone request with a 150 ms deadline runs at once, on
// the native and the v2 gRPC front end alike.
TEST(BatchingDelayE2ETest, ARequestWhoseDeadlineIsShorterThanTheDelayIsNotDelayed) {
  constexpr int64_t kDelayUs = 400'000;
  TempDir repository;
  WriteBatchedMlp(repository, "held",
                  absl::StrCat("dynamic_batching { preferred_batch_size: 4 "
                               "max_queue_delay_microseconds: ",
                               kDelayUs, " }\n"));
  std::string log;
  std::unique_ptr<RunningDaemon> daemon = StartDaemon(
      SimDaemonArgs({"--model-repository=" + repository.path(), "--load-models=held"}), &log);
  ASSERT_NE(daemon, nullptr) << log;

  const auto native = [&](absl::Duration deadline, absl::Duration* took) {
    v1::InferRequest request;
    request.set_model("held");
    AddInput(request, "input", {1, kIn}, std::vector<float>(kIn, 0.5f), TensorForm::kRaw);
    v1::InferResponse response;
    const absl::Time start = absl::Now();
    const grpc::Status status = Infer(*daemon->stub, request, &response, deadline);
    *took = absl::Now() - start;
    EXPECT_TRUE(status.ok()) << status.error_message();
    return absl::Microseconds(response.queue_us());
  };
  absl::Duration took;
  const absl::Duration patient_queue = native(absl::Seconds(60), &took);
  EXPECT_GE(patient_queue, absl::Microseconds(kDelayUs)) << "the delay was not applied";
  const absl::Duration urgent_queue = native(absl::Milliseconds(150), &took);
  EXPECT_LT(took, absl::Milliseconds(150));
  EXPECT_LT(urgent_queue, absl::Milliseconds(150));
  std::cout << "native: queued " << patient_queue << " without a deadline, " << urgent_queue
            << " with a 150 ms deadline (answered in " << took << ")\n";

  std::unique_ptr<inference::GRPCInferenceService::Stub> v2 =
      inference::GRPCInferenceService::NewStub(daemon->channel);
  inference::ModelInferRequest request;
  request.set_model_name("held");
  auto* input = request.add_inputs();
  input->set_name("input");
  input->set_datatype("FP32");
  input->add_shape(1);
  input->add_shape(kIn);
  request.add_raw_input_contents(Floats(std::vector<float>(kIn, 0.5f)));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(150));
  inference::ModelInferResponse response;
  const absl::Time start = absl::Now();
  const grpc::Status status = v2->ModelInfer(&context, request, &response);
  const absl::Duration v2_took = absl::Now() - start;
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_LT(v2_took, absl::Milliseconds(150));
  std::cout << "v2 gRPC: a 150 ms deadline answered in " << v2_took << "\n";
}

// Overload is one answer for both schedulers: UNAVAILABLE naming the model and its queue bound
// (HTTP 503 with Retry-After), whether the model is batched or not.
TEST(BatchingOverloadE2ETest, AFullQueueIsUnavailableForTheBatcherAndTheFifoAlike) {
  TempDir repository;
  // 300 ms executions and room for 1 waiting request: a burst overfills both queues.
  WriteFile(repository.Join("batched/b1.neff"), EncodeNeff(BatchMlp(1, 300'000)));
  WriteFile(repository.Join("batched/b2.neff"), EncodeNeff(BatchMlp(2, 300'000)));
  WriteFile(repository.Join("batched/config.pbtxt"),
            "variant { file: \"b1.neff\" batch_size: 1 }\n"
            "variant { file: \"b2.neff\" batch_size: 2 }\n"
            "dynamic_batching { default_queue_policy { max_queue_size: 1 } }\n");
  WriteFile(repository.Join("fifo/model.neff"), EncodeNeff(BatchMlp(1, 300'000)));
  WriteFile(repository.Join("fifo/config.pbtxt"), "max_queue: 1\n");
  std::string log;
  std::unique_ptr<RunningDaemon> daemon =
      StartDaemon(SimDaemonArgs({"--model-repository=" + repository.path(),
                                 "--load-models=batched,fifo", "--http-listen=127.0.0.1:0"}),
                  &log);
  ASSERT_NE(daemon, nullptr) << log;
  const std::optional<std::string> http =
      WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+) \\(");
  ASSERT_TRUE(http.has_value()) << daemon->process->Stderr();
  TempDir bodies;
  const std::string body = bodies.Write("body", Json{{"inputs",
                                                      {{{"name", "input"},
                                                        {"shape", {1, kIn}},
                                                        {"datatype", "FP32"},
                                                        {"data", std::vector<float>(kIn, 0.5f)}}}}}
                                                    .dump());
  for (const std::string model : {"batched", "fifo"}) {
    SCOPED_TRACE(model);
    // gRPC: one stream of 8 requests, all sent at once.
    std::vector<v1::InferRequest> requests(8);
    for (v1::InferRequest& request : requests) {
      request.set_model(model);
      AddInput(request, "input", {1, kIn}, std::vector<float>(kIn, 0.5f), TensorForm::kRaw);
    }
    grpc::Status stream_status;
    const std::vector<v1::InferResponse> answers =
        RunStream(*daemon->stub, requests, &stream_status);
    ASSERT_TRUE(stream_status.ok()) << stream_status.error_message();
    int refused = 0;
    for (const v1::InferResponse& answer : answers) {
      if (answer.error().code() == 0) continue;
      ++refused;
      EXPECT_EQ(answer.error().code(), static_cast<int>(grpc::StatusCode::UNAVAILABLE));
      EXPECT_THAT(answer.error().message(),
                  HasSubstr("model '" + model + "': request queue is full (1 waiting"));
    }
    EXPECT_GT(refused, 0);
    // REST: 8 requests at once; the refused ones are 503 with Retry-After.
    std::vector<HttpResult> results(8);
    std::vector<std::thread> clients;
    for (HttpResult& result : results) {
      clients.emplace_back([&] {
        result = HttpFetch({.url = "http://" + *http + "/v2/models/" + model + "/infer",
                            .method = "POST",
                            .headers = {"Content-Type: application/json"},
                            .body_file = body});
      });
    }
    for (std::thread& client : clients) client.join();
    int unavailable = 0;
    for (const HttpResult& result : results) {
      if (result.status == 200) continue;
      ++unavailable;
      EXPECT_EQ(result.status, 503) << result.body;
      EXPECT_EQ(result.Header("Retry-After"), "1");
      EXPECT_THAT(result.ErrorField(), HasSubstr("request queue is full"));
    }
    EXPECT_GT(unavailable, 0);
  }
}

}  // namespace
}  // namespace batching_e2e_test
}  // namespace neuronserve::testing
