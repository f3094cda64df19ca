// The shared inference reactors (server/frontend/) for NativeInferCall: the reactors of
// neuronserve.v1 Infer and InferStream. Declared here as instantiated once, in native_reactors.cc,
// so that the service's file and any other includer do not compile the reactors' definitions again.
//
// Thread safety and ownership: as InferUnaryReactor and InferStreamReactor say.
#ifndef NEURON_SERVE_SERVER_NATIVE_NATIVE_REACTORS_H_
#define NEURON_SERVE_SERVER_NATIVE_NATIVE_REACTORS_H_

#include "server/frontend/infer_stream_reactor.h"
#include "server/frontend/infer_unary_reactor.h"
#include "server/native/native_infer_call.h"

namespace neuronserve {

extern template class InferUnaryReactor<NativeInferCall>;
extern template class InferStreamReactor<NativeInferCall>;

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_NATIVE_NATIVE_REACTORS_H_
