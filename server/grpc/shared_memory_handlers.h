// The shared-memory handlers of both gRPC front ends (native NeuronServing and v2
// GRPCInferenceService): register, unregister and status, written once as templates over the
// two services' messages, which carry the same fields (name, key, offset, byte_size). Each
// checks the caller (CallGuard), parses the raw request, calls the registry through
// shared_memory_calls.h (which writes the audit line of register and unregister, a refused
// parse included) and answers at once: none of them blocks.
//
// Thread safety: as the handlers' (any gRPC thread). Ownership: borrows its arguments for the
// call only.
#ifndef NEURON_SERVE_SERVER_GRPC_SHARED_MEMORY_HANDLERS_H_
#define NEURON_SERVE_SERVER_GRPC_SHARED_MEMORY_HANDLERS_H_

#include <string_view>
#include <utility>

#include "grpcpp/server_context.h"
#include "grpcpp/support/byte_buffer.h"
#include "server/call/infer_context.h"
#include "server/call/shared_memory_calls.h"
#include "server/grpc/call_guard.h"
#include "server/grpc/grpc_status.h"
#include "server/grpc/raw_message.h"
#include "server/grpc/unary_rpc.h"

namespace neuronserve {

// `method`: the RPC's path (rpc::k...). Register and Unregister are answered with an empty
// Response; Status fills its Response with `add(response, region)` per region.
template <typename Request, typename Response>
grpc::ServerUnaryReactor* ServeRegisterSharedMemory(
    const CallGuard& guard, const InferContext& infer, grpc::CallbackServerContext* context,
    std::string_view method, const grpc::ByteBuffer& raw_request, grpc::ByteBuffer* raw_response);

template <typename Request, typename Response>
grpc::ServerUnaryReactor* ServeUnregisterSharedMemory(
    const CallGuard& guard, const InferContext& infer, grpc::CallbackServerContext* context,
    std::string_view method, const grpc::ByteBuffer& raw_request, grpc::ByteBuffer* raw_response);

template <typename Request, typename Response, typename AddRegion>
grpc::ServerUnaryReactor* ServeSharedMemoryStatus(const CallGuard& guard, const InferContext& infer,
                                                  grpc::CallbackServerContext* context,
                                                  std::string_view method,
                                                  const grpc::ByteBuffer& raw_request,
                                                  grpc::ByteBuffer* raw_response, AddRegion add);

// ---- Implementation

namespace shared_memory_handlers_internal {

// Checks the caller, then parses the request; `serve(request, audit)` does the registry call
// (the audit writes the call's line). A request that does not parse is audited and refused.
template <typename Request, typename Response, typename Serve>
grpc::ServerUnaryReactor* ServeAudited(const CallGuard& guard, grpc::CallbackServerContext* context,
                                       std::string_view method, const grpc::ByteBuffer& raw_request,
                                       grpc::ByteBuffer* raw_response, Serve serve) {
  CallerCheck check = guard.Check(context, method);
  if (!check.status.ok()) return FinishUnaryNow(context, check.status);
  const AdminCallAudit audit = guard.AdminAudit(context, std::move(check.identity));
  const std::string_view rpc_name = RpcName(method);
  const RegionAudit region_audit = [&](const absl::Status& status, std::string_view region) {
    audit.Record(rpc_name, "", ToGrpcStatus(status), region);
  };
  Request request;
  absl::Status status = ParseMessage(rpc_name, raw_request, request);
  if (status.ok()) {
    status = serve(request, region_audit);
  } else {
    region_audit(status, "");
  }
  Response response;
  return FinishRawUnaryNow(context, rpc_name, status, response, raw_response);
}

}  // namespace shared_memory_handlers_internal

template <typename Request, typename Response>
grpc::ServerUnaryReactor* ServeRegisterSharedMemory(
    const CallGuard& guard, const InferContext& infer, grpc::CallbackServerContext* context,
    std::string_view method, const grpc::ByteBuffer& raw_request, grpc::ByteBuffer* raw_response) {
  return shared_memory_handlers_internal::ServeAudited<Request, Response>(
      guard, context, method, raw_request, raw_response,
      [&infer](const Request& request, const RegionAudit& audit) {
        return RegisterSharedMemoryRegion(infer, audit, request.name(), request.key(),
                                          request.offset(), request.byte_size());
      });
}

template <typename Request, typename Response>
grpc::ServerUnaryReactor* ServeUnregisterSharedMemory(
    const CallGuard& guard, const InferContext& infer, grpc::CallbackServerContext* context,
    std::string_view method, const grpc::ByteBuffer& raw_request, grpc::ByteBuffer* raw_response) {
  return shared_memory_handlers_internal::ServeAudited<Request, Response>(
      guard, context, method, raw_request, raw_response,
      [&infer](const Request& request, const RegionAudit& audit) {
        // Never waits: a region requests still use is unmapped when the last of them finishes.
        UnregisterSharedMemoryRegions(infer, audit, request.name());
        return absl::OkStatus();
      });
}

template <typename Request, typename Response, typename AddRegion>
grpc::ServerUnaryReactor* ServeSharedMemoryStatus(const CallGuard& guard, const InferContext& infer,
                                                  grpc::CallbackServerContext* context,
                                                  std::string_view method,
                                                  const grpc::ByteBuffer& raw_request,
                                                  grpc::ByteBuffer* raw_response, AddRegion add) {
  return AnswerUnaryNow<Request, Response>(
      guard, method, {context, &raw_request, raw_response},
      [&infer, &add](const Request& request, Response& response) {
        auto regions = SharedMemoryRegions(infer, request.name());
        if (regions.ok()) {
          for (const SharedMemoryRegionStatus& region : *regions) add(response, region);
        }
        return regions.status();
      });
}

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_SHARED_MEMORY_HANDLERS_H_
