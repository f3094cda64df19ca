// Helpers for the model lifecycle end-to-end tests: a LoadModel client that can lie about the
// size or digest, thin wrappers of the other RPCs (each with a deadline), sim NEFF builders and
// a per-test temporary directory.
#ifndef NEURON_SERVE_TESTS_E2E_LIFECYCLE_CLIENT_H_
#define NEURON_SERVE_TESTS_E2E_LIFECYCLE_CLIENT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "grpcpp/channel.h"
#include "grpcpp/support/status.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"
#include "tests/e2e/daemon_process.h"
#include "tests/support/health_check.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing {

// Deadline of every RPC these helpers make.
inline constexpr int kRpcDeadlineSeconds = 60;

struct UploadOptions {
  size_t chunk_size = size_t{1} << 20;
  std::optional<std::string> sha256;   // default: the digest of the bytes
  std::optional<uint64_t> total_size;  // default: the size of the bytes
  bool send_header = true;             // false: chunks only
};

struct LoadResult {
  grpc::Status status;
  v1::LoadModelResponse response;
};

// Streams a header (config, total_size, sha256) then `bytes` in chunks.
LoadResult Upload(v1::NeuronServing::Stub& stub, const v1::ModelConfig& config,
                  const std::string& bytes, const UploadOptions& options = {});
// A header naming `repository_path` (with `config` as overrides), and nothing else.
LoadResult LoadFromRepository(v1::NeuronServing::Stub& stub, const std::string& repository_path,
                              const v1::ModelConfig& config = {});
// Sends exactly `requests`, then WritesDone.
LoadResult SendLoadStream(v1::NeuronServing::Stub& stub,
                          const std::vector<v1::LoadModelRequest>& requests);

grpc::Status GetModel(v1::NeuronServing::Stub& stub, const std::string& name,
                      v1::ModelStatus* model);
grpc::Status UnloadModel(v1::NeuronServing::Stub& stub, const std::string& name,
                         v1::UnloadModelResponse* response = nullptr);
v1::ListModelsResponse ListModels(v1::NeuronServing::Stub& stub);
v1::EnumerateResponse EnumerateCores(v1::NeuronServing::Stub& stub);

v1::ModelConfig Config(const std::string& name, const std::string& version = "");

// A sim NEFF of JSON written here (SimNeffFromJson): y = relu(x) over float32 [1, input_width],
// optionally with an unused float32 constant of `constant_floats` elements (4 bytes of device
// memory each, about 4 bytes of JSON each). `tag` goes in the description, so that two versions
// differ.
struct ReluNeffOptions {
  uint32_t nc_count = 1;
  uint32_t input_width = 4;
  size_t constant_floats = 0;
  std::string tag;
};
std::string SimNeff(const ReluNeffOptions& model = {});
// The daemon's --pipeline-depth when not given: the tensor sets a replica binds when its config
// sets no pipeline_depth.
inline constexpr uint32_t kDefaultPipelineDepth = 2;
// Device memory of one tensor set of SimNeff(model): its input x and its output y.
uint64_t SimNeffTensorSetBytes(const ReluNeffOptions& model);
// Device memory one replica of SimNeff(model) holds: its constants, plus the `pipeline_depth`
// tensor sets (inputs and outputs) the daemon binds for it at load.
uint64_t SimNeffDeviceBytes(const ReluNeffOptions& model,
                            uint32_t pipeline_depth = kDefaultPipelineDepth);
// Bytes the simulator refuses (no magic).
std::string GarbageNeff();

// Writes `contents` to `path`, creating the parent directories.
void WriteFile(const std::string& path, const std::string& contents);
// The names of the models resident on `core`, in the order ListCores gives them.
std::vector<std::string> ResidentModels(const v1::NeuronCore& core);
// Regular files under `dir`, recursively, relative to it; empty if `dir` does not exist.
std::vector<std::string> FilesUnder(const std::string& dir);

// The daemon on the simulator with a loopback port, `extra_flags` and `env` (the simulator's
// environment variables of the test process are removed first).
DaemonArgs SimDaemonArgs(std::vector<std::string> extra_flags = {},
                         std::map<std::string, std::string> env = {});

// A started daemon and a client of it.
struct RunningDaemon {
  std::unique_ptr<DaemonProcess> process;
  std::string address;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::NeuronServing::Stub> stub;
};
// Starts the daemon and waits for its "listening on" line; nullptr (with the daemon's stderr
// in *log) if it never comes.
std::unique_ptr<RunningDaemon> StartDaemon(const DaemonArgs& args, std::string* log);

// Starts the daemon as `var` (a std::unique_ptr<RunningDaemon>), failing the test with the
// daemon's log when it does not come up.
#define START_DAEMON(var, args)                                         \
  std::string var##_log;                                                \
  std::unique_ptr<RunningDaemon> var = StartDaemon((args), &var##_log); \
  ASSERT_NE(var, nullptr) << var##_log

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_E2E_LIFECYCLE_CLIENT_H_
