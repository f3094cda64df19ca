// What the V2ServiceE2ETest files share: V2Client, the Open Inference Protocol's non-inference
// RPCs on a running daemon, with the bearer token a test gives; a model of a repository index;
// and the repository folder those tests load from.
//
// Thread safety: a V2Client is used by one test thread at a time. Ownership: it owns its
// channel and stub.
#ifndef NEURON_SERVE_TESTS_E2E_V2_SERVICE_CLIENT_H_
#define NEURON_SERVE_TESTS_E2E_V2_SERVICE_CLIENT_H_

#include <chrono>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "neuron_serve_version.h"  // generated in the build tree (server/oip/CMakeLists.txt)
#include "tests/e2e/lifecycle_client.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing::v2_service_e2e_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using V2Stub = inference::GRPCInferenceService::Stub;

// A v2 client on one channel, sending `token` (if any) as a bearer token on every call.
class V2Client {
 public:
  explicit V2Client(std::shared_ptr<grpc::Channel> channel, std::string token = "")
      : stub_(inference::GRPCInferenceService::NewStub(channel)), token_(std::move(token)) {}

  template <typename Request, typename Response>
  grpc::Status Call(grpc::Status (V2Stub::*method)(grpc::ClientContext*, const Request&, Response*),
                    const Request& request, Response* response) const {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(kRpcDeadlineSeconds));
    if (!token_.empty()) context.AddMetadata("authorization", absl::StrCat("Bearer ", token_));
    return (stub_.get()->*method)(&context, request, response);
  }

  // The probes' answers; nullopt when the call failed.
  std::optional<bool> ServerReady() const {
    inference::ServerReadyResponse response;
    if (!Call(&V2Stub::ServerReady, {}, &response).ok()) return std::nullopt;
    return response.ready();
  }
  std::optional<bool> ModelReady(const std::string& name, const std::string& version = "") const {
    inference::ModelReadyRequest request;
    request.set_name(name);
    request.set_version(version);
    inference::ModelReadyResponse response;
    if (!Call(&V2Stub::ModelReady, request, &response).ok()) return std::nullopt;
    return response.ready();
  }

  grpc::Status Statistics(const std::string& name, const std::string& version,
                          inference::ModelStatisticsResponse* response) const {
    inference::ModelStatisticsRequest request;
    request.set_name(name);
    request.set_version(version);
    return Call(&V2Stub::ModelStatistics, request, response);
  }

  grpc::Status Index(inference::RepositoryIndexResponse* response, bool ready = false,
                     const std::string& repository = "") const {
    inference::RepositoryIndexRequest request;
    request.set_ready(ready);
    request.set_repository_name(repository);
    return Call(&V2Stub::RepositoryIndex, request, response);
  }

  // RepositoryModelLoad of `model` with string parameters `parameters`.
  grpc::Status Load(const std::string& model,
                    const std::map<std::string, std::string>& parameters = {},
                    const std::string& repository = "") const {
    inference::RepositoryModelLoadRequest request;
    request.set_model_name(model);
    request.set_repository_name(repository);
    for (const auto& [key, value] : parameters) {
      (*request.mutable_parameters())[key].set_string_param(value);
    }
    inference::RepositoryModelLoadResponse response;
    return Call(&V2Stub::RepositoryModelLoad, request, &response);
  }

  grpc::Status Unload(const std::string& model, const std::string& repository = "") const {
    inference::RepositoryModelUnloadRequest request;
    request.set_model_name(model);
    request.set_repository_name(repository);
    inference::RepositoryModelUnloadResponse response;
    return Call(&V2Stub::RepositoryModelUnload, request, &response);
  }

 private:
  std::unique_ptr<V2Stub> stub_;
  std::string token_;
};

inline const inference::RepositoryIndexResponse::ModelIndex* FindInIndex(
    const inference::RepositoryIndexResponse& index, const std::string& name) {
  for (const auto& model : index.models()) {
    if (model.name() == name) return &model;
  }
  return nullptr;
}

// A repository of the identity model "id" (float32 [1,4], version "3"), "other" (the same
// bytes, no config) and "broken" (a config.pbtxt that does not parse).
inline void WriteRepository(const TempDir& repo) {
  const std::string neff = EncodeNeff(IdentityModel({1, 4}));
  WriteFile(repo.Join("id/model.neff"), neff);
  WriteFile(repo.Join("id/config.pbtxt"), "name: \"id\"\nversion: \"3\"\n");
  WriteFile(repo.Join("other/model.neff"), neff);
  WriteFile(repo.Join("broken/model.neff"), neff);
  WriteFile(repo.Join("broken/config.pbtxt"), "this is { not a config");
}

}  // namespace neuronserve::testing::v2_service_e2e_test

#endif  // NEURON_SERVE_TESTS_E2E_V2_SERVICE_CLIENT_H_
