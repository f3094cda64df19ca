// GrpcInferCall: what the shared gRPC inference reactors (infer_unary_reactor.h,
// infer_stream_reactor.h) and handlers (infer_rpc.h) require of a front end's call type, written
// as a concept they check: NativeInferCall (server/native/) and V2InferCall (server/v2/) each
// meet it, and a front end that misses a member is told so where it instantiates them.
//
// A GrpcInferCall is an InferCall (server/call/infer_call.h) that also knows its protocol's
// messages:
// - Request, Response: the unary RPC's messages; StreamResponse: the stream's answer to one
//   request, which holds a Response (InnerResponse) and carries a failure (SetStreamError);
// - kUnaryRpc, kStreamRpc: the RPCs' paths for the CallGuard (rpc::k...); kUnaryMethod,
//   kStreamMethod: their names in the access log and in parse errors; kModelName: the
//   request's model-name field (for the audit line of a refused call);
// - Bind(context, request, response): decodes and binds the request (InferCall::BindTensors);
//   BeginUnbound(context, request, response): only the first step, for a call refused before
//   binding;
// - SerializeUnary(rpc, response, detached, raw): the unary answer's bytes, with the outputs
//   DetachedBytes holds spliced in.
//
// Thread safety and ownership: as InferCall's.
#ifndef NEURON_SERVE_SERVER_GRPC_GRPC_INFER_CALL_H_
#define NEURON_SERVE_SERVER_GRPC_GRPC_INFER_CALL_H_

#include <concepts>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "google/protobuf/message_lite.h"
#include "grpcpp/support/byte_buffer.h"
#include "server/call/infer_call.h"
#include "server/call/infer_context.h"
#include "server/grpc/detached_bytes.h"

namespace neuronserve {

template <typename Call>
concept GrpcInferCall = std::derived_from<Call, InferCall> &&
    std::derived_from<typename Call::Request, google::protobuf::MessageLite> &&
    std::derived_from<typename Call::Response, google::protobuf::MessageLite> &&
    std::derived_from<typename Call::StreamResponse, google::protobuf::MessageLite> &&
    requires(Call& call, const InferContext& context, const typename Call::Request& request,
             typename Call::Response& response, typename Call::StreamResponse& stream_response,
             DetachedBytes& detached, grpc::ByteBuffer& raw, const absl::Status& status) {
  { Call::kUnaryRpc } -> std::convertible_to<std::string_view>;
  { Call::kStreamRpc } -> std::convertible_to<std::string_view>;
  { Call::kUnaryMethod } -> std::convertible_to<std::string_view>;
  { Call::kStreamMethod } -> std::convertible_to<std::string_view>;
  { (request.*Call::kModelName)() } -> std::same_as<const std::string&>;
  { call.Bind(context, request, response) } -> std::same_as<absl::Status>;
  { call.BeginUnbound(context, request, response) } -> std::same_as<void>;
  {
    Call::SerializeUnary(std::string_view(), response, detached, raw)
    } -> std::same_as<absl::Status>;
  { Call::InnerResponse(stream_response) } -> std::same_as<typename Call::Response&>;
  { Call::SetStreamError(stream_response, status) } -> std::same_as<void>;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_GRPC_INFER_CALL_H_
