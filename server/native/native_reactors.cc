// The one instantiation of the shared inference reactors (server/grpc/) for NativeInferCall:
// their definitions are compiled here and nowhere else. The service's file includes only the
// reactors' declarations, so it instantiates no member it does not define inline and links
// against these.
#include "server/grpc/infer_stream_reactor_impl.h"
#include "server/grpc/infer_unary_reactor_impl.h"
#include "server/native/native_infer_call.h"

namespace neuronserve {

template class InferUnaryReactor<NativeInferCall>;
template class InferStreamReactor<NativeInferCall>;

}  // namespace neuronserve
