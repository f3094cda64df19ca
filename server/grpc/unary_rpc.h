// The unary RPCs of both gRPC services (native NeuronServing, v2 GRPCInferenceService), written
// once: each handler names its messages and says how it answers; the guard's check, the raw
// request's parsing, the audit of admin calls and the raw answer's serialization are here.
//
// Two shapes, each a template whose requirement on the handler's answer is a concept:
// - AnswerUnaryNow: a call answered from memory on the gRPC thread (metadata, status, probes):
//   the guard's check, then the request parsed, then `answer(request, response)` (an
//   UnaryAnswer), whose status ends the call. A refusal or a request that does not parse
//   finishes the call before `answer` runs.
// - ServeAdminUnary: an admin call (UnloadModel, RepositoryIndex, RepositoryModelLoad,
//   RepositoryModelUnload) audited however it ends: `start(request, response, answer)` (an
//   AdminUnaryStart) hands the work on (to the model registry's thread, mostly) or answers at
//   once; `answer(status[, bytes])` writes the audit line naming the request's model and
//   finishes the call, from any thread, once. A request that does not parse is audited (with
//   no model) and refused without `start`.
// The inference RPCs, whose answers come from a core worker, are infer_rpc.h's.
//
// Thread safety: the templates run on the handler's gRPC thread; an AdminUnaryAnswer may be
// called from any thread, once. Ownership: the call's reactor owns the typed messages until the
// call finishes (the default reactor's stack frame for AnswerUnaryNow, a RawUnaryReactor for
// ServeAdminUnary, which deletes itself in OnDone); `start` may keep `response` until it
// answers.
#ifndef NEURON_SERVE_SERVER_GRPC_UNARY_RPC_H_
#define NEURON_SERVE_SERVER_GRPC_UNARY_RPC_H_

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/server_callback.h"
#include "server/grpc/call_guard.h"
#include "server/grpc/grpc_status.h"
#include "server/grpc/raw_message.h"
#include "server/security/rpc_scope.h"

namespace neuronserve {

// What gRPC hands a raw unary handler: the call, the request's bytes and where the answer's go.
struct RawUnaryCall {
  grpc::CallbackServerContext* context;
  const grpc::ByteBuffer* request;
  grpc::ByteBuffer* response;
};

// The request's model-name field (for the audit line of a refusal and of an admin call), or
// null when the request names no model.
template <typename Request>
using ModelNameField = const std::string& (Request::*)() const;

// An answer from memory: fills the response from the request and says how the call ends.
template <typename Answer, typename Request, typename Response>
concept UnaryAnswer = requires(Answer& answer, const Request& request, Response& response) {
  { answer(request, response) } -> std::same_as<absl::Status>;
};

template <typename Request, typename Response, UnaryAnswer<Request, Response> Answer>
grpc::ServerUnaryReactor* AnswerUnaryNow(const CallGuard& guard, std::string_view method,
                                         const RawUnaryCall& call, Answer answer,
                                         ModelNameField<Request> name = nullptr) {
  Request request;
  if (grpc::ServerUnaryReactor* refused =
          CheckAndParse(guard, call.context, method, *call.request, request, name)) {
    return refused;
  }
  Response response;
  const absl::Status status = answer(std::as_const(request), response);
  return FinishRawUnaryNow(call.context, RpcName(method), status, response, call.response);
}

// How an admin call ends (see the file comment): audits `result` with the request's model (and
// the bytes an upload carried, when given), then finishes the call. Copyable, to travel into
// the registry's callbacks; called once.
template <typename Request, typename Response>
class AdminUnaryAnswer {
 public:
  AdminUnaryAnswer(RawUnaryReactor<Request, Response>* reactor, AdminCallAudit audit,
                   std::string_view rpc, std::string model)
      : reactor_(reactor), audit_(std::move(audit)), rpc_(rpc), model_(std::move(model)) {}

  void operator()(const absl::Status& result, std::optional<uint64_t> bytes = std::nullopt) const {
    const grpc::Status status = ToGrpcStatus(result);
    audit_.Record(rpc_, model_, status, {}, bytes);
    reactor_->FinishWith(status);  // last: the reactor may be gone once it returns
  }

 private:
  RawUnaryReactor<Request, Response>* reactor_;
  AdminCallAudit audit_;
  std::string_view rpc_;  // a view of a constant (rpc::k...)
  std::string model_;
};

// Starts an admin call's work, which ends (now or later) by calling the answer it is given.
template <typename Start, typename Request, typename Response>
concept AdminUnaryStart = requires(Start& start, const Request& request, Response& response,
                                   AdminUnaryAnswer<Request, Response> answer) {
  { start(request, response, answer) } -> std::same_as<void>;
};

template <typename Request, typename Response, AdminUnaryStart<Request, Response> Start>
grpc::ServerUnaryReactor* ServeAdminUnary(const CallGuard& guard, std::string_view method,
                                          const RawUnaryCall& call, ModelNameField<Request> name,
                                          Start start) {
  CallerCheck check =
      name == nullptr
          ? guard.Check(call.context, method)
          : guard.Check(call.context, method, [&] { return ParsedName(*call.request, name); });
  if (!check.status.ok()) return FinishUnaryNow(call.context, check.status);
  AdminCallAudit audit = guard.AdminAudit(call.context, std::move(check.identity));
  const std::string_view rpc_name = RpcName(method);
  // Finished from wherever `start` answers: the reactor owns the messages until then.
  auto* reactor = new RawUnaryReactor<Request, Response>(rpc_name, call.response);
  if (absl::Status parsed = ParseMessage(rpc_name, *call.request, reactor->request); !parsed.ok()) {
    AdminUnaryAnswer<Request, Response>(reactor, std::move(audit), rpc_name, "")(parsed);
    return reactor;
  }
  std::string model = name == nullptr ? std::string() : (reactor->request.*name)();
  start(std::as_const(reactor->request), reactor->response,
        AdminUnaryAnswer<Request, Response>(reactor, std::move(audit), rpc_name, std::move(model)));
  return reactor;
}

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_UNARY_RPC_H_
