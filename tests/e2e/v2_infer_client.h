// What the V2InferE2ETest files share: a stub of the Open Inference Protocol's gRPC service on a
// running daemon, one ModelInfer call, one ModelStreamInfer stream run to its end, typed values as
// the raw bytes the protocol carries, and a request for the identity model of a dtype.
//
// Thread safety: free functions; a stub is used by one test thread at a time.
#ifndef NEURON_SERVE_TESTS_E2E_V2_INFER_CLIENT_H_
#define NEURON_SERVE_TESTS_E2E_V2_INFER_CLIENT_H_

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/e2e/dtype_samples.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing::v2_infer_e2e_test {

using inference::GRPCInferenceService;
using inference::InferTensorContents;
using inference::ModelInferRequest;
using inference::ModelInferResponse;
using inference::ModelStreamInferResponse;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

inline std::unique_ptr<GRPCInferenceService::Stub> V2Stub(const RunningDaemon& daemon) {
  return GRPCInferenceService::NewStub(daemon.channel);
}

inline grpc::Status ModelInfer(GRPCInferenceService::Stub& stub, const ModelInferRequest& request,
                               ModelInferResponse* response) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  ModelInferResponse ignored;
  return stub.ModelInfer(&context, request, response != nullptr ? response : &ignored);
}

// Sends every request on one ModelStreamInfer stream, then reads every answer.
inline std::vector<ModelStreamInferResponse> RunV2Stream(
    GRPCInferenceService::Stub& stub, const std::vector<ModelInferRequest>& requests,
    grpc::Status* status) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  auto stream = stub.ModelStreamInfer(&context);
  std::vector<ModelStreamInferResponse> responses;
  std::thread reader([&] {
    ModelStreamInferResponse response;
    while (stream->Read(&response)) responses.push_back(response);
  });
  for (const ModelInferRequest& request : requests) {
    if (!stream->Write(request)) break;
  }
  stream->WritesDone();
  reader.join();
  *status = stream->Finish();
  return responses;
}

template <typename T>
inline std::string BytesOf(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

inline ModelInferRequest IdentityRequest(DataType dtype, const std::string& datatype) {
  ModelInferRequest request;
  request.set_model_name(ModelNameFor(dtype));
  auto* input = request.add_inputs();
  input->set_name("input");
  input->set_datatype(datatype);
  input->add_shape(2);
  input->add_shape(3);
  return request;
}

}  // namespace neuronserve::testing::v2_infer_e2e_test

#endif  // NEURON_SERVE_TESTS_E2E_V2_INFER_CLIENT_H_
