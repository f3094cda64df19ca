#include "client/lib/infer_codec.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "base/v2_datatype_name.h"
#include "client/lib/element_bytes.h"
#include "client/lib/output_decoder.h"
#include "client/lib/typed_fields.h"

namespace neuronserve::client {
namespace {

// Whether a v2 request may carry the tensor in `contents`: the protocol has no typed field for
// FP16 and BF16 (nor for fp8 and unknown dtypes), and bytes must be whole elements.
bool FitsV2Contents(const NamedTensor& tensor, std::optional<DataType> type) {
  if (!type) return false;
  if (CarriesValues(tensor)) return *type == DataType::kFloat32;
  return HasTypedField(*type) && tensor.bytes.size() % DataTypeSize(*type) == 0;
}

void SetSharedMemoryRef(const SharedMemorySpan& span, v1::SharedMemoryRef& ref) {
  ref.set_region(span.region);
  ref.set_offset(span.offset);
  ref.set_byte_size(span.byte_size);
}

// The three parameters of Triton's system shared memory extension, as tritonclient sets them.
void NameSharedMemory(const SharedMemorySpan& span,
                      google::protobuf::Map<std::string, inference::InferParameter>& parameters) {
  parameters["shared_memory_region"].set_string_param(span.region);
  parameters["shared_memory_byte_size"].set_int64_param(static_cast<int64_t>(span.byte_size));
  if (span.offset != 0) {
    parameters["shared_memory_offset"].set_int64_param(static_cast<int64_t>(span.offset));
  }
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
    inference::ModelInferResponse::InferOutputTensor& output, std::string* raw,
    const std::map<std::string, SharedMemorySpan>& shared_outputs) {
  v1::OutputTensor native;
  native.set_name(output.name());
  // The protocol's answer does not say where an output in shared memory went: the request did.
  if (const auto shared = shared_outputs.find(output.name()); shared != shared_outputs.end()) {
    SetSharedMemoryRef(shared->second, *native.mutable_shared_memory());
  }
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

std::optional<DataType> TensorDataType(const NamedTensor& tensor) {
  return tensor.dtype.empty() ? std::optional<DataType>(DataType::kFloat32)
                              : DataTypeFromName(tensor.dtype);
}

bool CarriesValues(const NamedTensor& tensor) {
  return !tensor.values.empty() || tensor.bytes.empty();
}

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
    if (tensor.shared_memory.has_value()) {
      SetSharedMemoryRef(*tensor.shared_memory, *input->mutable_shared_memory());
      continue;
    }
    const std::optional<DataType> type = TensorDataType(tensor);
    if (CarriesValues(tensor)) {
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
  for (const auto& [name, span] : options.output_shared_memory) {
    v1::OutputSharedMemory* shared = request.add_output_shared_memory();
    shared->set_name(name);
    SetSharedMemoryRef(span, *shared->mutable_shared_memory());
    // Returned beside the outputs asked for by name (with none, only these), as over v2.
    if (std::find(options.outputs.begin(), options.outputs.end(), name) == options.outputs.end()) {
      request.add_outputs(name);
    }
  }
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
  result.batch_rows = response.batch_rows();
  result.batch_size = response.batch_size();
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
  bool typed = !options.raw && options.output_shared_memory.empty();
  for (const NamedTensor& tensor : inputs) {
    if (tensor.shared_memory.has_value() || !FitsV2Contents(tensor, TensorDataType(tensor))) {
      typed = false;
    }
  }
  for (const NamedTensor& tensor : inputs) {
    const std::optional<DataType> type = TensorDataType(tensor);
    inference::ModelInferRequest::InferInputTensor* input = request.add_inputs();
    input->set_name(tensor.name);
    input->set_datatype(type ? V2DatatypeName(*type) : absl::AsciiStrToUpper(tensor.dtype));
    input->mutable_shape()->Add(tensor.shape.begin(), tensor.shape.end());
    if (tensor.shared_memory.has_value()) {
      // No raw_input_contents entry: the others' entries follow the inputs not in shared memory.
      NameSharedMemory(*tensor.shared_memory, *input->mutable_parameters());
      continue;
    }
    inference::InferTensorContents* contents = input->mutable_contents();
    if (CarriesValues(tensor)) {
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
  for (const std::string& output : options.outputs) {
    auto* wanted = request.add_outputs();
    wanted->set_name(output);
    if (const auto shared = options.output_shared_memory.find(output);
        shared != options.output_shared_memory.end()) {
      NameSharedMemory(shared->second, *wanted->mutable_parameters());
    }
  }
  for (const auto& [name, span] : options.output_shared_memory) {
    if (std::find(options.outputs.begin(), options.outputs.end(), name) != options.outputs.end()) {
      continue;  // named above
    }
    auto* wanted = request.add_outputs();
    wanted->set_name(name);
    NameSharedMemory(span, *wanted->mutable_parameters());
  }
  return request;
}

absl::StatusOr<InferResult> DecodeModelInferResponse(
    inference::ModelInferResponse response,
    const std::map<std::string, SharedMemorySpan>& shared_outputs) {
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
    absl::StatusOr<v1::OutputTensor> native = ToNativeOutput(
        output, raw_count > 0 ? response.mutable_raw_output_contents(i) : nullptr, shared_outputs);
    if (!native.ok()) return native.status();
    absl::StatusOr<OutputTensor> decoded = DecodeOutput(*native);
    if (!decoded.ok()) return decoded.status();
    result.outputs[output.name()] = *std::move(decoded);
  }
  return result;
}

}  // namespace neuronserve::client
