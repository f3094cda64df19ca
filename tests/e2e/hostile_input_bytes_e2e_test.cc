// Hostile bytes through the real daemon (issue 20): 200,000 nested unknown groups in a protobuf
// message, crafted sim model files (a 10^10-element constant, an overflowing shape, truncated and
// random bytes, a lying length, thousands of tensors) uploaded or in the repository, and garbage
// LoadModel streams. Each is refused naming what is wrong, and the daemon serves on.
#include <cstdint>
#include <random>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/hostile_input_fixture.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/health_check.h"
#include "tests/support/http_get.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/temp_dir.h"
#include "util/sha256.h"

namespace neuronserve::testing {
namespace hostile_input_e2e_test {
namespace {

// Inputs (and as many outputs) of the crafted model with thousands of tensors.
constexpr int kThousandsOfTensors = 5000;

// Appends a protobuf varint.
void AppendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// 3. Deep nesting in protobuf: a valid native InferRequest followed by an unknown field 1000
// holding 200,000 nested groups. Protobuf stops at its recursion limit (100), so the message
// does not parse.
//
// gRPC 1.51's callback API would answer it UNIMPLEMENTED with an empty message before any
// handler runs; the services' raw methods (server/grpc/raw_message.h) parse it themselves and
// answer INVALID_ARGUMENT naming the RPC. (The 200,000-deep REST JSON body is in
// v2_rest_e2e_test.cc, MalformedRequests...)
TEST_F(HostileInputE2ETest, TwoHundredThousandNestedGroupsInANativeInferRequest) {
  v1::InferRequest valid;
  valid.set_model("mlp");
  AddInput(valid, "input", {1, kHostileMlpIn}, MlpRow(), TensorForm::kFloat);
  std::string bytes = valid.SerializeAsString();
  constexpr int kDepth = 200'000;
  constexpr uint64_t kField = 1000;
  std::string start, end;
  AppendVarint(start, (kField << 3) | 3);  // wire type 3: start group
  AppendVarint(end, (kField << 3) | 4);    // wire type 4: end group
  bytes.reserve(bytes.size() + kDepth * (start.size() + end.size()));
  for (int i = 0; i < kDepth; ++i) bytes += start;
  for (int i = 0; i < kDepth; ++i) bytes += end;

  grpc::GenericStub stub(daemon_->channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::Status status;
  grpc::CompletionQueue cq;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> call =
      stub.PrepareUnaryCall(&context, "/neuronserve.v1.NeuronServing/Infer", request, &cq);
  ASSERT_NE(call, nullptr);
  call->StartCall();
  int tag = 1;
  call->Finish(&response, &status, &tag);
  void* got_tag = nullptr;
  bool ok = false;
  ASSERT_TRUE(cq.Next(&got_tag, &ok));
  EXPECT_EQ(got_tag, &tag);
  cq.Shutdown();
  while (cq.Next(&got_tag, &ok)) {
  }
  ExpectRefused(status, grpc::StatusCode::INVALID_ARGUMENT, {"Infer"}, "200,000 nested groups");
  ExpectStillServing();
}

// A float32 identity [1,4] model of JSON written here, with `extra` members added at the top.
std::string IdentityJson(const std::string& extra) {
  return absl::StrCat(R"({"inputs":[{"name":"x","dtype":"float32","shape":[1,4]}],)",
                      R"("outputs":[{"name":"y","dtype":"float32","shape":[1,4]}],)",
                      R"("ops":[{"op":"identity","inputs":["x"],"output":"y"}])", extra, "}");
}

struct CraftedFile {
  std::string name;  // the model's name, a repository folder too
  std::string bytes;
  // The simulator's reason, a std::regex of the line it logs (as the real runtime, its nrt_load
  // returns only NRT_INVALID and says why in its log); empty for a file that is valid.
  std::string reason;
};

std::vector<CraftedFile> CraftedFiles() {
  std::string random_bytes(64 * 1024, '\0');
  std::mt19937_64 generator(20);
  for (char& c : random_bytes) c = static_cast<char>(generator());
  const std::string mlp = EncodeNeff(SmallMlp(20));
  std::string tensors = R"({"inputs":[)";
  std::string outputs, ops;
  for (int i = 0; i < kThousandsOfTensors; ++i) {
    absl::StrAppend(&tensors, i == 0 ? "" : ",", R"({"name":"x)", i,
                    R"(","dtype":"float32","shape":[1,1]})");
    absl::StrAppend(&outputs, i == 0 ? "" : ",", R"({"name":"y)", i,
                    R"(","dtype":"float32","shape":[1,1]})");
    absl::StrAppend(&ops, i == 0 ? "" : ",", R"({"op":"identity","inputs":["x)", i,
                    R"("],"output":"y)", i, R"("})");
  }
  tensors += absl::StrCat(R"(],"outputs":[)", outputs, R"(],"ops":[)", ops, "]}");
  return {
      // 10^10 float32 elements: 40 GB, which the simulator refuses before allocating anything.
      {"huge_constant",
       SimNeffFromJson(
           IdentityJson(R"(,"constants":{"w":{"shape":[100000,100000],"data":[1.0]}})")),
       R"(constant 'w': 'w' of shape \[100000,100000\] is larger than 4294967296 bytes)"},
      {"overflowing_shape",
       SimNeffFromJson(
           R"({"inputs":[{"name":"x","dtype":"float32","shape":[4294967295,4294967295,4294967295]}],)"
           R"("outputs":[{"name":"y","dtype":"float32","shape":[1,4]}],)"
           R"("ops":[{"op":"identity","inputs":["x"],"output":"y"}]})"),
       R"(inputs\[0\]: 'x' of shape \[4294967295,4294967295,4294967295\] is larger than 4294967296 bytes)"},
      {"truncated", mlp.substr(0, mlp.size() / 2), "not valid JSON: "},
      {"random_bytes", random_bytes, R"(not a sim NEFF \(the file does not start with)"},
      // The format has no length field; the lying length is a constant whose data is shorter
      // than its shape says.
      {"lying_length",
       SimNeffFromJson(IdentityJson(R"(,"constants":{"w":{"shape":[1000000],"data":[1,2,3,4]}})")),
       R"(constant 'w': data has 4 values but shape \[1000000\])"},
      // Valid, only large: the runtime has no limit on the count of tensors, so neither has
      // the simulator; it loads and is described.
      {"thousands_of_tensors", SimNeffFromJson(tensors), ""},
  };
}

