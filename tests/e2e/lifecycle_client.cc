#include "tests/e2e/lifecycle_client.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "tests/support/build_paths.h"
#include "tests/support/sim_model_files.h"
#include "util/sha256.h"

namespace neuronserve::testing {
namespace fs = std::filesystem;

namespace {

void SetDeadline(grpc::ClientContext& context) {
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(kRpcDeadlineSeconds));
}

}  // namespace

LoadResult SendLoadStream(v1::NeuronServing::Stub& stub,
                          const std::vector<v1::LoadModelRequest>& requests) {
  LoadResult result;
  grpc::ClientContext context;
  SetDeadline(context);
  std::unique_ptr<grpc::ClientWriter<v1::LoadModelRequest>> writer =
      stub.LoadModel(&context, &result.response);
  for (const v1::LoadModelRequest& request : requests) {
    // A false Write means the server has already finished the call: Finish says why.
    if (!writer->Write(request)) break;
  }
  writer->WritesDone();
  result.status = writer->Finish();
  return result;
}

LoadResult Upload(v1::NeuronServing::Stub& stub, const v1::ModelConfig& config,
                  const std::string& bytes, const UploadOptions& options) {
  std::vector<v1::LoadModelRequest> requests;
  if (options.send_header) {
    v1::LoadModelHeader& header = *requests.emplace_back().mutable_header();
    *header.mutable_config() = config;
    header.set_total_size(options.total_size.value_or(bytes.size()));
    header.set_sha256(options.sha256.has_value() ? *options.sha256 : Sha256Hex(bytes));
  }
  for (size_t offset = 0; offset < bytes.size(); offset += options.chunk_size) {
    requests.emplace_back().set_chunk(bytes.substr(offset, options.chunk_size));
  }
  return SendLoadStream(stub, requests);
}

LoadResult LoadFromRepository(v1::NeuronServing::Stub& stub, const std::string& repository_path,
                              const v1::ModelConfig& config) {
  v1::LoadModelRequest request;
  *request.mutable_header()->mutable_config() = config;
  request.mutable_header()->set_repository_path(repository_path);
  return SendLoadStream(stub, {request});
}

grpc::Status GetModel(v1::NeuronServing::Stub& stub, const std::string& name,
                      v1::ModelStatus* model) {
  grpc::ClientContext context;
  SetDeadline(context);
  v1::GetModelRequest request;
  request.set_name(name);
  v1::ModelStatus ignored;
  return stub.GetModel(&context, request, model != nullptr ? model : &ignored);
}

grpc::Status UnloadModel(v1::NeuronServing::Stub& stub, const std::string& name,
                         v1::UnloadModelResponse* response) {
  grpc::ClientContext context;
  SetDeadline(context);
  v1::UnloadModelRequest request;
  request.set_name(name);
  v1::UnloadModelResponse ignored;
  return stub.UnloadModel(&context, request, response != nullptr ? response : &ignored);
}

v1::ListModelsResponse ListModels(v1::NeuronServing::Stub& stub) {
  grpc::ClientContext context;
  SetDeadline(context);
  v1::ListModelsResponse response;
  grpc::Status status = stub.ListModels(&context, v1::ListModelsRequest(), &response);
  if (!status.ok()) response.Clear();
  return response;
}

v1::EnumerateResponse EnumerateCores(v1::NeuronServing::Stub& stub) {
  grpc::ClientContext context;
  SetDeadline(context);
  v1::EnumerateResponse response;
  grpc::Status status = stub.Enumerate(&context, v1::EnumerateRequest(), &response);
  if (!status.ok()) response.Clear();
  return response;
}

v1::ModelConfig Config(const std::string& name, const std::string& version) {
  v1::ModelConfig config;
  config.set_name(name);
  config.set_version(version);
  return config;
}

