// CallGuard: the check at the start of every NeuronServing handler (Enumerate, GetModel,
// ListModels, Infer, InferStream, LoadModel, UnloadModel) and every GRPCInferenceService (v2)
// handler: the caller's bearer token against
// the scope the RPC needs (server/security/token_authority.h, server/security/rpc_scope.h), then
// the listener's policy (admin RPCs served on the admin listener are PERMISSION_DENIED here, naming
// it). A refused call is finished at once with the returned status and written to the audit log.
// gRPC's health service is not a NeuronServing method and never passes here: probes need no
// token. The v2 probes (ServerLive, ServerReady, ModelReady) do pass here, for the metadata
// limit; their scope is none (server/security/rpc_scope.h), so they need no token either.
//
// Identity (issue 17, item 3): the caller's name in the access and audit logs is its client
// certificate's (the first subject alternative name, else the common name, from the call's
// AuthContext, which holds them only on an mTLS connection), else its token's label, else empty.
// It is worked out only when a log will write it, so that without logs and tokens the check
// costs a few branches.
//
// Thread safety: a CallGuard is immutable after construction; Check may run on any thread.
// Ownership: borrows the InferContext's authority and logs, which outlive the service.
#ifndef NEURON_SERVE_SERVER_GRPC_CALL_GUARD_H_
#define NEURON_SERVE_SERVER_GRPC_CALL_GUARD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "grpcpp/security/auth_context.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/server_callback.h"
#include "grpcpp/support/status.h"
#include "server/call/infer_context.h"
#include "server/grpc/listener_policy.h"
#include "server/grpc/rpc_paths.h"

namespace neuronserve {

class AuditLog;

// The outcome of the check.
struct CallerCheck {
  grpc::Status status;   // OK: serve the call; otherwise finish it with this at once
  std::string identity;  // the caller's name; filled only when a log will use it
};

// What an admin call keeps to write its audit line when it ends; Record does nothing without
// an audit log.
struct AdminCallAudit {
  AuditLog* log = nullptr;
  std::string peer;
  std::string identity;
  void Record(std::string_view rpc, std::string_view model, const grpc::Status& status,
              std::string_view region = {}, std::optional<uint64_t> bytes = std::nullopt) const;
};

// The caller's client certificate name (SAN, else CN) or empty.
std::string CertificateIdentity(const grpc::AuthContext& auth);

class CallGuard {
 public:
  CallGuard(const InferContext& context, const ListenerPolicy& policy)
      : context_(context), policy_(policy) {}

  // Checks the call to `method` (one of rpc::k...); `model` is the model the request names,
  // when the handler knows it already (for the audit line of a refusal).
  CallerCheck Check(grpc::CallbackServerContext* context, std::string_view method,
                    std::string_view model = {}) const;
  // As above, for a handler that has not parsed its request yet (the raw methods,
  // raw_message.h): the guard runs before the request is parsed, so a refused caller's answer
  // never depends on its bytes; `model` is asked only when a refusal is written to the audit
  // log, and may parse the request then (empty when it does not parse).
  CallerCheck Check(grpc::CallbackServerContext* context, std::string_view method,
                    absl::FunctionRef<std::string()> model) const;

  // The audit state of an admin call that passed Check.
  AdminCallAudit AdminAudit(grpc::CallbackServerContext* context, std::string identity) const;

 private:
  const InferContext& context_;
  const ListenerPolicy& policy_;
};

// A unary call finished at once with `status` (a refusal, or an answer read from memory): what
// a unary handler returns then.
grpc::ServerUnaryReactor* FinishUnaryNow(grpc::CallbackServerContext* context,
                                         const grpc::Status& status);
grpc::ServerUnaryReactor* FinishUnaryNow(grpc::CallbackServerContext* context,
                                         const absl::Status& status);

// A reactor that finishes with `status` as soon as it exists and deletes itself when gRPC is
// done with it: what a streaming handler returns for a refused call.
template <typename Reactor>
class RefusedReactor final : public Reactor {
 public:
  explicit RefusedReactor(const grpc::Status& status) { this->Finish(status); }
  void OnDone() override { delete this; }
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_CALL_GUARD_H_
