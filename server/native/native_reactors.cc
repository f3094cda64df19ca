// The one instantiation of the shared reactors' definitions for NativeInferCall.
#include "server/native/native_reactors.h"

#include "server/frontend/infer_stream_reactor_impl.h"
#include "server/frontend/infer_unary_reactor_impl.h"

namespace neuronserve {

template class InferUnaryReactor<NativeInferCall>;
template class InferStreamReactor<NativeInferCall>;

}  // namespace neuronserve
