// ModelInfo (core/) -> ModelStatus (proto).
#ifndef NEURON_SERVE_SERVER_NATIVE_MODEL_STATUS_H_
#define NEURON_SERVE_SERVER_NATIVE_MODEL_STATUS_H_

#include "core/serving/model/model_info.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve {

v1::ModelStatus ToModelStatus(const ModelInfo& info);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_NATIVE_MODEL_STATUS_H_