// The load of `file` was answered: refused naming the model, the runtime's status and (in the
// daemon's log, from the simulator) the reason, and kept only as FAILED without a replica until
// unloaded; or, for the valid file, READY with every tensor. Either way it is unloaded after.
void ExpectLoadAnswered(const RunningDaemon& daemon, const CraftedFile& file,
                        const grpc::Status& status) {
  v1::ModelStatus model;
  grpc::Status got = GetModel(*daemon.stub, file.name, &model);
  ASSERT_TRUE(got.ok()) << file.name << ": " << got.error_message();
  if (file.reason.empty()) {
    EXPECT_TRUE(status.ok()) << file.name << ": " << status.error_message();
    EXPECT_EQ(model.state(), v1::MODEL_STATE_READY) << file.name;
    EXPECT_EQ(model.inputs_size(), kThousandsOfTensors) << file.name;
    EXPECT_EQ(model.outputs_size(), kThousandsOfTensors) << file.name;
  } else {
    ExpectRefused(status, grpc::StatusCode::INVALID_ARGUMENT,
                  {"model '" + file.name + "'", "nrt_load: NRT_INVALID"}, file.name);
    EXPECT_TRUE(WaitForLog(*daemon.process, "nrtsim: nrt_load: " + file.reason).has_value())
        << file.name << ":\n"
        << daemon.process->Stderr();
    EXPECT_EQ(model.state(), v1::MODEL_STATE_FAILED) << file.name;
    EXPECT_EQ(model.replicas_size(), 0) << file.name;
    EXPECT_THAT(model.error(), HasSubstr("NRT_INVALID")) << file.name;
  }
  grpc::Status unloaded = UnloadModel(*daemon.stub, file.name);
  EXPECT_TRUE(unloaded.ok()) << file.name << ": " << unloaded.error_message();
}

// 4. Crafted model files uploaded through LoadModel. Afterwards only the MLP is known and holds
// device memory, and the daemon's memory stayed small (nothing of 10^10 elements was allocated).
TEST_F(HostileInputE2ETest, CraftedModelFilesUploadedAreRefused) {
  for (const CraftedFile& file : CraftedFiles()) {
    LoadResult result = Upload(*daemon_->stub, Config(file.name), file.bytes);
    ExpectLoadAnswered(*daemon_, file, result.status);
  }
  v1::ListModelsResponse list = ListModels(*daemon_->stub);
  ASSERT_EQ(list.models_size(), 1);
  EXPECT_EQ(list.models(0).name(), "mlp");
  EXPECT_LT(ProcessStatusBytes(daemon_->process->pid(), "VmRSS"), uint64_t{1} << 30);
  ExpectStillServing();
}

