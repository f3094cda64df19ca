// Checks a request against the model's tensors before anything reaches the device.
//
// Every error names the model, the tensor, what was expected and what came, so a client can
// fix its request from the message alone. Only float32 tensors are served: a model with any
// other input or output dtype answers FAILED_PRECONDITION (the model, not the request, is what
// cannot be served).
#ifndef NEURON_SERVE_CORE_INFER_REQUEST_VALIDATION_H_
#define NEURON_SERVE_CORE_INFER_REQUEST_VALIDATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/nrt/nrt_handles.h"

namespace neuronserve {

// One input as the request carries it.
struct GivenInput {
  absl::string_view name;
  // Empty when the request gave no shape (then only the element count is checked).
  absl::Span<const uint32_t> shape;
  // The values: packed floats (float_count of them) or raw little-endian bytes.
  bool has_floats = false;
  size_t float_count = 0;
  bool has_raw = false;
  absl::Span<const uint8_t> bytes;  // the floats' or the raw bytes
};

// "[1,16]"
std::string FormatTensorShape(absl::Span<const uint32_t> shape);

// FAILED_PRECONDITION unless every tensor of the model is float32.
absl::Status CheckServableDtypes(absl::string_view model, const std::vector<TensorSpec>& inputs,
                                 const std::vector<TensorSpec>& outputs);

// Matches `given` to the model's `inputs` by name: each exactly once, right shape and size.
// On success ordered[i] holds the bytes for inputs[i]; `ordered` must have inputs.size() slots.
absl::Status MatchInputs(absl::string_view model, const std::vector<TensorSpec>& inputs,
                         absl::Span<const GivenInput> given,
                         absl::Span<absl::Span<const uint8_t>> ordered);

// Which of the model's outputs to return: all when `wanted` is empty, else exactly those named
// (unknown or repeated names are INVALID_ARGUMENT). selected[j] is for outputs[j]; `selected`
// must have outputs.size() slots.
absl::Status SelectOutputs(absl::string_view model, const std::vector<TensorSpec>& outputs,
                           absl::Span<const absl::string_view> wanted, absl::Span<bool> selected);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_INFER_REQUEST_VALIDATION_H_
