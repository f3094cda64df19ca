// ModelInfo: a snapshot of one model's lifecycle state, for GetModel/ListModels and logs.
//
// The lifecycle of a name (ModelRegistry keeps it):
//
//   (none) --Load--> LOADING --ok--> READY --Unload--> UNLOADING --unloaded--> (none)
//                       \--error--> FAILED --Load--> LOADING ...; FAILED --Unload--> (none)
//   READY --Load(new version)--> READY (old keeps serving) --new ok--> READY (new), old unloads
//                                                          \--new error--> READY (old)
#ifndef NEURON_SERVE_CORE_SERVING_MODEL_MODEL_INFO_H_
#define NEURON_SERVE_CORE_SERVING_MODEL_MODEL_INFO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/nrt/nrt_handles.h"
#include "core/serving/execution/core_range.h"
#include "core/serving/model/loaded_model.h"

namespace neuronserve {

enum class ModelState { kLoading, kReady, kUnloading, kFailed };

absl::string_view ModelStateName(ModelState state);  // "LOADING", ...

struct ReplicaInfo {
  CoreRange cores;
  bool healthy = true;
  uint64_t executions = 0;      // nrt_execute calls, failed ones included
  uint32_t pipeline_depth = 1;  // tensor sets bound per variant (ModelReplica::pipeline_depth)
  uint64_t tensor_bytes = 0;    // device memory of all of them (ModelReplica::TensorBytes())
};

struct ModelInfo {
  ModelIdentity identity;
  ModelState state = ModelState::kLoading;
  std::string error;  // set when FAILED
  std::vector<ReplicaInfo> replicas;
  std::vector<TensorSpec> tensors;
  // A batched model (ModelTensors::max_batch_size): the most rows a request may carry, with
  // `tensors` one row each; and the batch size of each compiled variant. 0 and empty otherwise.
  uint32_t max_batch_size = 0;
  std::vector<uint32_t> batch_variants;
  absl::Time ready_at = absl::InfinitePast();
  absl::Duration load_duration;
  uint64_t requests_succeeded = 0;
  uint64_t requests_failed = 0;
  RequestStatistics statistics;  // the version's cumulative durations (ModelStatistics)
  std::vector<BatchStatistics> batch_statistics;  // executions by batch size, ascending
  size_t queue_depth = 0;  // requests waiting for a core now
};

// A request named version `asked` of `model`, but the version serving is the one labelled
// `serving`. The one answer every front end gives (inference, metadata, configuration and
// statistics; v2 gRPC, REST and native):
//   - `asked` is a number (IsVersionNumberForm): a version that may exist but is not serving,
//     FAILED_PRECONDITION in Triton's words for a version it does not have ("Request for
//     unknown model: 'M' version 7 is not found"), then the version serving;
//   - any other string is neither the serving version's label nor a number: INVALID_ARGUMENT in
//     Triton's words for a version string it cannot read ("failed to get model version from
//     specified version string 'X'", which Triton's grpc_explicit_int8_content_client.py
//     matches), then the version serving. The daemon keeps no labels of replaced versions, so a
//     label of one is such a string too.
absl::Status VersionMismatchError(absl::string_view model, absl::string_view asked,
                                  absl::string_view serving);

// OK when `asked` is empty or names `model`'s version, by its label or its number
// (version_number.h, the number cached by the model); VersionMismatchError otherwise. The one
// version check of every request that names a version.
absl::Status CheckServingVersion(const LoadedModel& model, absl::string_view asked);

// The snapshot of a READY (or UNLOADING) version.
ModelInfo DescribeLoadedModel(const LoadedModel& model, ModelState state);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_MODEL_MODEL_INFO_H_
