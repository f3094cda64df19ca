// Checks a request against the model's tensors before anything reaches the device.
//
// Every error names the model, the tensor, what was expected and what came, so a client can
// fix its request from the message alone. Tensors of every dtype are served: each input comes
// in raw_data or in the typed field of its dtype (tensor_fields.h), and the inputs that need a
// conversion (float16 from float_data, int8 from int32_data, ...) are converted here, before
// the request is queued, so that a core's worker only copies bytes.
#ifndef NEURON_SERVE_CORE_SERVING_REQUEST_REQUEST_VALIDATION_H_
#define NEURON_SERVE_CORE_SERVING_REQUEST_REQUEST_VALIDATION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "base/shape.h"  // ShapeToString, the form messages use
#include "core/nrt/nrt_handles.h"
#include "core/serving/request/tensor_fields.h"

namespace neuronserve {

// One input as the request carries it; views into the request, which must outlive it.
struct GivenInput {
  absl::string_view name;
  // Empty when the request gave no shape (then only the element count is checked).
  absl::Span<const uint32_t> shape;
  // The dtype the request states; empty when it states none.
  absl::string_view dtype;
  // The value field the request filled, and a second one when it filled two (an error).
  ValueField field = ValueField::kNone;
  ValueField second_field = ValueField::kNone;
  // The field's values: `count` of them (bytes, for raw_data), packed.
  const void* values = nullptr;
  size_t count = 0;
  // The shared-memory region the raw bytes are in, when the request put them in one (errors
  // name it rather than the raw field); empty otherwise.
  absl::string_view shared_memory_region;

  // Notes a value field the request filled (`count` values at `values`; nothing when count is
  // 0): the first becomes the values, a second is remembered so that validation refuses the
  // pair.
  void NoteField(ValueField filled, const void* filled_values, size_t filled_count) {
    if (filled_count == 0) return;
    if (field != ValueField::kNone) {
      if (second_field == ValueField::kNone) second_field = filled;
      return;
    }
    field = filled;
    values = filled_values;
    count = filled_count;
  }
};

// How a front end names value fields and dtypes in its error messages: the native API says
// "raw_data", "int64_data" and "float32"; the Open Inference Protocol "raw_input_contents",
// "int64_contents" and "FP32".
struct FieldNaming {
  std::string (*field)(ValueField);
  std::string (*dtype)(DataType);
};
// The native API's names (ValueFieldName, DataTypeName).
const FieldNaming& NativeFieldNaming();

// Matches `given` to the model's `inputs` by name: each exactly once, with the right dtype (when
// stated), shape, field and size, and every narrowed integer in range. On success ordered[i]
// holds the device bytes of inputs[i]: the request's own bytes where they are the tensor's
// element layout, else converted[i], which this fills. Both spans need inputs.size() slots;
// `converted` keeps its buffers' capacity for reuse.
//
// A model with a batch dimension (`max_rows` > 0, its max_batch_size) has row specs as `inputs`
// (leading dimension 1, the byte size of one row): a request carries 1..max_rows rows, the
// same number in every input (its leading dimension, or, for an input without a shape, what its
// values make), and the other dimensions exact; *rows (when non-null) gets the number. Without
// one (max_rows 0) every tensor is whole and *rows is 1.
absl::Status MatchInputs(absl::string_view model, const std::vector<TensorSpec>& inputs,
                         absl::Span<const GivenInput> given,
                         absl::Span<absl::Span<const uint8_t>> ordered,
                         absl::Span<std::vector<uint8_t>> converted,
                         const FieldNaming& naming = NativeFieldNaming(), uint32_t max_rows = 0,
                         uint32_t* rows = nullptr);

// How the outputs of a response travel.
enum class OutputForm { kRaw, kFloat, kTyped };

// The field each of the model's `outputs` goes in under `form` (kRaw: raw_data; kTyped: the
// dtype's typed field; kFloat: float_data, for float32, float16 and bfloat16 only). Only the
// selected outputs are checked; fields[j] is set for every j. INVALID_ARGUMENT naming the
// output when float_data was asked for a dtype it cannot carry.
absl::Status ChooseOutputFields(absl::string_view model, const std::vector<TensorSpec>& outputs,
                                absl::Span<const bool> selected, OutputForm form,
                                absl::Span<ValueField> fields);

// Which of the model's outputs to return: all when `wanted` is empty, else exactly those named
// (unknown or repeated names are INVALID_ARGUMENT). selected[j] is for outputs[j]; `selected`
// must have outputs.size() slots.
absl::Status SelectOutputs(absl::string_view model, const std::vector<TensorSpec>& outputs,
                           absl::Span<const absl::string_view> wanted, absl::Span<bool> selected);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_REQUEST_REQUEST_VALIDATION_H_
