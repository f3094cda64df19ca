// RecordRequestOutcome: the one place a request's outcome is counted.
//
// A request has counts that must agree: its model version's succeeded/failed (GetModel,
// /v1/models) with the version's cumulative durations (the v2 ModelStatistics), and
// neuronserve_requests_total{model, version, code}. All come from this one
// call, made exactly once per request by the request's owner — the server's InferCall, in
// FillResponse, through which every call's outcome passes exactly once (see
// server/call/infer_call.h); a test's InferenceJob in its Complete() — while it still holds its
// lease on the model.
//
// Why the owner and not core: core answers only some requests (the worker's outcomes, the
// pool's stranded jobs, an unload past its timeout), while the server answers the rest itself
// (a request refused before a model was found, a failed validation, a full queue). Only the
// owner sees every outcome, so core code that completes a job never counts it: Complete() is
// where the outcome is recorded. This keeps core free of gRPC (the owner passes an
// absl::StatusCode) and needs no lock (atomic counters, lock-free metric counters).
#ifndef NEURON_SERVE_CORE_SERVING_MODEL_REQUEST_OUTCOME_H_
#define NEURON_SERVE_CORE_SERVING_MODEL_REQUEST_OUTCOME_H_

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "core/metrics/serving_metrics.h"
#include "core/serving/model/loaded_model.h"

namespace neuronserve {

// How long one request took, as its owner measured it.
struct RequestDurations {
  absl::Duration total = absl::ZeroDuration();   // from its arrival to its answer
  absl::Duration queued = absl::ZeroDuration();  // in the model's queue, waiting for a core
  absl::Duration device = absl::ZeroDuration();  // on a core (write, execute, read); 0: never ran
  absl::Duration input = absl::ZeroDuration();   // of which the write
  absl::Duration output = absl::ZeroDuration();  // and the read
};

// Counts one request that ended with `code`: in `model`'s succeeded or failed count unless
// `model` is null (the request was refused before a model was found), and in `metrics`'
// neuronserve_requests_total by code unless `metrics` is null (no metrics kept). `metrics` is
// the version's (LoadedModel::request_metrics()) or, for a request refused before a model was
// found, ServingMetrics::unknown_model(). `durations` go into `model`'s statistics
// (LoadedModel::statistics(): success or fail by the total; queue and compute for a success;
// an execution when device time is not zero; the time of the last request). The caller must
// hold a lease on `model`. Thread-safe and lock-free.
void RecordRequestOutcome(LoadedModel* model, const ModelRequestMetrics* metrics,
                          absl::StatusCode code, const RequestDurations& durations);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_MODEL_REQUEST_OUTCOME_H_
