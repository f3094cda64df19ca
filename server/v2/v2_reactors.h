// The shared inference reactors (server/frontend/) for V2InferCall: the reactors of
// inference ModelInfer and ModelStreamInfer. Declared here as instantiated once, in v2_reactors.cc,
// so that the service's file and any other includer do not compile the reactors' definitions again.
//
// Thread safety and ownership: as InferUnaryReactor and InferStreamReactor say.
#ifndef NEURON_SERVE_SERVER_V2_V2_REACTORS_H_
#define NEURON_SERVE_SERVER_V2_V2_REACTORS_H_

#include "server/frontend/infer_stream_reactor.h"
#include "server/frontend/infer_unary_reactor.h"
#include "server/v2/v2_infer_call.h"

namespace neuronserve {

extern template class InferUnaryReactor<V2InferCall>;
extern template class InferStreamReactor<V2InferCall>;

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_V2_V2_REACTORS_H_
