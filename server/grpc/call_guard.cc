#include "server/grpc/call_guard.h"

#include "absl/strings/str_cat.h"
#include "grpc/grpc_security_constants.h"
#include "server/grpc/grpc_status.h"
#include "server/grpc/metadata_limit.h"
#include "server/logs/audit_log.h"
#include "server/security/rpc_scope.h"
#include "server/security/token_authority.h"

namespace neuronserve {
namespace {

grpc::StatusCode ToGrpcCode(absl::StatusCode code) { return static_cast<grpc::StatusCode>(code); }

std::string_view ToStringView(grpc::string_ref value) { return {value.data(), value.size()}; }

}  // namespace

std::string CertificateIdentity(const grpc::AuthContext& auth) {
  for (const char* property : {GRPC_X509_SAN_PROPERTY_NAME, GRPC_X509_CN_PROPERTY_NAME}) {
    const std::vector<grpc::string_ref> values = auth.FindPropertyValues(property);
    if (!values.empty()) return std::string(values.front().data(), values.front().size());
  }
  return "";
}

void AdminCallAudit::Record(std::string_view rpc, std::string_view model,
                            const grpc::Status& status, std::string_view region,
                            std::optional<uint64_t> bytes) const {
  if (log == nullptr) return;
  const std::string message = status.error_message();  // a copy: gRPC returns it by value
  AuditRecord record;
  record.rpc = rpc;
  record.peer = peer;
  record.identity = identity;
  record.model = model;
  record.region = region;
  record.code = static_cast<absl::StatusCode>(status.error_code());
  record.message = message;
  record.bytes = bytes;
  log->Record(record);
}

CallerCheck CallGuard::Check(grpc::CallbackServerContext* context, std::string_view method,
                             std::string_view model) const {
  return Check(context, method, [model] { return std::string(model); });
}

CallerCheck CallGuard::Check(grpc::CallbackServerContext* context, std::string_view method,
                             absl::FunctionRef<std::string()> model) const {
  CallerCheck check;
  const Scope needed = RequiredScope(method);
  const std::string_view rpc_name = RpcName(method);
  AuthDecision decision;
  // Oversized metadata first: a refusal that names the limit, whoever the caller is.
  check.status = CheckMetadataSize(*context, policy_.max_metadata_bytes);
  if (check.status.ok() && context_.tokens != nullptr && context_.tokens->enabled()) {
    std::string_view authorization;
    const auto& metadata = context->client_metadata();
    if (auto found = metadata.find("authorization"); found != metadata.end()) {
      authorization = ToStringView(found->second);
    }
    decision = context_.tokens->Authorize(authorization, needed, rpc_name);
    if (!decision.ok()) {
      check.status = grpc::Status(ToGrpcCode(decision.code), decision.message);
    }
  }
  if (check.status.ok() && needed == Scope::kAdmin && !policy_.admin_listener_elsewhere.empty()) {
    check.status =
        grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                     absl::StrCat(std::string(rpc_name), " is served on the admin listener ",
                                  policy_.admin_listener_elsewhere, ", not on this port"));
  }
  const bool audited =
      context_.audit_log != nullptr && (!check.status.ok() || needed == Scope::kAdmin);
  if (context_.access_log != nullptr || audited) {
    check.identity = CertificateIdentity(*context->auth_context());
    if (check.identity.empty()) check.identity = std::string(decision.label);
  }
  if (!check.status.ok() && context_.audit_log != nullptr) {
    AdminCallAudit{context_.audit_log, context->peer(), check.identity}.Record(rpc_name, model(),
                                                                               check.status);
  }
  return check;
}

grpc::ServerUnaryReactor* FinishUnaryNow(grpc::CallbackServerContext* context,
                                         const grpc::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

grpc::ServerUnaryReactor* FinishUnaryNow(grpc::CallbackServerContext* context,
                                         const absl::Status& status) {
  return FinishUnaryNow(context, ToGrpcStatus(status));
}

AdminCallAudit CallGuard::AdminAudit(grpc::CallbackServerContext* context,
                                     std::string identity) const {
  if (context_.audit_log == nullptr) return {};
  return AdminCallAudit{context_.audit_log, context->peer(), std::move(identity)};
}

}  // namespace neuronserve
