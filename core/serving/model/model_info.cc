#include "core/serving/model/model_info.h"

#include "absl/strings/str_cat.h"
#include "core/serving/model/version_number.h"
#include "core/serving/scheduling/scheduler.h"

namespace neuronserve {

absl::string_view ModelStateName(ModelState state) {
  switch (state) {
    case ModelState::kLoading:
      return "LOADING";
    case ModelState::kReady:
      return "READY";
    case ModelState::kUnloading:
      return "UNLOADING";
    case ModelState::kFailed:
      return "FAILED";
  }
  return "UNKNOWN";
}

ModelInfo DescribeLoadedModel(const LoadedModel& model, ModelState state) {
  ModelInfo info;
  info.identity = model.identity();
  info.state = state;
  for (const auto& replica : model.replicas()) {
    info.replicas.push_back(ReplicaInfo{replica->cores, replica->healthy.load(),
                                        replica->executions.load(), replica->pipeline_depth,
                                        replica->TensorBytes()});
  }
  info.tensors = model.tensors();
  info.max_batch_size = model.max_batch_size();
  if (info.max_batch_size != 0 && !model.replicas().empty()) {
    for (const ReplicaVariant& variant : model.replicas().front()->variants) {
      info.batch_variants.push_back(variant.batch_size);
    }
  }
  info.ready_at = model.ready_at();
  info.load_duration = model.load_duration();
  info.requests_succeeded = model.requests_succeeded();
  info.requests_failed = model.requests_failed();
  info.statistics = model.statistics();
  info.batch_statistics = model.batch_statistics();
  info.queue_depth = model.scheduler() != nullptr ? model.scheduler()->depth() : 0;
  return info;
}

absl::Status VersionMismatchError(absl::string_view model, absl::string_view asked,
                                  absl::string_view serving) {
  if (!IsVersionNumberForm(asked)) {
    // Triton's words for a version string that is not an integer, then the one that serves.
    return absl::InvalidArgumentError(absl::StrCat(
        "failed to get model version from specified version string '", asked,
        "': it is neither a version number nor the label of the version of model '", model,
        "' that serves (version ", DescribeVersion(serving), " is serving)"));
  }
  // Triton's words for a version it does not have, then the one that serves.
  return absl::FailedPreconditionError(absl::StrCat("Request for unknown model: '", model,
                                                    "' version ", asked, " is not found (version ",
                                                    DescribeVersion(serving), " is serving)"));
}

absl::Status CheckServingVersion(const LoadedModel& model, absl::string_view asked) {
  const ModelIdentity& identity = model.identity();
  if (asked.empty() || asked == identity.version || asked == model.version_number()) {
    return absl::OkStatus();
  }
  return VersionMismatchError(identity.name, asked, identity.version);
}

}  // namespace neuronserve
