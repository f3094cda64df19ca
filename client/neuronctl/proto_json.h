// --output=json for results that are API messages: the message as protobuf's canonical JSON
// mapping, with the .proto field names (snake_case, as in the API reference) and every field
// present even when it has its default value, so scripts can rely on keys existing.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_PROTO_JSON_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_PROTO_JSON_H_

#include <ostream>

#include "absl/status/status.h"
#include "google/protobuf/message.h"

namespace neuronserve::neuronctl {

// Writes `message` as one pretty-printed JSON object and a newline.
absl::Status PrintProtoJson(const google::protobuf::Message& message, std::ostream& out);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_PROTO_JSON_H_
