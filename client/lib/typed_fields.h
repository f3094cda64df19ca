// The typed fields of the two protocols' tensor messages (the native float_data, int32_data, ...
// and the v2 fp32_contents, int_contents, ...): which dtypes have one, and element bytes encoded
// into them, so that both request encoders (infer_codec.h) share one conversion.
//
// Internal to the client library (not installed). Thread safety: pure functions; EncodeTyped
// writes only the fields it is given.
#ifndef NEURON_SERVE_CLIENT_LIB_TYPED_FIELDS_H_
#define NEURON_SERVE_CLIENT_LIB_TYPED_FIELDS_H_

#include <cstdint>

#include "absl/types/span.h"
#include "base/dtype.h"
#include "google/protobuf/repeated_field.h"

namespace neuronserve::client {

// int8, int16, int32: carried in the 32-bit signed field.
bool IsSignedInt(DataType type);
// uint8, uint16, uint32: carried in the 32-bit unsigned field.
bool IsUnsignedInt(DataType type);
// True when `type` has a typed field: float32 and every integer type.
bool HasTypedField(DataType type);

// The typed fields of one tensor of a message (borrowed, not owned).
struct TypedFields {
  google::protobuf::RepeatedField<float>* floats;
  google::protobuf::RepeatedField<int32_t>* int32s;
  google::protobuf::RepeatedField<uint32_t>* uint32s;
  google::protobuf::RepeatedField<int64_t>* int64s;
  google::protobuf::RepeatedField<uint64_t>* uint64s;
};

// Element bytes of `type` in the typed field that carries it; false when no field fits (then the
// caller sends raw bytes), including bytes that are not whole elements, which the server refuses
// with its own message.
bool EncodeTyped(absl::Span<const uint8_t> bytes, DataType type, const TypedFields& fields);

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_TYPED_FIELDS_H_
