// Which message field carries a tensor of each dtype, and the conversions between a field's
// values and the tensor's element bytes on the device.
//
// A request's tensor travels either as raw_data (the device's own little-endian bytes, for every
// dtype) or in a typed field: float_data (float32; float16 and bfloat16 converted), int32_data
// (int8, int16, int32), uint32_data (uint8, uint16, uint32), int64_data, uint64_data. Where the
// field's element is the tensor's element (float32 in float_data, int64 in int64_data, ...) the
// bytes go to the device as they are; otherwise they are converted here: narrowing integers is
// range-checked, floats narrow to float16/bfloat16 round-to-nearest-even keeping NaN and
// infinities, and every widening (device to response) is exact.
//
// Front-end neutral (no protobuf): the gRPC front ends point these functions at their messages'
// fields. Thread safety: pure functions; call them from any thread.
#ifndef NEURON_SERVE_CORE_SERVING_REQUEST_TENSOR_FIELDS_H_
#define NEURON_SERVE_CORE_SERVING_REQUEST_TENSOR_FIELDS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/types/span.h"
#include "base/dtype.h"

namespace neuronserve {

// kBool: one byte per value, 0 or 1 (the Open Inference Protocol's bool_contents), for a 1-byte
// integer tensor (int8, uint8); never a dtype's typed field.
enum class ValueField { kNone, kRaw, kFloat, kInt32, kUInt32, kInt64, kUInt64, kBool };

// "raw_data", "float_data", "int32_data", ...; "no values" for kNone (the native API's names;
// request_validation.h's FieldNaming lets another front end name them its way).
std::string_view ValueFieldName(ValueField field);
// Bytes per value in the field (1 for raw_data, whose values are bytes).
size_t ValueFieldElementSize(ValueField field);

// The typed field of `dtype`: kFloat for float32, float16, bfloat16; kInt32 for int8..int32;
// kUInt32 for uint8..uint32; kInt64; kUInt64; kRaw for every other dtype (fp8, fp32r, unknown).
ValueField TypedFieldOf(DataType dtype);
// True when `field` may carry a tensor of `dtype`: raw_data always, else its typed field, and
// kBool for int8 and uint8.
bool FieldCarries(ValueField field, DataType dtype);
// True when the field's values are the tensor's element bytes as they are (raw_data, or a
// typed field whose value has the dtype's width), so no conversion is needed either way.
bool FieldIsElementLayout(ValueField field, DataType dtype);

// The first value of a narrowing conversion that does not fit the dtype.
struct OutOfRangeValue {
  size_t index;
  int64_t value;  // as given (a uint32 value fits)
  int64_t min;
  int64_t max;
};

// Converts `count` values of the typed field of `dtype` at `values` into `count` elements of
// `dtype` at `elements` (count * DataTypeSize(dtype) bytes). For the dtypes whose typed field
// is wider than their element (float16, bfloat16, int8, int16, uint8, uint16); a no-op for the
// others. Returns the first out-of-range integer, if any (then `elements` is partly written
// and must not be used).
std::optional<OutOfRangeValue> NarrowToElements(DataType dtype, const void* values, size_t count,
                                                absl::Span<uint8_t> elements);

// Converts `count` elements of `dtype` at `elements` into `count` values of its typed field at
// `values` (count * ValueFieldElementSize(TypedFieldOf(dtype)) bytes), exactly. For the same
// dtypes as NarrowToElements; a no-op for the others.
void WidenToField(DataType dtype, absl::Span<const uint8_t> elements, void* values, size_t count);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_REQUEST_TENSOR_FIELDS_H_
