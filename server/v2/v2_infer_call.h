// V2InferCall: an InferCall (server/call/infer_call.h) whose request and response are the Open
// Inference Protocol's inference.ModelInferRequest and ModelInferResponse (proto/inference).
//
// Decoding, on the gRPC thread, into the one request form:
// - each input's `datatype` must be its tensor's v2 datatype (server/oip/v2_datatype.h; BOOL for a
// 1-byte
//   integer tensor), its `shape` the tensor's;
// - its values come from raw_input_contents (one entry per input, in the order of `inputs`,
//   then no input may carry `contents`) or from the typed `contents` field of its datatype
//   (FP16, BF16 and the dtypes without a v2 name only raw);
// - an input whose parameters name a shared-memory region (shared_memory_region,
//   shared_memory_byte_size, shared_memory_offset: Triton's) carries no values and has no
//   raw_input_contents entry; its bytes go to the device from the region;
// - `outputs` selects a subset (empty: every output); an output whose parameters name a region
//   is written there, and keeps an empty raw_output_contents entry in a raw answer;
// - request parameter `timeout` (int64 microseconds, 0 = none) bounds the time in the queue;
//   the others are ignored, as the protocol allows.
// The answer uses the request's form: raw_output_contents for a raw request, typed `contents`
// for a typed one, unless an output it returns has no typed field (FP16, BF16, ...) or the
// request uses shared memory: then every output is raw, since the protocol does not mix the
// two. `id` is echoed.
//
// Thread safety and ownership: as InferCall's; the messages must outlive the call.
#ifndef NEURON_SERVE_SERVER_V2_V2_INFER_CALL_H_
#define NEURON_SERVE_SERVER_V2_V2_INFER_CALL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/container/inlined_vector.h"
#include "grpcpp/support/byte_buffer.h"
#include "inference/grpc_service.pb.h"
#include "server/call/infer_call.h"
#include "server/grpc/detached_bytes.h"
#include "server/grpc/rpc_paths.h"

namespace neuronserve {

class V2InferCall : public InferCall {
 public:
  using Request = inference::ModelInferRequest;
  using Response = inference::ModelInferResponse;
  using StreamResponse = inference::ModelStreamInferResponse;
  // As NativeInferCall's (server/native/native_infer_call.h).
  static constexpr std::string_view kUnaryRpc = rpc::kModelInfer;
  static constexpr std::string_view kStreamRpc = rpc::kModelStreamInfer;
  static constexpr std::string_view kUnaryMethod = "ModelInfer";
  static constexpr std::string_view kStreamMethod = "ModelStreamInfer";
  static constexpr const std::string& (Request::*kModelName)() const = &Request::model_name;

  // As NativeInferCall::Bind and BeginUnbound (server/native/native_infer_call.h).
  absl::Status Bind(const InferContext& context, const Request& request, Response& response);
  void BeginUnbound(const InferContext& context, const Request& request, Response& response);

  // A streamed request's answer and failure: inside the stream, as error_message.
  static Response& InnerResponse(StreamResponse& response) {
    return *response.mutable_infer_response();
  }
  static void SetStreamError(StreamResponse& response, const absl::Status& status);

  // Serializes a unary answer into `raw`, splicing in the raw_output_contents `detached` holds
  // (the call's PlaceOutputBytes); as SerializeMessage without any.
  static absl::Status SerializeUnary(std::string_view rpc, Response& response,
                                     DetachedBytes& detached, grpc::ByteBuffer& raw);

 private:
  // Decodes the inputs into `given` (views into the request and shapes_).
  absl::Status DecodeInputs(const Request& request, absl::InlinedVector<GivenInput, 4>& given);
  void AddOutput(const TensorSpec& spec, absl::Span<const uint32_t> shape,
                 ValueField field) override;
  void* OutputValues(int slot, ValueField field, size_t count) override;
  RequestProtocol protocol() const override { return RequestProtocol::kV2; }
  void DropOutputs() override;

  Response* response_ = nullptr;
  // The inputs' shapes as validation reads them (uint32 dimensions).
  absl::InlinedVector<absl::InlinedVector<uint32_t, 4>, 4> shapes_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_V2_V2_INFER_CALL_H_
