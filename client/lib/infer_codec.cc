#include "client/lib/infer_codec.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "base/float_formats.h"
#include "base/v2_datatype_name.h"

namespace neuronserve::client {
namespace {

// The 16-bit float format of `type`, if it is one.
std::optional<FloatFormat> HalfFormatOf(std::optional<DataType> type) {
  if (type == DataType::kFloat16) return neuronserve::kFloat16Format;
  if (type == DataType::kBFloat16) return neuronserve::kBFloat16Format;
  return std::nullopt;
}

// Little-endian `size`-byte element at `bytes`, zero-extended.
uint64_t LoadLittleEndian(const uint8_t* bytes, size_t size) {
  uint64_t value = 0;
  for (size_t i = 0; i < size; ++i) value |= uint64_t{bytes[i]} << (8 * i);
  return value;
}

void AppendLittleEndian(uint64_t value, size_t size, std::string& out) {
  for (size_t i = 0; i < size; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void AppendLittleEndian(uint64_t value, size_t size, std::vector<uint8_t>& out) {
  for (size_t i = 0; i < size; ++i) out.push_back(static_cast<uint8_t>((value >> (8 * i)) & 0xff));
}

// Sign-extends the low `size` bytes of `bits`.
int64_t SignExtend(uint64_t bits, size_t size) {
  if (size >= 8) return static_cast<int64_t>(bits);
  const unsigned shift = 64 - 8 * static_cast<unsigned>(size);
  return static_cast<int64_t>(bits << shift) >> shift;
}

bool IsSignedInt(DataType type) {
  return type == DataType::kInt8 || type == DataType::kInt16 || type == DataType::kInt32;
}
bool IsUnsignedInt(DataType type) {
  return type == DataType::kUInt8 || type == DataType::kUInt16 || type == DataType::kUInt32;
}

// float32 numbers of a tensor as `type`'s raw_data (float32 bytes unless `type` is float16 or
// bfloat16, which are rounded to nearest even).
void AppendFloatsRaw(absl::Span<const float> values, std::optional<DataType> type,
                     std::string& raw) {
  if (std::optional<FloatFormat> half = HalfFormatOf(type)) {
    raw.reserve(raw.size() + 2 * values.size());
    for (float value : values) AppendLittleEndian(EncodeFloat(*half, value), 2, raw);
    return;
  }
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

// The typed fields of one tensor of a message, so that the native (float_data, int32_data, ...)
// and the v2 (fp32_contents, int_contents, ...) encodings share one conversion.
struct TypedFields {
  google::protobuf::RepeatedField<float>* floats;
  google::protobuf::RepeatedField<int32_t>* int32s;
  google::protobuf::RepeatedField<uint32_t>* uint32s;
  google::protobuf::RepeatedField<int64_t>* int64s;
  google::protobuf::RepeatedField<uint64_t>* uint64s;
};

// True when `type` has a typed field: float32 and every integer type.
bool HasTypedField(DataType type) {
  return type == DataType::kFloat32 || IsSignedInt(type) || IsUnsignedInt(type) ||
         type == DataType::kInt64 || type == DataType::kUInt64;
}

// Element bytes of `type` in the typed field that carries it; false when no field fits (then the
// caller sends raw bytes), including bytes that are not whole elements, which the server refuses
// with its own message.
bool EncodeTyped(absl::Span<const uint8_t> bytes, DataType type, const TypedFields& fields) {
  const size_t size = DataTypeSize(type);
  if (!HasTypedField(type) || size == 0 || bytes.size() % size != 0) return false;
  const size_t count = bytes.size() / size;
  if (type == DataType::kFloat32) {
    fields.floats->Reserve(static_cast<int>(count));
    for (size_t i = 0; i < count; ++i) {
      fields.floats->Add(
          std::bit_cast<float>(static_cast<uint32_t>(LoadLittleEndian(&bytes[4 * i], 4))));
    }
  } else if (IsSignedInt(type)) {
    fields.int32s->Reserve(static_cast<int>(count));
    for (size_t i = 0; i < count; ++i) {
      fields.int32s->Add(
          static_cast<int32_t>(SignExtend(LoadLittleEndian(&bytes[size * i], size), size)));
    }
  } else if (IsUnsignedInt(type)) {
    fields.uint32s->Reserve(static_cast<int>(count));
    for (size_t i = 0; i < count; ++i) {
      fields.uint32s->Add(static_cast<uint32_t>(LoadLittleEndian(&bytes[size * i], size)));
    }
  } else if (type == DataType::kInt64) {
    fields.int64s->Reserve(static_cast<int>(count));
    for (size_t i = 0; i < count; ++i) {
      fields.int64s->Add(static_cast<int64_t>(LoadLittleEndian(&bytes[8 * i], 8)));
    }
  } else {
    fields.uint64s->Reserve(static_cast<int>(count));
    for (size_t i = 0; i < count; ++i) fields.uint64s->Add(LoadLittleEndian(&bytes[8 * i], 8));
  }
  return true;
}

absl::Status Malformed(const v1::OutputTensor& output, absl::string_view why) {
  return absl::InternalError(absl::StrCat("output ", output.name(), ": ", why));
}

// The typed field's values, checked to fit `type` and the element count, as element bytes.
template <typename Field>
absl::Status DecodeIntegers(const v1::OutputTensor& output, const Field& field, DataType type,
                            uint64_t elements, std::vector<uint8_t>& bytes) {
  if (static_cast<uint64_t>(field.size()) != elements) {
    return Malformed(output, absl::StrCat(field.size(), " values for a shape of ", elements,
                                          " elements"));
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
  const auto wrong_field = [&](absl::string_view field) {
    return Malformed(output, absl::StrCat(field, " cannot carry dtype ", decoded.dtype));
  };

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
    if (absl::Status status = DecodeIntegers(output, output.int32_data(), *type, elements,
                                             decoded.bytes);
        !status.ok()) {
      return status;
    }
  } else if (output.uint32_data_size() > 0) {
    if (!type || !IsUnsignedInt(*type)) return wrong_field("uint32_data");
    if (absl::Status status = DecodeIntegers(output, output.uint32_data(), *type, elements,
                                             decoded.bytes);
        !status.ok()) {
      return status;
    }
  } else if (output.int64_data_size() > 0) {
    if (type != DataType::kInt64) return wrong_field("int64_data");
    if (absl::Status status = DecodeIntegers(output, output.int64_data(), *type, elements,
                                             decoded.bytes);
        !status.ok()) {
      return status;
    }
  } else if (output.uint64_data_size() > 0) {
    if (type != DataType::kUInt64) return wrong_field("uint64_data");
    if (absl::Status status = DecodeIntegers(output, output.uint64_data(), *type, elements,
                                             decoded.bytes);
        !status.ok()) {
      return status;
    }
  }

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
      decoded.values[i] = std::bit_cast<float>(
          static_cast<uint32_t>(LoadLittleEndian(&decoded.bytes[4 * i], 4)));
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

// The dtype a NamedTensor says it has: float32 when it names none; nullopt for a name this
// client does not know (its bytes go raw, and the server judges it).
std::optional<DataType> TensorType(const NamedTensor& tensor) {
  return tensor.dtype.empty() ? std::optional<DataType>(DataType::kFloat32)
                              : DataTypeFromName(tensor.dtype);
}

// True when the tensor's values go in `values` (float32 numbers) rather than `bytes`.
bool UsesValues(const NamedTensor& tensor) {
  return !tensor.values.empty() || tensor.bytes.empty();
}

// Whether a v2 request may carry the tensor in `contents`: the protocol has no typed field for
// FP16 and BF16 (nor for fp8 and unknown dtypes), and bytes must be whole elements.
bool FitsV2Contents(const NamedTensor& tensor, std::optional<DataType> type) {
  if (!type) return false;
  if (UsesValues(tensor)) return *type == DataType::kFloat32;
  return HasTypedField(*type) && tensor.bytes.size() % DataTypeSize(*type) == 0;
}

absl::Status MalformedV2(const inference::ModelInferResponse::InferOutputTensor& output,
                         absl::string_view why) {
  return absl::InternalError(absl::StrCat("output ", output.name(), ": ", why));
}

// A response parameter in microseconds, 0 when the server sent none.
absl::Duration MicrosecondsParameter(const inference::ModelInferResponse& response,
                                     const std::string& name) {
  const auto found = response.parameters().find(name);
  if (found == response.parameters().end()) return absl::ZeroDuration();
  const inference::InferParameter& parameter = found->second;
  if (parameter.has_int64_param()) return absl::Microseconds(parameter.int64_param());
  if (parameter.has_uint64_param()) {
    return absl::Microseconds(static_cast<int64_t>(parameter.uint64_param()));
  }
  return absl::ZeroDuration();
}

// Moves one v2 output (and its raw bytes, when the response is raw) into the native output
// message, so that one decoder checks and decodes both protocols' outputs.
absl::StatusOr<v1::OutputTensor> ToNativeOutput(
    inference::ModelInferResponse::InferOutputTensor& output, std::string* raw) {
  v1::OutputTensor native;
  native.set_name(output.name());
  const std::optional<DataType> type = DataTypeFromV2Name(output.datatype());
  // A name this client does not know (a newer server's) stays lower-cased, as the native
  // protocol would name it; its bytes are decoded as raw.
  native.set_dtype(type ? std::string(DataTypeName(*type))
                        : absl::AsciiStrToLower(output.datatype()));
  for (int64_t dim : output.shape()) {
    if (dim < 0 || dim > std::numeric_limits<uint32_t>::max()) {
      return MalformedV2(output, absl::StrCat("dimension ", dim, " of its shape is out of range"));
    }
    native.add_shape(static_cast<uint32_t>(dim));
  }
  inference::InferTensorContents& contents = *output.mutable_contents();
  if (contents.fp64_contents_size() > 0 || contents.bytes_contents_size() > 0) {
    return MalformedV2(
        output, absl::StrCat("fp64_contents or bytes_contents cannot carry ", output.datatype()));
  }
  if (contents.bool_contents_size() > 0) {
    // BOOL values answer a 1-byte integer tensor: 0 or 1 each.
    if (type == DataType::kUInt8) {
      for (bool value : contents.bool_contents()) native.add_uint32_data(value ? 1 : 0);
    } else if (type == DataType::kInt8) {
      for (bool value : contents.bool_contents()) native.add_int32_data(value ? 1 : 0);
    } else {
      return MalformedV2(output, absl::StrCat("bool_contents cannot carry ", output.datatype()));
    }
  }
  native.mutable_float_data()->Swap(contents.mutable_fp32_contents());
  if (native.int32_data_size() > 0 && contents.int_contents_size() > 0) {
    return MalformedV2(output, "its values are in more than one field");
  }
  if (native.int32_data_size() == 0) {
    native.mutable_int32_data()->Swap(contents.mutable_int_contents());
  }
  if (native.uint32_data_size() > 0 && contents.uint_contents_size() > 0) {
    return MalformedV2(output, "its values are in more than one field");
  }
  if (native.uint32_data_size() == 0) {
    native.mutable_uint32_data()->Swap(contents.mutable_uint_contents());
  }
  native.mutable_int64_data()->Swap(contents.mutable_int64_contents());
  native.mutable_uint64_data()->Swap(contents.mutable_uint64_contents());
  if (raw != nullptr) native.mutable_raw_data()->swap(*raw);
  return native;
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
    input->set_dtype(tensor.dtype);
    // nullopt for a name this client does not know: its bytes go raw, and the server judges it.
    const std::optional<DataType> type =
        tensor.dtype.empty() ? std::optional<DataType>(DataType::kFloat32)
                             : DataTypeFromName(tensor.dtype);
    if (!tensor.values.empty() || tensor.bytes.empty()) {
      if (options.raw) {
        AppendFloatsRaw(tensor.values, type, *input->mutable_raw_data());
      } else {
        input->mutable_float_data()->Add(tensor.values.begin(), tensor.values.end());
      }
    } else if (options.raw || !type ||
               !EncodeTyped(tensor.bytes, *type,
                            {input->mutable_float_data(), input->mutable_int32_data(),
                             input->mutable_uint32_data(), input->mutable_int64_data(),
                             input->mutable_uint64_data()})) {
      input->set_raw_data(tensor.bytes.data(), tensor.bytes.size());
    }
  }
  for (const std::string& output : options.outputs) request.add_outputs(output);
  // Explicit, though it is the server's default too, so a request with no inputs still gets the
  // form asked for.
  request.set_response_form(options.raw ? v1::TENSOR_FORM_RAW : v1::TENSOR_FORM_TYPED);
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

inference::ModelInferRequest BuildModelInferRequest(const std::string& model,
                                                    const std::vector<NamedTensor>& inputs,
                                                    const InferOptions& options) {
  inference::ModelInferRequest request;
  request.set_model_name(model);
  request.set_model_version(options.version);
  request.set_id(options.id);
  // One form for the whole request: the protocol forbids contents beside raw_input_contents.
  bool typed = !options.raw;
  for (const NamedTensor& tensor : inputs) {
    if (!FitsV2Contents(tensor, TensorType(tensor))) typed = false;
  }
  for (const NamedTensor& tensor : inputs) {
    const std::optional<DataType> type = TensorType(tensor);
    inference::ModelInferRequest::InferInputTensor* input = request.add_inputs();
    input->set_name(tensor.name);
    input->set_datatype(type ? V2DatatypeName(*type) : absl::AsciiStrToUpper(tensor.dtype));
    input->mutable_shape()->Add(tensor.shape.begin(), tensor.shape.end());
    inference::InferTensorContents* contents = input->mutable_contents();
    if (UsesValues(tensor)) {
      if (typed) {
        contents->mutable_fp32_contents()->Add(tensor.values.begin(), tensor.values.end());
      } else {
        AppendFloatsRaw(tensor.values, type, *request.add_raw_input_contents());
      }
    } else if (typed) {
      EncodeTyped(tensor.bytes, *type,
                  {contents->mutable_fp32_contents(), contents->mutable_int_contents(),
                   contents->mutable_uint_contents(), contents->mutable_int64_contents(),
                   contents->mutable_uint64_contents()});
    } else {
      request.add_raw_input_contents()->assign(tensor.bytes.begin(), tensor.bytes.end());
    }
    // An empty contents message is still a field on the wire; leave it out of raw requests.
    if (!typed) input->clear_contents();
  }
  for (const std::string& output : options.outputs) request.add_outputs()->set_name(output);
  return request;
}

absl::StatusOr<InferResult> DecodeModelInferResponse(inference::ModelInferResponse response) {
  InferResult result;
  result.id = response.id();
  result.version = response.model_version();
  result.queue_time = MicrosecondsParameter(response, "queue_us");
  result.device_time = MicrosecondsParameter(response, "device_us");
  const int raw_count = response.raw_output_contents_size();
  if (raw_count != 0 && raw_count != response.outputs_size()) {
    return absl::InternalError(absl::StrCat("the response has ", raw_count,
                                            " raw_output_contents for ", response.outputs_size(),
                                            " outputs"));
  }
  for (int i = 0; i < response.outputs_size(); ++i) {
    inference::ModelInferResponse::InferOutputTensor& output = *response.mutable_outputs(i);
    absl::StatusOr<v1::OutputTensor> native =
        ToNativeOutput(output, raw_count > 0 ? response.mutable_raw_output_contents(i) : nullptr);
    if (!native.ok()) return native.status();
    absl::StatusOr<OutputTensor> decoded = DecodeOutput(*native);
    if (!decoded.ok()) return decoded.status();
    result.outputs[output.name()] = *std::move(decoded);
  }
  return result;
}

}  // namespace neuronserve::client
