#include "server/native/native_infer_call.h"

#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/grpc/raw_message.h"
#include "server/grpc/repeated_field_resize.h"
#include "server/shared_memory/shared_memory_reference.h"

namespace neuronserve {
namespace {

static_assert(sizeof(float) == 4, "float32 tensors travel as 4-byte IEEE-754 values");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error \
    "raw_data and the typed fields are copied as little-endian bytes: a little-endian host is assumed"
#endif

GivenInput ToGivenInput(const v1::InputTensor& tensor) {
  GivenInput given;
  given.name = tensor.name();
  given.shape = absl::MakeConstSpan(tensor.shape().data(), tensor.shape_size());
  given.dtype = tensor.dtype();
  given.NoteField(ValueField::kRaw, tensor.raw_data().data(), tensor.raw_data().size());
  given.NoteField(ValueField::kFloat, tensor.float_data().data(), tensor.float_data_size());
  given.NoteField(ValueField::kInt32, tensor.int32_data().data(), tensor.int32_data_size());
  given.NoteField(ValueField::kUInt32, tensor.uint32_data().data(), tensor.uint32_data_size());
  given.NoteField(ValueField::kInt64, tensor.int64_data().data(), tensor.int64_data_size());
  given.NoteField(ValueField::kUInt64, tensor.uint64_data().data(), tensor.uint64_data_size());
  return given;
}

// A SharedMemoryRef read by the protocols' one rule (shared_memory_reference.h): the region and
// the byte size are always given here, the offset defaults to 0.
absl::StatusOr<SharedMemoryReference> ReferenceOf(const std::string& where,
                                                  const v1::SharedMemoryRef& ref) {
  constexpr uint64_t kLargest = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  const auto integer = [](uint64_t value) {
    GivenParameter<int64_t> given;
    if (value <= kLargest) {
      given.value = static_cast<int64_t>(value);
    } else {
      given.wrong_type = "a number too large for any byte count";
    }
    return given;
  };
  GivenParameter<absl::string_view> region;
  region.value = ref.region();
  absl::StatusOr<std::optional<SharedMemoryReference>> read =
      ReadSharedMemoryReference(where, region, integer(ref.offset()), integer(ref.byte_size()));
  if (!read.ok()) return read.status();
  return **read;
}

OutputForm FormOf(const v1::InferRequest& request) {
  switch (request.response_form()) {
    case v1::TENSOR_FORM_RAW:
      return OutputForm::kRaw;
    case v1::TENSOR_FORM_FLOAT:
      return OutputForm::kFloat;
    case v1::TENSOR_FORM_TYPED:
      return OutputForm::kTyped;
    default:
      return request.inputs_size() > 0 && !request.inputs(0).raw_data().empty()
                 ? OutputForm::kRaw
                 : OutputForm::kTyped;
  }
}

}  // namespace

void NativeInferCall::BeginUnbound(const InferContext& context, const Request& request,
                                   Response& response) {
  Begin(context, request.model(), request.id());
  request_ = &request;
  response_ = &response;
  response.set_id(request.id());
  response.set_model(request.model());
}

absl::Status NativeInferCall::Bind(const InferContext& context, const Request& request,
                                   Response& response) {
  BeginUnbound(context, request, response);
  if (request.model().empty()) {
    return absl::InvalidArgumentError("InferRequest.model is empty: name the model to run");
  }
  absl::Status status = AcquireModel(request.model(), request.version());
  if (model_acquired()) response.set_version(model().identity().version);
  if (!status.ok()) return status;  // on an error FillResponse counts it and lets the model go
  const std::string& name = model().identity().name;
  absl::InlinedVector<GivenInput, 4> given;
  given.reserve(request.inputs_size());
  for (const v1::InputTensor& tensor : request.inputs()) {
    given.push_back(ToGivenInput(tensor));
    if (!tensor.has_shared_memory()) continue;
    const std::string where = absl::StrCat("model '", name, "' input '", tensor.name(), "'");
    absl::StatusOr<SharedMemoryReference> shared = ReferenceOf(where, tensor.shared_memory());
    if (!shared.ok()) return shared.status();
    if (given.back().field != ValueField::kNone) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " names shared memory region '", shared->region,
                       "' and also carries ", std::string(ValueFieldName(given.back().field)),
                       "; an input in shared memory carries no values"));
    }
    if (absl::Status bound = BindSharedInput(tensor.name(), *shared, given.back()); !bound.ok()) {
      return bound;
    }
  }
  absl::InlinedVector<absl::string_view, 4> wanted;
  wanted.reserve(request.outputs_size());
  for (const std::string& output : request.outputs()) wanted.push_back(output);
  for (const v1::OutputSharedMemory& output : request.output_shared_memory()) {
    const std::string where = absl::StrCat("model '", name, "' output '", output.name(), "'");
    absl::StatusOr<SharedMemoryReference> shared = ReferenceOf(where, output.shared_memory());
    if (!shared.ok()) return shared.status();
    AddSharedOutput(output.name(), *shared);
  }
  return BindTensors(given, wanted, FormOf(request), NativeFieldNaming());
}

