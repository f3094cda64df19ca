// Parsing and serializing the protobuf messages of the gRPC services ourselves (issue 20, item 3).
//
// Every method of NeuronServing and GRPCInferenceService is registered raw (grpc::ByteBuffer in
// and out) so that a message that does not parse is answered by us, clearly: in gRPC 1.51's
// callback API a unary request that fails to parse is answered UNIMPLEMENTED with no message
// before the handler runs, and a streamed one looks like the client half-closing. Here such a
// message is INVALID_ARGUMENT naming the RPC, the message type, its position in a stream and its
// size (never its bytes). The work is what the generated code does
// (grpc::SerializationTraits<T>), so the hot path does not get slower.
//
// RawUnaryReactor is the reactor of a raw unary call that finishes later, from another thread
// (UnloadModel, RepositoryModelLoad/Unload): it owns the typed messages and serializes the
// response before Finish (ServerUnaryReactor::Finish is not virtual, so the serialization has to
// live in a reactor of our own).
//
// Thread safety: the functions are reentrant. A RawUnaryReactor is finished once, from any
// thread. Ownership: the functions borrow their arguments; a RawUnaryReactor deletes itself in
// OnDone and borrows gRPC's raw response buffer, which lives until then.
#ifndef NEURON_SERVE_SERVER_GRPC_RAW_MESSAGE_H_
#define NEURON_SERVE_SERVER_GRPC_RAW_MESSAGE_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "google/protobuf/message_lite.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/server_callback.h"
#include "grpcpp/support/status.h"
#include "server/grpc/call_guard.h"
#include "server/grpc/grpc_status.h"
#include "server/security/rpc_scope.h"

namespace neuronserve {

// Parses `raw` into `message` (cleared first). On failure `message` is left empty and the error
// is INVALID_ARGUMENT: "<rpc>: the request could not be parsed as <type> (<n> bytes)", or for a
// stream's message (`position` >= 1, counted from 1) "<rpc>: message <position> of the stream
// could not be parsed as <type> (<n> bytes)". `rpc` is the RPC's short name (RpcName).
absl::Status ParseMessage(std::string_view rpc, const grpc::ByteBuffer& raw,
                          google::protobuf::MessageLite& message, size_t position = 0);

// Serializes `message` into `raw`. Fails (INTERNAL, naming the RPC and the type) only for a
// message protobuf cannot serialize (over 2 GiB); `raw` is then empty.
absl::Status SerializeMessage(std::string_view rpc, const google::protobuf::MessageLite& message,
                              grpc::ByteBuffer& raw);

// A raw unary call finished at once: when `status` is OK, `response` is serialized into
// `raw_response` first (a serialization failure finishes the call with that error instead).
grpc::ServerUnaryReactor* FinishRawUnaryNow(grpc::CallbackServerContext* context,
                                            std::string_view rpc, const grpc::Status& status,
                                            const google::protobuf::MessageLite& response,
                                            grpc::ByteBuffer* raw_response);
grpc::ServerUnaryReactor* FinishRawUnaryNow(grpc::CallbackServerContext* context,
                                            std::string_view rpc, const absl::Status& status,
                                            const google::protobuf::MessageLite& response,
                                            grpc::ByteBuffer* raw_response);

// The string field `name` (the model's name) of `raw` parsed as a Request, empty when it does
// not parse: for CallGuard::Check's audit line of a refused call, which comes before parsing.
template <typename Request>
std::string ParsedName(const grpc::ByteBuffer& raw, const std::string& (Request::*name)() const) {
  Request request;
  if (!ParseMessage({}, raw, request).ok()) return {};
  return (request.*name)();
}

// The start of a raw unary handler that answers at once: the guard's check, then the request
// parsed into `request`. Returns null when the handler goes on; otherwise the call, already
// finished with the refusal or the parse error. `name`, when given, is the request's model-name
// field, read only for the audit line of a refusal (CallGuard::Check).
template <typename Request>
grpc::ServerUnaryReactor* CheckAndParse(const CallGuard& guard,
                                        grpc::CallbackServerContext* context,
                                        std::string_view method, const grpc::ByteBuffer& raw,
                                        Request& request,
                                        const std::string& (Request::*name)() const = nullptr) {
  const CallerCheck check =
      name == nullptr ? guard.Check(context, method)
                      : guard.Check(context, method, [&] { return ParsedName(raw, name); });
  if (!check.status.ok()) return FinishUnaryNow(context, check.status);
  if (absl::Status parsed = ParseMessage(RpcName(method), raw, request); !parsed.ok()) {
    return FinishUnaryNow(context, parsed);
  }
  return nullptr;
}

// The reactor of a raw unary call that finishes later (see the file comment).
template <typename Request, typename Response>
class RawUnaryReactor final : public grpc::ServerUnaryReactor {
 public:
  RawUnaryReactor(std::string_view rpc, grpc::ByteBuffer* raw_response)
      : rpc_(rpc), raw_response_(raw_response) {}

  Request request;
  Response response;

  // Serializes `response` when `status` is OK, then finishes the call. Once, from any thread;
  // the reactor may be deleted as soon as it returns.
  void FinishWith(grpc::Status status) {
    if (status.ok()) {
      if (absl::Status serialized = SerializeMessage(rpc_, response, *raw_response_);
          !serialized.ok()) {
        status = ToGrpcStatus(serialized);
      }
    }
    Finish(status);
  }

  void OnDone() override { delete this; }

 private:
  const std::string_view rpc_;  // a view of a constant (rpc::k...)
  grpc::ByteBuffer* const raw_response_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_RAW_MESSAGE_H_
