#include "server/native/model_status.h"

namespace neuronserve {
namespace {

v1::ModelState ToProto(ModelState state) {
  switch (state) {
    case ModelState::kLoading:
      return v1::MODEL_STATE_LOADING;
    case ModelState::kReady:
      return v1::MODEL_STATE_READY;
    case ModelState::kUnloading:
      return v1::MODEL_STATE_UNLOADING;
    case ModelState::kFailed:
      return v1::MODEL_STATE_FAILED;
  }
  return v1::MODEL_STATE_UNSPECIFIED;
}

void FillTensor(const TensorSpec& spec, v1::TensorInfo& out) {
  out.set_name(spec.name);
  out.set_dtype(std::string(DataTypeName(spec.dtype)));
  for (uint32_t dim : spec.shape) out.add_shape(dim);
  out.set_byte_size(spec.byte_size);
}

}  // namespace

v1::ModelStatus ToModelStatus(const ModelInfo& info) {
  v1::ModelStatus status;
  status.set_name(info.identity.name);
  status.set_version(info.identity.version);
  status.set_source(std::string(ModelSourceName(info.identity.source)));
  status.set_state(ToProto(info.state));
  status.set_error(info.error);
  for (const ReplicaInfo& replica : info.replicas) {
    v1::ModelReplica& out = *status.add_replicas();
    for (uint32_t core = replica.cores.start; core < replica.cores.start + replica.cores.count;
         ++core) {
      out.add_cores(core);
    }
    out.set_healthy(replica.healthy);
    out.set_executions(replica.executions);
    out.set_tensor_sets(replica.pipeline_depth);
    out.set_tensor_bytes(replica.tensor_bytes);
  }
  for (const TensorSpec& spec : info.tensors) {
    FillTensor(spec,
               spec.usage == TensorUsage::kInput ? *status.add_inputs() : *status.add_outputs());
  }
  if (info.ready_at != absl::InfinitePast()) {
    status.set_ready_at_unix_ms(absl::ToUnixMillis(info.ready_at));
  }
  status.set_load_seconds(absl::ToDoubleSeconds(info.load_duration));
  status.set_max_batch_size(info.max_batch_size);
  status.mutable_batch_variants()->Add(info.batch_variants.begin(), info.batch_variants.end());
  status.mutable_requests()->set_succeeded(info.requests_succeeded);
  status.mutable_requests()->set_failed(info.requests_failed);
  return status;
}

}  // namespace neuronserve
