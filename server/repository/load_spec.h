// ModelConfig (proto) -> LoadSpec (core/): what to load and where to place it.
#ifndef NEURON_SERVE_SERVER_REPOSITORY_LOAD_SPEC_H_
#define NEURON_SERVE_SERVER_REPOSITORY_LOAD_SPEC_H_

#include <memory>
#include <string>

#include "core/lifecycle/model_registry.h"
#include "neuronserve/v1/model_config.pb.h"

namespace neuronserve {

// `source`: where the bytes came from; `persist` records the model in the state
// directory once READY (the config travels with it in text format).
LoadSpec LoadSpecFromConfig(const v1::ModelConfig& config, std::shared_ptr<const std::string> neff,
                            ModelSource source, bool persist);

// `base` with every field `overrides` sets (name, version, placement, queue, core count) replaced.
v1::ModelConfig MergeConfig(v1::ModelConfig base, const v1::ModelConfig& overrides);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REPOSITORY_LOAD_SPEC_H_
