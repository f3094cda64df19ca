// A protobuf message as Triton's REST answers print it (GET /v2/models/{name}/config): the
// proto field names, every primitive field (defaults included; a oneof's member only when
// set), empty repeated fields as [] and maps as {}, sub-messages only when present, enums by
// name, and 64-bit integers as JSON numbers (protobuf's own JSON printer writes them as strings,
// which Triton's readers of the config do not take). Map keys are strings, as JSON requires.
//
// Thread safety: a pure function.
#ifndef NEURON_SERVE_SERVER_REST_TRITON_JSON_H_
#define NEURON_SERVE_SERVER_REST_TRITON_JSON_H_

#include "google/protobuf/message.h"
#include "nlohmann/json.hpp"

namespace neuronserve {

nlohmann::json TritonJson(const google::protobuf::Message& message);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REST_TRITON_JSON_H_
