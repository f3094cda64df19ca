#include "server/oip/v2_model_config.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/serving/execution/core_range.h"
#include "core/serving/model/model_info.h"
#include "core/serving/scheduling/dynamic_batcher.h"
#include "core/serving/scheduling/scheduler.h"
#include "server/repository/triton_data_type.h"

namespace neuronserve {
namespace {

// Triton's config dims leave the batch dimension out when max_batch_size is set.
void AddTensor(const TensorSpec& spec, bool batched, inference::DataType type,
               google::protobuf::RepeatedPtrField<inference::ModelInput>* inputs,
               google::protobuf::RepeatedPtrField<inference::ModelOutput>* outputs) {
  const size_t first = batched && !spec.shape.empty() ? 1 : 0;
  if (inputs != nullptr) {
    inference::ModelInput* input = inputs->Add();
    input->set_name(spec.name);
    input->set_data_type(type);
    for (size_t i = first; i < spec.shape.size(); ++i) input->add_dims(spec.shape[i]);
    return;
  }
  inference::ModelOutput* output = outputs->Add();
  output->set_name(spec.name);
  output->set_data_type(type);
  for (size_t i = first; i < spec.shape.size(); ++i) output->add_dims(spec.shape[i]);
}

void SetParameter(inference::ModelConfig& out, const std::string& key, std::string value) {
  (*out.mutable_parameters())[key].set_string_value(std::move(value));
}

void FillDynamicBatching(const BatchingPolicy& policy, size_t capacity,
                         inference::ModelDynamicBatching* out) {
  if (policy.preferred_batch_sizes.empty()) {
    out->add_preferred_batch_size(static_cast<int32_t>(policy.largest_batch_size()));
  }
  for (uint32_t size : policy.preferred_batch_sizes) {
    out->add_preferred_batch_size(static_cast<int32_t>(size));
  }
  out->set_max_queue_delay_microseconds(
      static_cast<uint64_t>(absl::ToInt64Microseconds(policy.max_queue_delay)));
  inference::ModelQueuePolicy* queue = out->mutable_default_queue_policy();
  queue->set_timeout_action(inference::ModelQueuePolicy::REJECT);
  if (policy.default_timeout != absl::InfiniteDuration()) {
    queue->set_default_timeout_microseconds(
        static_cast<uint64_t>(absl::ToInt64Microseconds(policy.default_timeout)));
  }
  queue->set_allow_timeout_override(policy.allow_timeout_override);
  queue->set_max_queue_size(static_cast<int32_t>(capacity));
}

}  // namespace

absl::Status V2ModelConfig(const ModelRegistry& registry, const std::string& name,
                           const std::string& version, inference::ModelConfig& out) {
  absl::StatusOr<LoadedModel::Lease> lease = registry.Acquire(name);
  if (!lease.ok()) return lease.status();
  const LoadedModel& model = **lease;
  if (absl::Status named = CheckServingVersion(model, version); !named.ok()) return named;
  const ModelIdentity& identity = model.identity();
  const bool batched = model.max_batch_size() != 0;
  out.set_name(identity.name);
  out.set_platform("neuron");
  out.set_backend("neuron");
  out.set_max_batch_size(static_cast<int32_t>(model.max_batch_size()));
  out.mutable_version_policy()->mutable_latest()->set_num_versions(1);
  for (const TensorSpec& spec : model.inputs()) {
    AddTensor(spec, batched, TritonDataType(spec.dtype), out.mutable_input(), nullptr);
  }
  for (const TensorSpec& spec : model.outputs()) {
    AddTensor(spec, batched, TritonDataType(spec.dtype), nullptr, out.mutable_output());
  }
  const Scheduler* scheduler = model.scheduler();
  if (scheduler != nullptr && scheduler->batching_policy() != nullptr) {
    FillDynamicBatching(*scheduler->batching_policy(), scheduler->capacity(),
                        out.mutable_dynamic_batching());
  }
  inference::ModelInstanceGroup* group = out.add_instance_group();
  group->set_name(identity.name);
  group->set_kind(inference::ModelInstanceGroup::KIND_MODEL);
  group->set_count(static_cast<int32_t>(model.replicas().size()));
  out.mutable_model_transaction_policy()->set_decoupled(false);
  out.mutable_response_cache()->set_enable(false);

  std::vector<std::string> cores;
  for (const auto& replica : model.replicas()) cores.push_back(FormatCoreRange(replica->cores));
  SetParameter(out, "neuron_cores", absl::StrJoin(cores, ";"));
  if (!model.replicas().empty()) {
    const ModelReplica& first = *model.replicas().front();
    SetParameter(out, "neuron_pipeline_depth", absl::StrCat(first.pipeline_depth));
    if (batched) {
      std::vector<uint32_t> sizes;
      for (const ReplicaVariant& variant : first.variants) sizes.push_back(variant.batch_size);
      SetParameter(out, "neuron_batch_variants", absl::StrJoin(sizes, ","));
    }
  }
  SetParameter(out, "neuron_version_label", identity.version);
  return absl::OkStatus();
}

}  // namespace neuronserve
