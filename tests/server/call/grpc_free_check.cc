// A build-time check that server/call stays protocol-neutral: this file includes every header
// of server/call and fails to compile when any of them brings in a gRPC header, directly or
// through another. Every gRPC header (C core and C++) includes gRPC's port_platform.h, whose
// include guards are tested below. Compiled on its own (an object library of its own, never in
// a unity batch), since a batch's other files include gRPC themselves.
#include "server/call/infer_call.h"
#include "server/call/infer_context.h"
#include "server/call/output_bytes_hook.h"
#include "server/call/shared_memory_calls.h"

#if defined(GRPC_SUPPORT_PORT_PLATFORM_H) || defined(GRPC_IMPL_CODEGEN_PORT_PLATFORM_H)
#error "a header of server/call includes gRPC; move the gRPC part to server/grpc"
#endif
