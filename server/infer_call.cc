#include "server/infer_call.h"

#include "absl/strings/str_cat.h"
#include "core/infer/request_validation.h"

namespace neuronserve {
namespace {

static_assert(sizeof(float) == 4, "float32 tensors travel as 4-byte IEEE-754 values");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "raw_data is little-endian and is copied as is: this build assumes a little-endian host"
#endif

GivenInput ToGivenInput(const v1::InputTensor& tensor) {
  GivenInput given;
  given.name = tensor.name();
  given.shape = absl::MakeConstSpan(tensor.shape().data(), tensor.shape_size());
  given.has_floats = tensor.float_data_size() > 0;
  given.float_count = static_cast<size_t>(tensor.float_data_size());
  given.has_raw = !tensor.raw_data().empty();
  if (given.has_raw) {
    given.bytes = absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(tensor.raw_data().data()),
                                      tensor.raw_data().size());
  } else {
    given.bytes = absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(tensor.float_data().data()),
                                      given.float_count * sizeof(float));
  }
  return given;
}

// Sizes float_data to `count` without zero-filling it (AddNAlreadyReserved leaves the new
// elements uninitialized): the device read that follows overwrites all of them, and at 16 MiB
// the fill is one more pass over memory on the core's worker thread. raw_data has no such
// way before C++23 (std::string::resize_and_overwrite), so it is resized and filled.
float* ResizeForOverwrite(google::protobuf::RepeatedField<float>& floats, int count) {
  if (floats.size() != count) {
    floats.Clear();
    floats.Reserve(count);
    floats.AddNAlreadyReserved(count);
  }
  return floats.mutable_data();
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
    if (absl::Status servable = CheckServableDtypes(name, model.inputs(), model.outputs());
        !servable.ok()) {
      return servable;
    }
    absl::InlinedVector<GivenInput, 4> given;
    given.reserve(request.inputs_size());
    for (const v1::InputTensor& tensor : request.inputs()) given.push_back(ToGivenInput(tensor));
    inputs_.resize(model.inputs().size());
    if (absl::Status matched = MatchInputs(name, model.inputs(), given, absl::MakeSpan(inputs_));
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
    switch (request.response_form()) {
      case v1::TENSOR_FORM_RAW:
        raw_outputs_ = true;
        break;
      case v1::TENSOR_FORM_FLOAT:
        raw_outputs_ = false;
        break;
      default:
        raw_outputs_ = request.inputs_size() > 0 && !request.inputs(0).raw_data().empty();
        break;
    }
    output_slots_.assign(model.outputs().size(), -1);
    for (size_t j = 0; j < selected.size(); ++j) {
      if (!selected[j]) continue;
      output_slots_[j] = response.outputs_size();
      v1::OutputTensor* output = response.add_outputs();
      const TensorSpec& spec = model.outputs()[j];
      output->set_name(spec.name);
      output->mutable_shape()->Add(spec.shape.begin(), spec.shape.end());
      bytes_out_ += spec.byte_size;
    }
    return absl::OkStatus();
  }();
  if (!status.ok()) {
    model.requests_failed().fetch_add(1, std::memory_order_relaxed);
    ReleaseModel();
  }
  return status;
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
  absl::Status queued = lease_->queue()->Push(this);
  if (!queued.ok()) {
    lease_->requests_failed().fetch_add(1, std::memory_order_relaxed);
    ReleaseModel();
  }
  return queued;
}

absl::Span<uint8_t> InferCall::Output(size_t index) {
  const int slot = output_slots_[index];
  if (slot < 0) return {};
  v1::OutputTensor* output = response_->mutable_outputs(slot);
  const size_t bytes = lease_->outputs()[index].byte_size;
  if (raw_outputs_) {
    std::string* raw = output->mutable_raw_data();
    raw->resize(bytes);
    return absl::MakeSpan(reinterpret_cast<uint8_t*>(raw->data()), bytes);
  }
  float* floats = ResizeForOverwrite(*output->mutable_float_data(),
                                     static_cast<int>(bytes / sizeof(float)));
  return absl::MakeSpan(reinterpret_cast<uint8_t*>(floats), bytes);
}

void InferCall::FillResponse(const absl::Status& status, const ExecutionTiming& timing) {
  response_->set_queue_us(static_cast<uint64_t>(absl::ToInt64Microseconds(timing.queued)));
  response_->set_device_us(static_cast<uint64_t>(absl::ToInt64Microseconds(timing.device)));
  if (!status.ok()) response_->clear_outputs();
  outcome_ = status.code();
  timing_ = timing;
  total_ = absl::Now() - started_;
  if (!status.ok()) bytes_out_ = 0;
  if (request_metrics_ == nullptr) return;
  const ModelRequestMetrics& metrics = *request_metrics_;
  metrics.CountRequest(status.code());
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

void InferCall::LogAccess(std::string_view method, std::string_view peer) const {
  if (context_ == nullptr || context_->access_log == nullptr || response_ == nullptr) return;
  AccessRecord record;
  record.method = method;
  record.peer = peer;
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
