// The inference RPCs of both gRPC services (native Infer and InferStream, v2 ModelInfer and
// ModelStreamInfer), written once over the front end's call type (a GrpcInferCall,
// grpc_infer_call.h): the guard's check, then the reactor that parses, binds, queues and
// answers. The request is parsed by the reactor, which owns the messages; the guard runs first,
// so a refused caller's answer never depends on its bytes.
//
// Thread safety: run on the handler's gRPC thread. Ownership: the reactors delete themselves
// once gRPC is done with them.
#ifndef NEURON_SERVE_SERVER_GRPC_INFER_RPC_H_
#define NEURON_SERVE_SERVER_GRPC_INFER_RPC_H_

#include <utility>

#include "grpcpp/server_context.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/server_callback.h"
#include "server/call/infer_context.h"
#include "server/grpc/call_guard.h"
#include "server/grpc/grpc_infer_call.h"
#include "server/grpc/infer_stream_reactor.h"  // instantiated by each front end
#include "server/grpc/infer_unary_reactor.h"
#include "server/grpc/raw_message.h"
#include "server/grpc/unary_rpc.h"

namespace neuronserve {

template <GrpcInferCall Call>
grpc::ServerUnaryReactor* ServeInfer(const CallGuard& guard, const InferContext& infer,
                                     const RawUnaryCall& call) {
  CallerCheck check = guard.Check(call.context, Call::kUnaryRpc,
                                  [&] { return ParsedName(*call.request, Call::kModelName); });
  if (!check.status.ok()) return FinishUnaryNow(call.context, check.status);
  return InferUnaryReactor<Call>::Start(infer, call.context, call.request, call.response,
                                        std::move(check.identity));
}

template <GrpcInferCall Call>
grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* ServeInferStream(
    const CallGuard& guard, const InferContext& infer, grpc::CallbackServerContext* context) {
  CallerCheck check = guard.Check(context, Call::kStreamRpc);
  if (!check.status.ok()) {
    return new RefusedReactor<grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>>(
        check.status);
  }
  return new InferStreamReactor<Call>(infer, context, std::move(check.identity));
}

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_INFER_RPC_H_
