// The one instantiation of the shared inference reactors (server/grpc/) for V2InferCall: their
// definitions are compiled here and nowhere else. The service's file includes only the
// reactors' declarations, so it instantiates no member it does not define inline and links
// against these.
#include "server/grpc/infer_stream_reactor_impl.h"
#include "server/grpc/infer_unary_reactor_impl.h"
#include "server/v2/v2_infer_call.h"

namespace neuronserve {

template class InferUnaryReactor<V2InferCall>;
template class InferStreamReactor<V2InferCall>;

}  // namespace neuronserve
