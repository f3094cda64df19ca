#include "client/lib/shared_memory_tensors.h"

#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "client/lib/element_bytes.h"
#include "client/lib/infer_codec.h"
#include "client/lib/output_decoder.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve::client {

uint64_t RawByteSize(const NamedTensor& tensor) {
  if (tensor.shared_memory.has_value()) return 0;
  if (!CarriesValues(tensor)) return tensor.bytes.size();
  return tensor.values.size() * (HalfFormatOf(TensorDataType(tensor)) ? 2 : 4);
}

absl::StatusOr<NamedTensor> WriteSharedMemoryInput(const NamedTensor& tensor,
                                                   absl::Span<uint8_t> region,
                                                   const std::string& region_name,
                                                   uint64_t offset) {
  if (tensor.shared_memory.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("input '", tensor.name,
                                                   "' is already in shared memory region '",
                                                   tensor.shared_memory->region, "'"));
  }
  const uint64_t size = RawByteSize(tensor);
  if (offset > region.size() || size > region.size() - offset) {
    return absl::OutOfRangeError(absl::StrCat("input '", tensor.name, "' (", size,
                                              " bytes) does not fit in region '", region_name,
                                              "' of ", region.size(), " bytes at offset ", offset));
  }
  if (CarriesValues(tensor)) {
    // The request encoder's conversion, so the bytes are the ones a raw request would carry.
    std::string raw;
    raw.reserve(size);
    AppendFloatsRaw(tensor.values, TensorDataType(tensor), raw);
    std::memcpy(region.data() + offset, raw.data(), raw.size());
  } else if (size > 0) {
    std::memcpy(region.data() + offset, tensor.bytes.data(), size);
  }
  NamedTensor placed{tensor.name, tensor.shape, {}, tensor.dtype, {}, std::nullopt};
  // float32 values name their dtype, so the request says what the bytes are.
  if (placed.dtype.empty()) placed.dtype = "float32";
  placed.shared_memory = SharedMemorySpan{region_name, offset, size};
  return placed;
}

absl::Status ReadSharedMemoryOutput(absl::Span<const uint8_t> region, OutputTensor& output) {
  if (!output.shared_memory.has_value()) {
    return absl::FailedPreconditionError(
        "this output came in the response, not in shared memory: its values are already set");
  }
  const SharedMemorySpan& span = *output.shared_memory;
  uint64_t size = span.byte_size;
  if (const std::optional<DataType> type = DataTypeFromName(output.dtype)) {
    size = DataTypeSize(*type);
    for (uint32_t dim : output.shape) {
      if (dim != 0 && size > std::numeric_limits<uint64_t>::max() / dim) {
        return absl::OutOfRangeError("the output's shape has more bytes than a uint64 counts");
      }
      size *= dim;
    }
  }
  if (size > span.byte_size) {
    return absl::OutOfRangeError(absl::StrCat("the output has ", size,
                                              " bytes but its span of region '", span.region,
                                              "' has room for ", span.byte_size));
  }
  if (span.offset > region.size() || size > region.size() - span.offset) {
    return absl::OutOfRangeError(absl::StrCat("bytes ", span.offset, "..+", size, " of region '",
                                              span.region, "' lie outside the ", region.size(),
                                              " bytes given for it"));
  }
  // Decoded as if it had come raw in the response: one decoder for every output.
  v1::OutputTensor native;
  native.set_dtype(output.dtype);
  native.mutable_shape()->Add(output.shape.begin(), output.shape.end());
  native.set_raw_data(region.data() + span.offset, size);
  absl::StatusOr<OutputTensor> decoded = DecodeOutput(native);
  if (!decoded.ok()) return decoded.status();
  output.bytes = std::move(decoded->bytes);
  output.values = std::move(decoded->values);
  return absl::OkStatus();
}

}  // namespace neuronserve::client
