#include "client/lib/infer_codec.h"

#include <bit>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace neuronserve::client {
namespace {

// raw_data is little-endian IEEE-754 by definition; on a little-endian host that is the memory
// layout of float, so the bytes are copied as they are.
void AppendRaw(absl::Span<const float> values, std::string& raw) {
  const size_t offset = raw.size();
  raw.resize(offset + values.size() * sizeof(float));
  char* out = raw.data() + offset;
  if constexpr (std::endian::native == std::endian::little) {
    if (!values.empty()) std::memcpy(out, values.data(), values.size() * sizeof(float));
  } else {
    for (float value : values) {
      uint32_t bits = std::bit_cast<uint32_t>(value);
      for (int byte = 0; byte < 4; ++byte) *out++ = static_cast<char>((bits >> (8 * byte)) & 0xff);
    }
  }
}

std::vector<float> FromRaw(const std::string& raw) {
  std::vector<float> values(raw.size() / sizeof(float));
  if constexpr (std::endian::native == std::endian::little) {
    if (!values.empty()) std::memcpy(values.data(), raw.data(), values.size() * sizeof(float));
  } else {
    for (size_t i = 0; i < values.size(); ++i) {
      uint32_t bits = 0;
      for (int byte = 0; byte < 4; ++byte) {
        bits |= uint32_t{static_cast<uint8_t>(raw[4 * i + byte])} << (8 * byte);
      }
      values[i] = std::bit_cast<float>(bits);
    }
  }
  return values;
}

absl::StatusOr<OutputTensor> DecodeOutput(const v1::OutputTensor& output) {
  OutputTensor decoded;
  decoded.shape.assign(output.shape().begin(), output.shape().end());
  if (!output.raw_data().empty()) {
    if (output.raw_data().size() % sizeof(float) != 0) {
      return absl::InternalError(absl::StrCat("output ", output.name(), ": raw_data of ",
                                              output.raw_data().size(),
                                              " bytes is not a whole number of float32 values"));
    }
    decoded.values = FromRaw(output.raw_data());
  } else {
    decoded.values.assign(output.float_data().begin(), output.float_data().end());
  }
  uint64_t elements = 1;
  for (uint32_t dim : decoded.shape) elements *= dim;
  if (elements != decoded.values.size()) {
    return absl::InternalError(absl::StrCat("output ", output.name(), ": ", decoded.values.size(),
                                            " values for a shape of ", elements, " elements"));
  }
  return decoded;
}

}  // namespace

v1::InferRequest BuildInferRequest(const std::string& model, const std::vector<NamedTensor>& inputs,
                                   const InferOptions& options) {
  v1::InferRequest request;
  request.set_id(options.id);
  request.set_model(model);
  request.set_version(options.version);
  for (const NamedTensor& tensor : inputs) {
    v1::InputTensor* input = request.add_inputs();
    input->set_name(tensor.name);
    input->mutable_shape()->Add(tensor.shape.begin(), tensor.shape.end());
    if (options.raw) {
      AppendRaw(tensor.values, *input->mutable_raw_data());
    } else {
      input->mutable_float_data()->Add(tensor.values.begin(), tensor.values.end());
    }
  }
  for (const std::string& output : options.outputs) request.add_outputs(output);
  // Explicit, though it is the server's default too, so a request with no inputs still gets the
  // form asked for.
  request.set_response_form(options.raw ? v1::TENSOR_FORM_RAW : v1::TENSOR_FORM_FLOAT);
  return request;
}

absl::StatusOr<InferResult> DecodeInferResponse(const v1::InferResponse& response) {
  InferResult result;
  result.id = response.id();
  result.version = response.version();
  result.queue_time = absl::Microseconds(static_cast<int64_t>(response.queue_us()));
  result.device_time = absl::Microseconds(static_cast<int64_t>(response.device_us()));
  for (const v1::OutputTensor& output : response.outputs()) {
    absl::StatusOr<OutputTensor> decoded = DecodeOutput(output);
    if (!decoded.ok()) return decoded.status();
    result.outputs[output.name()] = *std::move(decoded);
  }
  return result;
}

}  // namespace neuronserve::client
