// What the SharedMemoryE2ETest files share: the daemon flags that allow client shared memory, a
// region's parameters as tritonclient's set_shared_memory sets them, and the identity requests
// whose tensors are in regions.
//
// Thread safety: free functions.
#ifndef NEURON_SERVE_TESTS_E2E_SHARED_MEMORY_E2E_SUPPORT_H_
#define NEURON_SERVE_TESTS_E2E_SHARED_MEMORY_E2E_SUPPORT_H_

#include <chrono>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/e2e/lifecycle_client.h"

namespace neuronserve::testing::shared_memory_e2e {

using inference::GRPCInferenceService;
using inference::ModelInferRequest;
using inference::ModelInferResponse;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

inline constexpr char kAllow[] = "--allow-client-shared-memory";

inline std::unique_ptr<GRPCInferenceService::Stub> V2Stub(const RunningDaemon& daemon) {
  return GRPCInferenceService::NewStub(daemon.channel);
}

inline grpc::ClientContext* WithDeadline(grpc::ClientContext& context) {
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return &context;
}

inline grpc::Status Register(GRPCInferenceService::Stub& stub, const std::string& name,
                             const std::string& key, uint64_t offset, uint64_t byte_size) {
  inference::SystemSharedMemoryRegisterRequest request;
  request.set_name(name);
  request.set_key(key);
  request.set_offset(offset);
  request.set_byte_size(byte_size);
  inference::SystemSharedMemoryRegisterResponse response;
  grpc::ClientContext context;
  return stub.SystemSharedMemoryRegister(WithDeadline(context), request, &response);
}

inline grpc::Status Unregister(GRPCInferenceService::Stub& stub, const std::string& name) {
  inference::SystemSharedMemoryUnregisterRequest request;
  request.set_name(name);
  inference::SystemSharedMemoryUnregisterResponse response;
  grpc::ClientContext context;
  return stub.SystemSharedMemoryUnregister(WithDeadline(context), request, &response);
}

inline grpc::Status Status(GRPCInferenceService::Stub& stub, const std::string& name,
                           inference::SystemSharedMemoryStatusResponse* response) {
  inference::SystemSharedMemoryStatusRequest request;
  request.set_name(name);
  grpc::ClientContext context;
  return stub.SystemSharedMemoryStatus(WithDeadline(context), request, response);
}

inline grpc::Status ModelInfer(GRPCInferenceService::Stub& stub, const ModelInferRequest& request,
                               ModelInferResponse* response) {
  grpc::ClientContext context;
  return stub.ModelInfer(WithDeadline(context), request, response);
}

// The three parameters, as tritonclient's set_shared_memory sets them (int64 sizes).
inline void NameRegion(google::protobuf::Map<std::string, inference::InferParameter>& parameters,
                       const std::string& region, int64_t byte_size, int64_t offset = -1) {
  parameters["shared_memory_region"].set_string_param(region);
  parameters["shared_memory_byte_size"].set_int64_param(byte_size);
  if (offset >= 0) parameters["shared_memory_offset"].set_int64_param(offset);
}

// An identity request for `model` whose input is `region` at `offset`, `bytes` long; its output
// goes to `out_region` when given.
inline ModelInferRequest SharedRequest(const std::string& model, const std::string& datatype,
                                       const std::string& region, int64_t offset, int64_t bytes,
                                       const std::string& out_region = "", int64_t out_offset = 0,
                                       int64_t out_bytes = 0) {
  ModelInferRequest request;
  request.set_model_name(model);
  auto* input = request.add_inputs();
  input->set_name("input");
  input->set_datatype(datatype);
  input->add_shape(2);
  input->add_shape(3);
  NameRegion(*input->mutable_parameters(), region, bytes, offset);
  if (!out_region.empty()) {
    auto* output = request.add_outputs();
    output->set_name("output");
    NameRegion(*output->mutable_parameters(), out_region, out_bytes, out_offset);
  }
  return request;
}

}  // namespace neuronserve::testing::shared_memory_e2e

#endif  // NEURON_SERVE_TESTS_E2E_SHARED_MEMORY_E2E_SUPPORT_H_
