#include "client/lib/output_decoder.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "base/float_formats.h"
#include "client/lib/element_bytes.h"
#include "client/lib/typed_fields.h"

namespace neuronserve::client {
namespace {

absl::Status Malformed(const v1::OutputTensor& output, absl::string_view why) {
  return absl::InternalError(absl::StrCat("output ", output.name(), ": ", why));
}

// The typed field's values, checked to fit `type` and the element count, as element bytes.
template <typename Field>
absl::Status DecodeIntegers(const v1::OutputTensor& output, const Field& field, DataType type,
                            uint64_t elements, std::vector<uint8_t>& bytes) {
  if (static_cast<uint64_t>(field.size()) != elements) {
    return Malformed(output,
                     absl::StrCat(field.size(), " values for a shape of ", elements, " elements"));
  }
  const size_t size = DataTypeSize(type);
  bytes.reserve(elements * size);
  for (auto value : field) {
    const uint64_t bits = static_cast<uint64_t>(value);
    bool fits = true;
    if (size < 8) {
      if constexpr (std::is_signed_v<decltype(value)>) {
        fits = SignExtend(bits, size) == static_cast<int64_t>(value);
      } else {
        fits = (bits >> (8 * size)) == 0;
      }
    }
    if (!fits) {
      return Malformed(output, absl::StrCat("value ", value, " is out of the range of ",
                                            std::string(DataTypeName(type))));
    }
    AppendLittleEndian(bits, size, bytes);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<OutputTensor> DecodeOutput(const v1::OutputTensor& output) {
  OutputTensor decoded;
  decoded.shape.assign(output.shape().begin(), output.shape().end());
  decoded.dtype = output.dtype().empty() ? "float32" : output.dtype();
  uint64_t elements = 1;
  for (uint32_t dim : decoded.shape) {
    if (dim != 0 && elements > std::numeric_limits<uint64_t>::max() / dim) {
      return Malformed(output, "its shape has more elements than a uint64 counts");
    }
    elements *= dim;
  }
  // nullopt for "unknown" and for names this client does not know (a newer server's): raw only.
  const std::optional<DataType> type = DataTypeFromName(decoded.dtype);
  const size_t element_size = type ? DataTypeSize(*type) : 0;
  const int fields = !output.raw_data().empty() + (output.float_data_size() > 0) +
                     (output.int32_data_size() > 0) + (output.uint32_data_size() > 0) +
                     (output.int64_data_size() > 0) + (output.uint64_data_size() > 0);
  if (fields > 1) return Malformed(output, "its values are in more than one field");
  if (output.has_shared_memory()) {
    if (fields > 0) return Malformed(output, "it went to shared memory but carries values too");
    const v1::SharedMemoryRef& ref = output.shared_memory();
    decoded.shared_memory = SharedMemorySpan{ref.region(), ref.offset(), ref.byte_size()};
    return decoded;
  }
  const auto wrong_field = [&](absl::string_view field) {
    return Malformed(output, absl::StrCat(field, " cannot carry dtype ", decoded.dtype));
  };

  absl::Status integers;  // an integer field's decoding
  if (!output.raw_data().empty()) {
    const std::string& raw = output.raw_data();
    if (element_size == 0 && (elements == 0 || raw.size() % elements != 0)) {
      return Malformed(output, absl::StrCat("raw_data of ", raw.size(),
                                            " bytes is not a whole number of bytes for each of ",
                                            elements, " elements"));
    }
    decoded.bytes.assign(raw.begin(), raw.end());
  } else if (output.float_data_size() > 0) {
    const std::optional<FloatFormat> half = HalfFormatOf(type);
    if (type != DataType::kFloat32 && !half) return wrong_field("float_data");
    if (static_cast<uint64_t>(output.float_data_size()) != elements) {
      return Malformed(output, absl::StrCat(output.float_data_size(), " values for a shape of ",
                                            elements, " elements"));
    }
    decoded.bytes.reserve(elements * element_size);
    for (float value : output.float_data()) {
      if (!half) {
        AppendLittleEndian(std::bit_cast<uint32_t>(value), 4, decoded.bytes);
        continue;
      }
      const uint32_t bits = EncodeFloat(*half, value);
      // The server converts outputs exactly; a value the format cannot hold is not one of them.
      if (!std::isnan(value) && DecodeFloat(*half, bits) != value) {
        return Malformed(output, absl::StrCat("float_data value ", value, " is not a ",
                                              decoded.dtype, " value"));
      }
      AppendLittleEndian(bits, 2, decoded.bytes);
    }
  } else if (output.int32_data_size() > 0) {
    if (!type || !IsSignedInt(*type)) return wrong_field("int32_data");
    integers = DecodeIntegers(output, output.int32_data(), *type, elements, decoded.bytes);
  } else if (output.uint32_data_size() > 0) {
    if (!type || !IsUnsignedInt(*type)) return wrong_field("uint32_data");
    integers = DecodeIntegers(output, output.uint32_data(), *type, elements, decoded.bytes);
  } else if (output.int64_data_size() > 0) {
    if (type != DataType::kInt64) return wrong_field("int64_data");
    integers = DecodeIntegers(output, output.int64_data(), *type, elements, decoded.bytes);
  } else if (output.uint64_data_size() > 0) {
    if (type != DataType::kUInt64) return wrong_field("uint64_data");
    integers = DecodeIntegers(output, output.uint64_data(), *type, elements, decoded.bytes);
  }
  if (!integers.ok()) return integers;

  if (element_size > 0 && decoded.bytes.size() != elements * element_size) {
    return Malformed(output, absl::StrCat(decoded.bytes.size(), " bytes for a shape of ", elements,
                                          " elements of ", decoded.dtype, " (",
                                          elements * element_size, " bytes)"));
  }
  if (element_size == 0 && elements > 0 && decoded.bytes.empty()) {
    return Malformed(output, absl::StrCat("no values for a shape of ", elements, " elements"));
  }

  if (type == DataType::kFloat32) {
    decoded.values.resize(elements);
    for (uint64_t i = 0; i < elements; ++i) {
      decoded.values[i] =
          std::bit_cast<float>(static_cast<uint32_t>(LoadLittleEndian(&decoded.bytes[4 * i], 4)));
    }
  } else if (std::optional<FloatFormat> half = HalfFormatOf(type)) {
    decoded.values.resize(elements);
    for (uint64_t i = 0; i < elements; ++i) {
      decoded.values[i] =
          DecodeFloat(*half, static_cast<uint32_t>(LoadLittleEndian(&decoded.bytes[2 * i], 2)));
    }
  }
  return decoded;
}

}  // namespace neuronserve::client