void NativeInferCall::SetStreamError(StreamResponse& response, const absl::Status& status) {
  v1::InferError* error = response.mutable_error();
  error->set_code(static_cast<int32_t>(status.code()));
  error->set_message(std::string(status.message()));
}

void NativeInferCall::AddOutput(const TensorSpec& spec, absl::Span<const uint32_t> shape,
                                ValueField field) {
  v1::OutputTensor* output = response_->add_outputs();
  output->set_name(spec.name);
  output->set_dtype(std::string(DataTypeName(spec.dtype)));
  output->mutable_shape()->Add(shape.begin(), shape.end());
  if (field != ValueField::kNone) return;
  // In shared memory: the answer says where, and carries no values.
  for (const v1::OutputSharedMemory& shared : request_->output_shared_memory()) {
    if (shared.name() == spec.name) *output->mutable_shared_memory() = shared.shared_memory();
  }
}

void* NativeInferCall::OutputValues(int slot, ValueField field, size_t count) {
  v1::OutputTensor& output = *response_->mutable_outputs(slot);
  const int n = static_cast<int>(count);
  switch (field) {
    case ValueField::kFloat:
      return ResizeForOverwrite(*output.mutable_float_data(), n);
    case ValueField::kInt32:
      return ResizeForOverwrite(*output.mutable_int32_data(), n);
    case ValueField::kUInt32:
      return ResizeForOverwrite(*output.mutable_uint32_data(), n);
    case ValueField::kInt64:
      return ResizeForOverwrite(*output.mutable_int64_data(), n);
    case ValueField::kUInt64:
      return ResizeForOverwrite(*output.mutable_uint64_data(), n);
    case ValueField::kRaw:
    case ValueField::kBool:
    case ValueField::kNone:
      break;
  }
  if (char* detached = OutputBytesOutsideMessage(slot, count); detached != nullptr) return detached;
  return ResizeForOverwrite(*output.mutable_raw_data(), count);
}

absl::Status NativeInferCall::SerializeUnary(std::string_view rpc, Response& response,
                                             DetachedBytes& detached, grpc::ByteBuffer& raw) {
  if (detached.empty()) return SerializeMessage(rpc, response, raw);
  // The fields but the outputs first, then each output with its detached raw_data after its
  // other fields (see server/grpc/detached_bytes.h). The outputs are lent out of the message
  // meanwhile.
  google::protobuf::RepeatedPtrField<v1::OutputTensor> outputs;
  outputs.Swap(response.mutable_outputs());
  SplicedMessageWriter writer;
  writer.AppendMessage(response);
  constexpr int kOutputs = v1::InferResponse::kOutputsFieldNumber;
  constexpr int kRawData = v1::OutputTensor::kRawDataFieldNumber;
  for (int slot = 0; slot < outputs.size(); ++slot) {
    const v1::OutputTensor& output = outputs.Get(slot);
    const size_t fields = output.ByteSizeLong();
    std::optional<grpc::Slice> bytes = detached.Take(slot);
    if (!bytes.has_value()) {
      writer.AppendFieldHeader(kOutputs, fields);
      writer.AppendMessage(output);
      continue;
    }
    writer.AppendFieldHeader(kOutputs,
                             fields + FieldHeaderSize(kRawData, bytes->size()) + bytes->size());
    writer.AppendMessage(output);
    writer.AppendFieldHeader(kRawData, bytes->size());
    writer.AppendSlice(std::move(*bytes));
  }
  outputs.Swap(response.mutable_outputs());
  return writer.Finish(rpc, response.GetTypeName(), raw);
}

void NativeInferCall::SetTiming(const ExecutionTiming& timing) {
  response_->set_queue_us(static_cast<uint64_t>(absl::ToInt64Microseconds(timing.queued)));
  response_->set_device_us(static_cast<uint64_t>(absl::ToInt64Microseconds(timing.device)));
  if (timing.batch_size > 0) {
    response_->set_batch_rows(timing.batch_rows);
    response_->set_batch_size(timing.batch_size);
  }
}

}  // namespace neuronserve
