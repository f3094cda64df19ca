#include "server/infer_call.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/metrics/serving_metrics.h"
#include "core/serving/request_outcome.h"
#include "core/serving/request_validation.h"
#include "server/access_log.h"
#include "server/admission/drain_gate.h"

namespace neuronserve {
namespace {

static_assert(sizeof(float) == 4, "float32 tensors travel as 4-byte IEEE-754 values");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "raw_data and the typed fields are copied as little-endian bytes: a little-endian host is assumed"
#endif

// Notes the value field `field` of `given` when it is filled: the first one becomes the values,
// a second one is remembered so that validation can refuse the pair.
void NoteField(GivenInput& given, ValueField field, const void* values, size_t count) {
  if (count == 0) return;
  if (given.field != ValueField::kNone) {
    if (given.second_field == ValueField::kNone) given.second_field = field;
    return;
  }
  given.field = field;
  given.values = values;
  given.count = count;
}

GivenInput ToGivenInput(const v1::InputTensor& tensor) {
  GivenInput given;
  given.name = tensor.name();
  given.shape = absl::MakeConstSpan(tensor.shape().data(), tensor.shape_size());
  given.dtype = tensor.dtype();
  NoteField(given, ValueField::kRaw, tensor.raw_data().data(), tensor.raw_data().size());
  NoteField(given, ValueField::kFloat, tensor.float_data().data(), tensor.float_data_size());
  NoteField(given, ValueField::kInt32, tensor.int32_data().data(), tensor.int32_data_size());
  NoteField(given, ValueField::kUInt32, tensor.uint32_data().data(), tensor.uint32_data_size());
  NoteField(given, ValueField::kInt64, tensor.int64_data().data(), tensor.int64_data_size());
  NoteField(given, ValueField::kUInt64, tensor.uint64_data().data(), tensor.uint64_data_size());
  return given;
}

// Sizes a repeated field to `count` without zero-filling it (AddNAlreadyReserved leaves the new
// elements uninitialized): the device read or the conversion that follows overwrites all of
// them, and at 16 MiB the fill is one more pass over memory on the core's worker thread.
// raw_data has no such way before C++23 (std::string::resize_and_overwrite), so it is resized
// and filled.
template <typename T>
T* ResizeForOverwrite(google::protobuf::RepeatedField<T>& values, int count) {
  if (values.size() != count) {
    values.Clear();
    values.Reserve(count);
    values.AddNAlreadyReserved(count);
  }
  return values.mutable_data();
}

// The values of `field` in `output`, sized to `count` for overwriting.
void* ResizeField(v1::OutputTensor& output, ValueField field, size_t count) {
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
    case ValueField::kNone:
      break;
  }
  std::string* raw = output.mutable_raw_data();
  raw->resize(count);
  return raw->data();
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

absl::Status InferCall::Bind(const InferContext& context, const v1::InferRequest& request,
                             v1::InferResponse& response) {
  BeginUnbound(context, request, response);
  if (request.model().empty()) {
    return absl::InvalidArgumentError("InferRequest.model is empty: name the model to run");
  }
  absl::StatusOr<LoadedModel::Lease> lease = context.registry->Acquire(request.model());
  if (!lease.ok()) return lease.status();
  lease_ = *std::move(lease);
  LoadedModel& model = *lease_;
  if (model.request_metrics() != nullptr) request_metrics_ = model.request_metrics();
  const std::string& name = model.identity().name;
  response.set_version(model.identity().version);

  absl::Status status = [&]() -> absl::Status {
    if (!request.version().empty() && request.version() != model.identity().version) {
      return absl::FailedPreconditionError(
          absl::StrCat("model '", name, "': version '", request.version(),
                       "' was asked for, but version '", model.identity().version,
                       "' is serving"));
    }
    absl::InlinedVector<GivenInput, 4> given;
    given.reserve(request.inputs_size());
    for (const v1::InputTensor& tensor : request.inputs()) given.push_back(ToGivenInput(tensor));
    inputs_.resize(model.inputs().size());
    converted_inputs_.resize(model.inputs().size());
    if (absl::Status matched = MatchInputs(name, model.inputs(), given, absl::MakeSpan(inputs_),
                                           absl::MakeSpan(converted_inputs_));
        !matched.ok()) {
      return matched;
    }
    for (const absl::Span<const uint8_t> input : inputs_) bytes_in_ += input.size();
    absl::InlinedVector<absl::string_view, 4> wanted;
    wanted.reserve(request.outputs_size());
    for (const std::string& output : request.outputs()) wanted.push_back(output);
    absl::InlinedVector<bool, 4> selected(model.outputs().size(), false);
    if (absl::Status chosen = SelectOutputs(name, model.outputs(), wanted, absl::MakeSpan(selected));
        !chosen.ok()) {
      return chosen;
    }
    output_fields_.resize(model.outputs().size());
    if (absl::Status chosen = ChooseOutputFields(name, model.outputs(), selected, FormOf(request),
                                                 absl::MakeSpan(output_fields_));
        !chosen.ok()) {
      return chosen;
    }
    output_slots_.assign(model.outputs().size(), -1);
    for (std::vector<uint8_t>& staged : staged_outputs_) staged.clear();
    for (size_t j = 0; j < selected.size(); ++j) {
      if (!selected[j]) continue;
      output_slots_[j] = response.outputs_size();
      v1::OutputTensor* output = response.add_outputs();
      const TensorSpec& spec = model.outputs()[j];
      output->set_name(spec.name);
      output->set_dtype(std::string(DataTypeName(spec.dtype)));
      output->mutable_shape()->Add(spec.shape.begin(), spec.shape.end());
      bytes_out_ += spec.byte_size;
    }
    return absl::OkStatus();
  }();
  return status;  // on an error FillResponse counts it and lets the model go
}

void InferCall::BeginUnbound(const InferContext& context, const v1::InferRequest& request,
                             v1::InferResponse& response) {
  context_ = &context;
  started_ = absl::Now();
  response_ = &response;
  response.set_id(request.id());
  response.set_model(request.model());
  if (context.metrics != nullptr) request_metrics_ = &context.metrics->unknown_model();
}

absl::Status InferCall::Submit() {
  return lease_->queue()->Push(this);  // on an error FillResponse counts it
}

absl::Span<uint8_t> InferCall::Output(size_t index) {
  const int slot = output_slots_[index];
  if (slot < 0) return {};
  const TensorSpec& spec = lease_->outputs()[index];
  const ValueField field = output_fields_[index];
  if (!FieldIsElementLayout(field, spec.dtype)) {
    // Converted after the read (FinishOutputs): the device writes the elements here first.
    if (staged_outputs_.size() <= index) staged_outputs_.resize(lease_->outputs().size());
    std::vector<uint8_t>& staged = staged_outputs_[index];
    staged.resize(spec.byte_size);
    return absl::MakeSpan(staged);
  }
  const size_t count = spec.byte_size / ValueFieldElementSize(field);
  void* values = ResizeField(*response_->mutable_outputs(slot), field, count);
  return absl::MakeSpan(static_cast<uint8_t*>(values), spec.byte_size);
}

void InferCall::FinishOutputs() {
  // Both sizes bound the loop: a call object bound again keeps its staging buffers' capacity.
  const size_t outputs = std::min(staged_outputs_.size(), output_slots_.size());
  for (size_t index = 0; index < outputs; ++index) {
    const int slot = output_slots_[index];
    const std::vector<uint8_t>& staged = staged_outputs_[index];
    if (slot < 0 || staged.empty()) continue;
    const TensorSpec& spec = lease_->outputs()[index];
    const size_t count = ElementCount(spec.shape);
    WidenToField(spec.dtype, staged,
                 ResizeField(*response_->mutable_outputs(slot), output_fields_[index], count),
                 count);
  }
}

void InferCall::FillResponse(const absl::Status& status, const ExecutionTiming& timing) {
  response_->set_queue_us(static_cast<uint64_t>(absl::ToInt64Microseconds(timing.queued)));
  response_->set_device_us(static_cast<uint64_t>(absl::ToInt64Microseconds(timing.device)));
  if (status.ok()) {
    FinishOutputs();
  } else {
    response_->clear_outputs();
  }
  outcome_ = status.code();
  timing_ = timing;
  total_ = absl::Now() - started_;
  if (!status.ok()) bytes_out_ = 0;
  // The outcome is counted here and nowhere else; then the call needs the model no more.
  RecordRequestOutcome(lease_ ? &*lease_ : nullptr, request_metrics_, status.code());
  lease_ = LoadedModel::Lease();  // an unload waits for it
  if (request_metrics_ == nullptr) return;
  const ModelRequestMetrics& metrics = *request_metrics_;
  metrics.total_seconds->Observe(absl::ToDoubleSeconds(total_));
  if (timing.queued > absl::ZeroDuration()) {
    metrics.queue_seconds->Observe(absl::ToDoubleSeconds(timing.queued));
  }
  if (timing.device > absl::ZeroDuration()) {
    metrics.device_seconds->Observe(absl::ToDoubleSeconds(timing.device));
    metrics.tensor_bytes_in->Increment(static_cast<double>(bytes_in_));
  }
  if (status.ok()) metrics.tensor_bytes_out->Increment(static_cast<double>(bytes_out_));
}

void InferCall::LogAccess(std::string_view method, std::string_view peer,
                          std::string_view identity) const {
  if (context_ == nullptr || context_->access_log == nullptr || response_ == nullptr) return;
  AccessRecord record;
  record.method = method;
  record.peer = peer;
  record.identity = identity;
  record.model = response_->model();
  record.version = response_->version();
  record.id = response_->id();
  record.code = outcome_;
  record.queued = timing_.queued;
  record.device = timing_.device;
  record.total = total_;
  record.bytes_in = timing_.device > absl::ZeroDuration() ? bytes_in_ : 0;
  record.bytes_out = bytes_out_;
  context_->access_log->Record(record);
}

}  // namespace neuronserve