std::string SimNeff(const ReluNeffOptions& model) {
  std::string json = "{";
  json += "\"description\": \"" + model.tag + "\", ";
  json += "\"nc_count\": " + std::to_string(model.nc_count) + ", ";
  const std::string shape = "[1, " + std::to_string(model.input_width) + "]";
  json += "\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": " + shape + "}], ";
  json += "\"outputs\": [{\"name\": \"y\", \"dtype\": \"float32\", \"shape\": " + shape + "}], ";
  if (model.constant_floats > 0) {
    json += "\"constants\": {\"w\": {\"shape\": [" + std::to_string(model.constant_floats) +
            "], \"data\": [";
    json.reserve(json.size() + model.constant_floats * 4 + 128);
    for (size_t i = 0; i < model.constant_floats; ++i) {
      json += i == 0 ? "0.5" : ",0.5";
    }
    json += "]}}, ";
  }
  json += "\"ops\": [{\"op\": \"relu\", \"inputs\": [\"x\"], \"output\": \"y\"}]}";
  return SimNeffFromJson(json);
}

uint64_t SimNeffTensorSetBytes(const ReluNeffOptions& model) {
  return 2 * uint64_t{model.input_width} * sizeof(float);
}

uint64_t SimNeffDeviceBytes(const ReluNeffOptions& model, uint32_t pipeline_depth) {
  return model.constant_floats * sizeof(float) + pipeline_depth * SimNeffTensorSetBytes(model);
}

std::string GarbageNeff() { return "this is not a NEFF, only some bytes\n"; }

void WriteFile(const std::string& path, const std::string& contents) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
}

std::vector<std::string> ResidentModels(const v1::NeuronCore& core) {
  return {core.resident_models().begin(), core.resident_models().end()};
}

std::vector<std::string> FilesUnder(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code error;
  if (!fs::exists(dir, error)) return files;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(dir, error)) {
    if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), dir).string());
  }
  return files;
}

DaemonArgs SimDaemonArgs(std::vector<std::string> extra_flags,
                         std::map<std::string, std::string> env) {
  DaemonArgs args;
  args.flags = {"--listen=127.0.0.1:0", std::string("--nrt-library=") + NRTSIM_LIBRARY_PATH};
  args.flags.insert(args.flags.end(), extra_flags.begin(), extra_flags.end());
  args.env = std::move(env);
  // Not NRTSIM_LOCK_DIR: the daemon inherits the test's private lock directory
  // (tests/sim_lock_dir), so it never collides with other tests' daemons or a developer's.
  args.unset_env = {"NRTSIM_CORES",        "NRTSIM_INSTANCE",           "NRTSIM_HBM_BYTES",
                    "NRTSIM_VERSION",      "NRTSIM_VOID_DTYPE_TENSORS", "NEURON_RT_VISIBLE_CORES",
                    "NEURON_RT_NUM_CORES", "NEURON_LOGICAL_NC_CONFIG",  "NEURON_RT_EXEC_TIMEOUT",
                    "NRTSIM_ABORT_ON_EXECUTE", "NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS"};
  // Flags of the test's environment must not change the daemon under test.
  for (const char* flag :
       {"NEURON_SERVE_MODEL_REPOSITORY", "NEURON_SERVE_LOAD_MODELS", "NEURON_SERVE_STATE_DIR",
        "NEURON_SERVE_MAX_MODEL_BYTES", "NEURON_SERVE_UNLOAD_TIMEOUT", "NEURON_SERVE_MAX_QUEUE",
        "NEURON_SERVE_MAX_MESSAGE_BYTES", "NEURON_SERVE_HTTP_LISTEN", "NEURON_SERVE_ACCESS_LOG",
        "NEURON_SERVE_LOG_FORMAT", "NEURON_SERVE_DRAIN_TIMEOUT",
        "NEURON_SERVE_EXECUTION_TIMEOUT"}) {
    args.unset_env.push_back(flag);
  }
  // Nor the test-only crash hook (util/crash_point.h): a test that wants it passes it in `env`.
  args.unset_env.push_back("NEURON_SERVE_TEST_CRASH_AT");
  return args;
}

std::unique_ptr<RunningDaemon> StartDaemon(const DaemonArgs& args, std::string* log) {
  auto daemon = std::make_unique<RunningDaemon>();
  daemon->process = std::make_unique<DaemonProcess>(args);
  std::optional<std::string> address = daemon->process->WaitUntilListening(absl::Seconds(60));
  if (!address.has_value()) {
    if (log != nullptr) *log = daemon->process->Stderr();
    return nullptr;
  }
  daemon->address = *address;
  daemon->channel = grpc::CreateChannel(*address, grpc::InsecureChannelCredentials());
  daemon->stub = v1::NeuronServing::NewStub(daemon->channel);
  return daemon;
}

}  // namespace neuronserve::testing
