// The values of an inference call as plain C++ types: what goes in (named float32 tensors over
// the caller's memory), how to ask (InferOptions) and what comes back (decoded outputs).
#ifndef NEURON_SERVE_CLIENT_LIB_INFER_TYPES_H_
#define NEURON_SERVE_CLIENT_LIB_INFER_TYPES_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace neuronserve::client {

// One model input. `values` is borrowed, not copied, until the request is built (i.e. for the
// duration of the Infer or Send call). An empty shape sends none; the server then checks only
// the element count against the model's shape.
struct NamedTensor {
  std::string name;
  std::vector<uint32_t> shape;
  absl::Span<const float> values;
};

struct InferOptions {
  // When given, the version that must be serving (else FAILED_PRECONDITION from the server).
  std::string version;
  // The outputs wanted, by name; empty means all of them.
  std::vector<std::string> outputs;
  // Send values as raw_data (little-endian bytes, which the server writes to the device without
  // a per-element copy) rather than float_data; responses come back in the same form.
  bool raw = true;
  // Echoed in the response. On an InferSession an empty id is assigned ("1", "2", ...).
  std::string id;
  // Deadline of this call; zero means the client's default. Unary Infer only.
  absl::Duration timeout = absl::ZeroDuration();
};

struct OutputTensor {
  std::vector<uint32_t> shape;
  std::vector<float> values;  // row-major, decoded from whichever form the server sent
};

struct InferResult {
  std::map<std::string, OutputTensor> outputs;  // by output name
  std::string id;
  std::string version;         // the version that served the request
  absl::Duration queue_time;   // waiting for a core
  absl::Duration device_time;  // write, execute and read on the device
};

// One answer on an InferSession. `status` is the request's own outcome (the response's error
// field); `result` is filled only when it is OK.
struct InferStreamResult {
  std::string id;
  absl::Status status;
  InferResult result;
};

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_INFER_TYPES_H_