// 4. The same files as folders of a --model-repository, loaded through LoadModel's
// repository_path: no state record is written for any of them.
TEST(HostileInputRepositoryE2ETest, CraftedModelFilesInTheRepositoryAreRefused) {
  TempDir repository;
  const std::vector<CraftedFile> files = CraftedFiles();
  for (const CraftedFile& file : files) {
    WriteFile(repository.Join(file.name + "/model.neff"), file.bytes);
  }
  TempDir state;
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repository.path(),
                                      "--state-dir=" + state.Join("state")}));
  for (const CraftedFile& file : files) {
    LoadResult result = LoadFromRepository(*daemon->stub, file.name);
    ExpectLoadAnswered(*daemon, file, result.status);
  }
  EXPECT_EQ(ListModels(*daemon->stub).models_size(), 0);
  EXPECT_THAT(FilesUnder(state.Join("state/models")), IsEmpty());
  const v1::EnumerateResponse cores = EnumerateCores(*daemon->stub);
  ASSERT_GT(cores.cores_size(), 0);
  for (const v1::NeuronCore& core : cores.cores()) {
    EXPECT_EQ(core.memory_used_bytes(), 0u);
  }
  EXPECT_LT(ProcessStatusBytes(daemon->process->pid(), "VmRSS"), uint64_t{1} << 30);
  EXPECT_EQ(HealthCheck(daemon->channel, ""), kHealthServing);
}

v1::LoadModelRequest Header(const std::string& name, uint64_t total_size,
                            const std::string& sha256) {
  v1::LoadModelRequest request;
  *request.mutable_header()->mutable_config() = Config(name);
  request.mutable_header()->set_total_size(total_size);
  request.mutable_header()->set_sha256(sha256);
  return request;
}

v1::LoadModelRequest Chunk(std::string bytes) {
  v1::LoadModelRequest request;
  request.set_chunk(std::move(bytes));
  return request;
}

// 5. Garbage in the LoadModel stream that model_lifecycle_e2e_test.cc does not send: a second
// header, a chunk of 0 bytes, total_size 0, a 64-character digest that is not hex, and random
// bytes of the right size and digest (which the runtime refuses).
TEST_F(HostileInputE2ETest, GarbageLoadModelStreams) {
  const std::string neff = EncodeNeff(IdentityModel({1, 4}));
  const std::string sha = Sha256Hex(neff);

  LoadResult second_header =
      SendLoadStream(*daemon_->stub, {Header("twice", neff.size(), sha), Chunk(neff.substr(0, 10)),
                                      Header("twice", neff.size(), sha), Chunk(neff.substr(10))});
  ExpectRefused(second_header.status, grpc::StatusCode::INVALID_ARGUMENT, {"'twice'", "header"},
                "a second header");

  LoadResult zero_total = SendLoadStream(*daemon_->stub, {Header("zero", 0, Sha256Hex(""))});
  ExpectRefused(zero_total.status, grpc::StatusCode::INVALID_ARGUMENT, {"'zero'", "total_size"},
                "total_size 0");

  LoadResult not_hex =
      Upload(*daemon_->stub, Config("nothex"), neff, {.sha256 = std::string(64, 'z')});
  ExpectRefused(not_hex.status, grpc::StatusCode::INVALID_ARGUMENT, {"'nothex'", "64 hex digits"},
                "a digest that is not hex");

  std::string random_bytes(4096, '\0');
  std::mt19937_64 generator(5);
  for (char& c : random_bytes) c = static_cast<char>(generator());
  LoadResult random = Upload(*daemon_->stub, Config("random"), random_bytes);
  ExpectRefused(random.status, grpc::StatusCode::INVALID_ARGUMENT, {"'random'", "NRT_INVALID"},
                "random bytes with the right size and digest");
  EXPECT_TRUE(UnloadModel(*daemon_->stub, "random").ok());

  // A chunk of 0 bytes between real ones carries nothing: the upload is whole and loads.
  LoadResult empty_chunk = SendLoadStream(
      *daemon_->stub, {Header("empty_chunk", neff.size(), sha), Chunk(neff.substr(0, 10)),
                       Chunk(""), Chunk(neff.substr(10))});
  EXPECT_TRUE(empty_chunk.status.ok()) << empty_chunk.status.error_message();

  for (const std::string name : {"twice", "zero", "nothex"}) {
    EXPECT_EQ(GetModel(*daemon_->stub, name, nullptr).error_code(), grpc::StatusCode::NOT_FOUND)
        << name;
  }
  ExpectStillServing();
}

}  // namespace
}  // namespace hostile_input_e2e_test
}  // namespace neuronserve::testing
