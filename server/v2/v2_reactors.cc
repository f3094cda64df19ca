// The one instantiation of the shared reactors' definitions for V2InferCall.
#include "server/v2/v2_reactors.h"

#include "server/frontend/infer_stream_reactor_impl.h"
#include "server/frontend/infer_unary_reactor_impl.h"

namespace neuronserve {

template class InferUnaryReactor<V2InferCall>;
template class InferStreamReactor<V2InferCall>;

}  // namespace neuronserve
