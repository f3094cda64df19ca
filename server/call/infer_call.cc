#include "server/call/infer_call.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/metrics/serving_metrics.h"
#include "core/serving/model/model_info.h"
#include "core/serving/model/request_outcome.h"
#include "server/logs/access_log.h"
#include "server/shared_memory/shared_memory_registry.h"

namespace neuronserve {

void InferCall::Begin(const InferContext& context, absl::string_view model, absl::string_view id) {
  context_ = &context;
  started_ = absl::Now();
  model_name_ = model;
  id_ = id;
  if (context.metrics != nullptr) request_metrics_ = &context.metrics->unknown_model();
}

absl::Status InferCall::AcquireModel(absl::string_view model, absl::string_view version) {
  absl::StatusOr<LoadedModel::Lease> lease = context_->registry->Acquire(std::string(model));
  if (!lease.ok()) return lease.status();
  lease_ = *std::move(lease);
  if (lease_->request_metrics() != nullptr) request_metrics_ = lease_->request_metrics();
  version_ = lease_->identity().version;
  return CheckServingVersion(*lease_, version);
}

absl::Status InferCall::BindTensors(absl::Span<const GivenInput> given,
                                    absl::Span<const absl::string_view> wanted, OutputForm form,
                                    const FieldNaming& naming) {
  const LoadedModel& model = *lease_;
  const std::string& name = model.identity().name;
  inputs_.resize(model.inputs().size());
  converted_inputs_.resize(model.inputs().size());
  if (absl::Status matched =
          MatchInputs(name, model.inputs(), given, absl::MakeSpan(inputs_),
                      absl::MakeSpan(converted_inputs_), naming, model.max_batch_size(), &rows);
      !matched.ok()) {
    return matched;
  }
  for (const absl::Span<const uint8_t> input : inputs_) bytes_in_ += input.size();
  // What the call holds of the daemon's memory while it waits (--max-queued-bytes): not the
  // inputs in the client's shared memory, whose bytes stay in the client's object. They are
  // raw bytes there, never converted, so their count is their size.
  bytes_held_ = bytes_in_;
  for (const GivenInput& input : given) {
    if (!input.shared_memory_region.empty()) bytes_held_ -= std::min(bytes_held_, input.count);
  }
  absl::InlinedVector<bool, 4> selected(model.outputs().size(), false);
  if (absl::Status chosen = SelectOutputs(name, model.outputs(), wanted, absl::MakeSpan(selected));
      !chosen.ok()) {
    return chosen;
  }
  if (absl::Status shared = BindSharedOutputs(selected); !shared.ok()) return shared;
  // The outputs in shared memory travel as the device's bytes whatever the response's form:
  // the form is chosen for the others only.
  absl::InlinedVector<bool, 4> in_message = selected;
  for (size_t j = 0; j < shared_output_bytes_.size(); ++j) {
    if (shared_output_bytes_[j].data() != nullptr) in_message[j] = false;
  }
  output_fields_.resize(model.outputs().size());
  if (absl::Status chosen = ChooseOutputFields(name, model.outputs(), in_message, form,
                                               absl::MakeSpan(output_fields_));
      !chosen.ok()) {
    return chosen;
  }
  output_slots_.assign(model.outputs().size(), -1);
  for (std::vector<uint8_t>& staged : staged_outputs_) staged.clear();
  int slots = 0;
  for (size_t j = 0; j < selected.size(); ++j) {
    if (!selected[j]) continue;
    output_slots_[j] = slots++;
    const TensorSpec& spec = model.outputs()[j];
    output_shape_.assign(spec.shape.begin(), spec.shape.end());
    if (!output_shape_.empty()) output_shape_[0] *= rows;
    if (in_message[j]) {
      AddOutput(spec, output_shape_, output_fields_[j]);
    } else {
      output_fields_[j] = ValueField::kRaw;
      AddOutput(spec, output_shape_, ValueField::kNone);
    }
    bytes_out_ += uint64_t{spec.byte_size} * rows;
  }
  return absl::OkStatus();
}

absl::StatusOr<const SharedMemoryRegion*> InferCall::HoldRegion(
    absl::string_view tensor, const SharedMemoryReference& reference) {
  if (context_->shared_memory == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(tensor, ": names shared memory region '",
                                                   reference.region,
                                                   "', but this daemon serves no shared memory"));
  }
  std::shared_ptr<const SharedMemoryRegion> region =
      context_->shared_memory->Find(reference.region);
  if (region == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(tensor, ": no shared memory region '", reference.region, "' is registered"));
  }
  if (absl::Status lost = region->CheckNotLost(); !lost.ok()) return lost;
  regions_.push_back(std::move(region));
  return regions_.back().get();
}

