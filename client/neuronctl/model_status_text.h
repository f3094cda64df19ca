// Human-readable views of v1::ModelStatus: the `neuronctl models` table and the details
// `neuronctl model NAME` (and `load`) print.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_MODEL_STATUS_TEXT_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_MODEL_STATUS_TEXT_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "google/protobuf/repeated_field.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve::neuronctl {

// "READY", "LOADING", ... without the enum's prefix.
std::string ModelStateName(v1::ModelState state);
// "[1, 16]"; "[]" for a scalar.
std::string ShapeText(const google::protobuf::RepeatedField<uint32_t>& shape);
// The cores of every replica: "0, 1" for two one-core replicas, "0-1, 2-3" for two-core ones.
std::string ReplicaCoresText(const v1::ModelStatus& model);
// "1.5 MiB", "512 B": sizes for people.
std::string ByteSizeText(uint64_t bytes);

// NAME VERSION STATE REPLICAS CORES REQUESTS SOURCE, one row per model; "no models loaded"
// when there are none.
void PrintModelsTable(const std::vector<v1::ModelStatus>& models, std::ostream& out);
// Every field of one model, one per line, with its tensors and replicas (each one's cores,
// health, executions, and its tensor sets with the device memory they take).
void PrintModelDetails(const v1::ModelStatus& model, std::ostream& out);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_MODEL_STATUS_TEXT_H_
