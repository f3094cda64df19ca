// NativeInferCall: an InferCall (server/call/infer_call.h) whose request and response are the
// native API's neuronserve.v1 InferRequest and InferResponse.
//
// Decoding: each InputTensor becomes a GivenInput (its raw_data or typed field, its shape and
// stated dtype), or its shared_memory range (then it carries no values); `outputs` the wanted
// outputs, `output_shared_memory` those written into shared memory (their OutputTensor names the
// range and carries no values); `response_form` the output form (unset: raw when the first
// input came raw, else typed). The response carries the request's id and model, the serving
// version, queue_us and device_us.
//
// Thread safety and ownership: as InferCall's; the messages must outlive the call.
#ifndef NEURON_SERVE_SERVER_NATIVE_NATIVE_INFER_CALL_H_
#define NEURON_SERVE_SERVER_NATIVE_NATIVE_INFER_CALL_H_

#include <string>
#include <string_view>

#include "grpcpp/support/byte_buffer.h"
#include "neuronserve/v1/neuron_serving.pb.h"
#include "server/call/infer_call.h"
#include "server/grpc/detached_bytes.h"
#include "server/grpc/rpc_paths.h"

namespace neuronserve {

class NativeInferCall : public InferCall {
 public:
  using Request = v1::InferRequest;
  using Response = v1::InferResponse;
  // A stream answers each request with an InferResponse, its failure in `error`.
  using StreamResponse = v1::InferResponse;
  // The RPCs' paths (for the CallGuard) and names (in the access log), and the request's
  // model-name field: what GrpcInferCall requires (server/grpc/grpc_infer_call.h).
  static constexpr std::string_view kUnaryRpc = rpc::kInfer;
  static constexpr std::string_view kStreamRpc = rpc::kInferStream;
  static constexpr std::string_view kUnaryMethod = "Infer";
  static constexpr std::string_view kStreamMethod = "InferStream";
  static constexpr const std::string& (Request::*kModelName)() const = &Request::model;

  // Validates `request` against the model it names and prepares `response` (id, model, and
  // the wanted outputs' names and shapes). On an error the call keeps its lease (if it found
  // the model) until FillResponse.
  absl::Status Bind(const InferContext& context, const Request& request, Response& response);
  // What Bind does first, alone: for a call refused before it could look at the model (the
  // daemon is draining). The caller then answers it through FillResponse.
  void BeginUnbound(const InferContext& context, const Request& request, Response& response);

  // Serializes a unary answer into `raw`, splicing in the outputs `detached` holds (the call's
  // PlaceOutputBytes); as SerializeMessage without any.
  static absl::Status SerializeUnary(std::string_view rpc, Response& response,
                                     DetachedBytes& detached, grpc::ByteBuffer& raw);

  // A streamed request's answer and failure, inside the stream's response.
  static Response& InnerResponse(StreamResponse& response) { return response; }
  static void SetStreamError(StreamResponse& response, const absl::Status& status);

 private:
  void AddOutput(const TensorSpec& spec, absl::Span<const uint32_t> shape,
                 ValueField field) override;
  void* OutputValues(int slot, ValueField field, size_t count) override;
  RequestProtocol protocol() const override { return RequestProtocol::kNative; }
  void DropOutputs() override { response_->clear_outputs(); }
  void SetTiming(const ExecutionTiming& timing) override;

  const Request* request_ = nullptr;  // for the outputs it sends to shared memory
  Response* response_ = nullptr;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_NATIVE_NATIVE_INFER_CALL_H_