absl::Status InferCall::BindSharedInput(absl::string_view input,
                                        const SharedMemoryReference& reference, GivenInput& given) {
  const std::string tensor = absl::StrCat("model '", model_name_, "' input '", input, "'");
  absl::StatusOr<const SharedMemoryRegion*> region = HoldRegion(tensor, reference);
  if (!region.ok()) return region.status();
  absl::StatusOr<absl::Span<uint8_t>> bytes =
      (*region)->Slice(reference.offset, reference.byte_size, tensor);
  if (!bytes.ok()) return bytes.status();
  given.NoteField(ValueField::kRaw, bytes->data(), bytes->size());
  given.shared_memory_region = reference.region;
  return absl::OkStatus();
}

void InferCall::AddSharedOutput(absl::string_view output, const SharedMemoryReference& reference) {
  shared_outputs_.push_back({output, reference});
}

absl::Status InferCall::BindSharedOutputs(absl::Span<const bool> selected) {
  shared_output_bytes_.clear();
  if (shared_outputs_.empty()) return absl::OkStatus();
  const std::vector<TensorSpec>& outputs = lease_->outputs();
  shared_output_bytes_.assign(outputs.size(), {});
  for (const SharedOutput& shared : shared_outputs_) {
    const std::string tensor =
        absl::StrCat("model '", lease_->identity().name, "' output '", shared.name, "'");
    const auto found = std::find_if(outputs.begin(), outputs.end(), [&](const TensorSpec& spec) {
      return spec.name == shared.name;
    });
    if (found == outputs.end() || !selected[found - outputs.begin()]) {
      return absl::InvalidArgumentError(
          absl::StrCat(tensor, ": no such output is returned, so it cannot go to shared memory"));
    }
    absl::StatusOr<const SharedMemoryRegion*> region = HoldRegion(tensor, shared.reference);
    if (!region.ok()) return region.status();
    // The whole range the request gives must lie in the region, and the output must fit it.
    absl::StatusOr<absl::Span<uint8_t>> range =
        (*region)->Slice(shared.reference.offset, shared.reference.byte_size, tensor);
    if (!range.ok()) return range.status();
    const uint64_t byte_size = uint64_t{found->byte_size} * rows;
    if (range->size() < byte_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          tensor, " has ", byte_size, " bytes, more than the ", range->size(),
          " the request gives it in shared memory region '", shared.reference.region, "'"));
    }
    shared_output_bytes_[found - outputs.begin()] = range->first(static_cast<size_t>(byte_size));
  }
  return absl::OkStatus();
}

void InferCall::LimitQueueTime(absl::Duration limit) {
  deadline = std::min(deadline, started_ + limit);
}

absl::Status InferCall::Submit() {
  input_bytes = bytes_held_;  // what the call holds while queued (the daemon's bytes budget)
  // On an error FillResponse counts it.
  return withdrawal_.Submit(*lease_->scheduler(), *this, model_name_);
}

bool InferCall::WithdrawIfQueued() { return withdrawal_.Withdraw(*this); }

