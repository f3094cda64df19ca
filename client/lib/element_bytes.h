// A tensor's elements as the wire carries them: little-endian bytes of a dtype's size, and the
// 16-bit float formats whose numbers travel as float32 values. Shared by the request encoders
// and the response decoder of both protocols (infer_codec.h), which must agree on every byte,
// and by neuronctl, which makes up random inputs and prints outputs element by element.
//
// Internal to the tree (not installed with the client library). Thread safety: pure functions.
#ifndef NEURON_SERVE_CLIENT_LIB_ELEMENT_BYTES_H_
#define NEURON_SERVE_CLIENT_LIB_ELEMENT_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "base/dtype.h"
#include "base/float_formats.h"

namespace neuronserve::client {

// The 16-bit float format of `type`, if it is one (float16, bfloat16).
std::optional<FloatFormat> HalfFormatOf(std::optional<DataType> type);

// Little-endian `size`-byte element at `bytes`, zero-extended.
uint64_t LoadLittleEndian(const uint8_t* bytes, size_t size);

// The low `size` bytes of `value`, little-endian, appended to `out`.
void AppendLittleEndian(uint64_t value, size_t size, std::string& out);
void AppendLittleEndian(uint64_t value, size_t size, std::vector<uint8_t>& out);

// Sign-extends the low `size` bytes of `bits`.
int64_t SignExtend(uint64_t bits, size_t size);

// float32 numbers of a tensor as `type`'s raw bytes, appended to `raw`: float32 bytes unless
// `type` is float16 or bfloat16, which are rounded to nearest even.
void AppendFloatsRaw(absl::Span<const float> values, std::optional<DataType> type,
                     std::string& raw);

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_ELEMENT_BYTES_H_