absl::Span<uint8_t> InferCall::Output(size_t index) {
  const int slot = output_slots_[index];
  if (slot < 0) return {};
  if (index < shared_output_bytes_.size() && shared_output_bytes_[index].data() != nullptr) {
    return shared_output_bytes_[index];  // straight into the client's mapping
  }
  const TensorSpec& spec = lease_->outputs()[index];
  const ValueField field = output_fields_[index];
  const size_t byte_size = size_t{spec.byte_size} * rows;  // rows is 1 when unbatched
  if (!FieldIsElementLayout(field, spec.dtype)) {
    // Converted after the read (FinishOutputs): the device writes the elements here first.
    if (staged_outputs_.size() <= index) staged_outputs_.resize(lease_->outputs().size());
    std::vector<uint8_t>& staged = staged_outputs_[index];
    staged.resize(byte_size);
    return absl::MakeSpan(staged);
  }
  const size_t count = byte_size / ValueFieldElementSize(field);
  void* values = OutputValues(slot, field, count);
  return absl::MakeSpan(static_cast<uint8_t*>(values), byte_size);
}

void InferCall::FinishOutputs() {
  // Both sizes bound the loop: a call object bound again keeps its staging buffers' capacity.
  const size_t outputs = std::min(staged_outputs_.size(), output_slots_.size());
  for (size_t index = 0; index < outputs; ++index) {
    const int slot = output_slots_[index];
    const std::vector<uint8_t>& staged = staged_outputs_[index];
    if (slot < 0 || staged.empty()) continue;
    const TensorSpec& spec = lease_->outputs()[index];
    const size_t count = ElementCount(spec.shape) * rows;
    WidenToField(spec.dtype, staged, OutputValues(slot, output_fields_[index], count), count);
  }
}

absl::Status InferCall::FillResponse(absl::Status status, const ExecutionTiming& timing) {
  withdrawal_.Ended();  // before the lease goes: the scheduler may go with it
  // A region whose object shrank while the call used it: the bytes read or written there are
  // not the client's (server/shared_memory/sigbus_guard.h).
  for (const std::shared_ptr<const SharedMemoryRegion>& region : regions_) {
    if (!status.ok()) break;
    status = region->CheckNotLost();
  }
  regions_.clear();
  shared_outputs_.clear();
  shared_output_bytes_.clear();
  SetTiming(timing);
  if (status.ok()) {
    FinishOutputs();
  } else {
    DropOutputs();
  }
  outcome_ = status.code();
  timing_ = timing;
  total_ = absl::Now() - started_;
  if (!status.ok()) bytes_out_ = 0;
  // The outcome is counted here and nowhere else; then the call needs the model no more.
  RecordRequestOutcome(lease_ ? &*lease_ : nullptr, request_metrics_, status.code(),
                       {total_, timing.queued, timing.device, timing.input, timing.output});
  if (context_->metrics != nullptr) context_->metrics->CountProtocol(protocol());
  // The lease keeps the version's metrics (request_metrics_) alive, and an unload waits for
  // it: dropped once they are recorded.
  if (request_metrics_ != nullptr) {
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
  lease_ = LoadedModel::Lease();
  return status;
}

void InferCall::LogAccess(std::string_view method, std::string_view peer, std::string_view identity,
                          std::string_view traceparent) const {
  if (context_ == nullptr || context_->access_log == nullptr) return;
  AccessRecord record;
  record.method = method;
  record.peer = peer;
  record.identity = identity;
  record.traceparent = traceparent;
  record.model = std::string_view(model_name_.data(), model_name_.size());
  record.version = version_;
  record.id = std::string_view(id_.data(), id_.size());
  record.code = outcome_;
  record.queued = timing_.queued;
  record.device = timing_.device;
  record.total = total_;
  record.bytes_in = timing_.device > absl::ZeroDuration() ? bytes_in_ : 0;
  record.bytes_out = bytes_out_;
  record.batch_rows = timing_.batch_rows;
  record.batch_size = timing_.batch_size;
  context_->access_log->Record(record);
}

}  // namespace neuronserve
