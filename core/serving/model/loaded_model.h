// LoadedModel: one READY version of a model — its replicas (each an nrt_load of every compiled
// variant on its own core range), its tensors as the runtime describes them, its scheduler
// (what a free core runs next), and its request counters and cumulative request statistics
// (counted only by RecordRequestOutcome, core/serving/model/request_outcome.h).
// ModelIdentity: a version's name, version and where it came from (ModelSource).
//
// Requests hold a Lease while they use the model; the registry unloads a version only after its
// last lease is gone (or a timeout), so no execution ever runs on an unloaded model.
#ifndef NEURON_SERVE_CORE_SERVING_MODEL_LOADED_MODEL_H_
#define NEURON_SERVE_CORE_SERVING_MODEL_LOADED_MODEL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "core/metrics/serving_metrics.h"
#include "core/nrt/nrt_handles.h"
#include "core/serving/execution/core_range.h"
#include "core/serving/execution/model_replica.h"
#include "core/serving/execution/served_model.h"
#include "core/serving/scheduling/scheduler.h"

namespace neuronserve {

struct RequestDurations;  // request_outcome.h

// A model's tensors as the runtime lists them, and split by usage, each in the runtime's order
// (the order of InferenceJob's input and output indices). Split once, at load.
struct ModelTensors {
  static ModelTensors Split(std::vector<TensorSpec> tensors);
  // A batched model's tensors from one variant's (compiled for `batch_size` rows, the leading
  // dimension of each): one row of each, with `max_batch_size` set.
  static ModelTensors Rows(const ModelTensors& variant, uint32_t batch_size,
                           uint32_t max_batch_size);

  std::vector<TensorSpec> all;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  // 0: the model has no batch dimension, and every spec is its whole tensor. Else a request
  // carries 1..max_batch_size rows along the leading dimension, and every spec is one row's
  // (leading dimension 1, the byte size of one row): a request of r rows has r times its size.
  uint32_t max_batch_size = 0;
};

// Where a model version's bytes came from.
enum class ModelSource {
  kUpload,      // streamed by a LoadModel call
  kRepository,  // read from the model repository (LoadModel by name, or --load-models)
  kState,       // restored from the state directory at startup
};

// The API's name of `source` ("upload", "repository", "state"): ModelStatus.source, the
// "source" of /v1/models, and the logs.
absl::string_view ModelSourceName(ModelSource source);

// A snapshot of a version's cumulative request statistics (the Open Inference Protocol's
// ModelStatistics reports them in Triton's layout). As in Triton, queue and compute count the
// successful requests only, so that their averages describe served requests; a failed request
// counts in fail (and in executions when it reached a core). `compute` is the time on the device:
// tensor write, nrt_execute and tensor read together, which the runtime does not time apart.
// The fields are read one by one, without a lock: a snapshot taken while requests complete may
// hold one request in a count but not yet in its nanoseconds (or the other way round).
// One executed batch size of a version (v2 ModelStatistics.batch_stats, in Triton's layout):
// executions that carried `batch_size` requests' rows, and their device time.
struct BatchStatistics {
  uint32_t batch_size = 0;
  uint64_t count = 0;
  uint64_t ns = 0;         // on the device: write, execute and read
  uint64_t input_ns = 0;   // of which writing the inputs
  uint64_t output_ns = 0;  // and reading the outputs
};

struct RequestStatistics {
  uint64_t success_count = 0;
  uint64_t success_ns = 0;  // whole requests, from arrival to answer
  uint64_t fail_count = 0;
  uint64_t fail_ns = 0;
  uint64_t queue_count = 0;
  uint64_t queue_ns = 0;  // waiting in the model's queue for a core
  uint64_t compute_count = 0;
  uint64_t compute_ns = 0;  // on the device: write, execute and read
  uint64_t compute_input_ns = 0;   // of which writing the inputs
  uint64_t compute_output_ns = 0;  // and reading the outputs
  uint64_t executions = 0;  // requests that ran on a core, whatever their outcome
  absl::Time last_request = absl::InfinitePast();  // when the last outcome was recorded
};

struct ModelIdentity {
  std::string name;
  std::string version;
  ModelSource source = ModelSource::kUpload;
};

class LoadedModel : public ServedModel,
                    public std::enable_shared_from_this<LoadedModel> {
  struct LeaseCount;  // in loaded_model.cc

 public:
  // Keeps the model loaded while alive. Move-only; an empty lease holds nothing.
  class Lease {
   public:
    Lease() = default;
    explicit Lease(std::shared_ptr<LoadedModel> model);
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&& other) noexcept;
    ~Lease();
    LoadedModel* operator->() const { return model_.get(); }
    LoadedModel& operator*() const { return *model_; }
    explicit operator bool() const { return model_ != nullptr; }

   private:
    void Release();
    std::shared_ptr<LoadedModel> model_;
    std::shared_ptr<LeaseCount> count_;  // the model's lease_count_
  };

  // `scheduler` takes the version's requests (nullptr: the version takes none).
  LoadedModel(ModelIdentity identity, std::vector<std::unique_ptr<ModelReplica>> replicas,
              ModelTensors tensors, uint64_t placement_id, absl::Time ready_at,
              absl::Duration load_duration, std::unique_ptr<Scheduler> scheduler = nullptr);

  const ModelIdentity& identity() const { return identity_; }
  const std::string& name() const override { return identity_.name; }
  // The version's number on the Open Inference Protocol (version_number.h), computed once: the
  // v2 front ends answer every request with it.
  const std::string& version_number() const { return version_number_; }
  const std::vector<std::unique_ptr<ModelReplica>>& replicas() const override {
    return replicas_;
  }
  const std::vector<TensorSpec>& tensors() const { return tensors_.all; }
  const std::vector<TensorSpec>& inputs() const override { return tensors_.inputs; }
  const std::vector<TensorSpec>& outputs() const override { return tensors_.outputs; }
  // ModelTensors::max_batch_size: 0 without a batch dimension.
  uint32_t max_batch_size() const { return tensors_.max_batch_size; }
  Scheduler* scheduler() const override { return scheduler_.get(); }
  uint64_t placement_id() const { return placement_id_; }
  absl::Time ready_at() const { return ready_at_; }
  absl::Duration load_duration() const { return load_duration_; }
  // Where this version's requests are counted; null when the daemon keeps no metrics. Set
  // before the version is published (attached, acquirable), never after.
  // Valid while the caller holds a lease: the model keeps its version's series until it is
  // destroyed (ServingMetrics::ForModel).
  const ModelRequestMetrics* request_metrics() const { return request_metrics_.get(); }
  void set_request_metrics(std::shared_ptr<const ModelRequestMetrics> metrics) {
    request_metrics_ = std::move(metrics);
  }

  // Requests answered OK / with an error, as RecordRequestOutcome counted them.
  uint64_t requests_succeeded() const { return requests_succeeded_.load(); }
  uint64_t requests_failed() const { return requests_failed_.load(); }
  // The cumulative durations and counts RecordRequestOutcome summed so far.
  RequestStatistics statistics() const;
  // A core worker's record of one successful execution of `rows` requests' rows (padding not
  // counted) that took `device`, of which `input` writing and `output` reading. Lock-free; rows
  // past the largest variant's batch size (never formed) are not counted.
  void RecordExecution(uint32_t rows, absl::Duration device, absl::Duration input,
                       absl::Duration output) override;
  // The batch sizes executed so far, ascending, with their counts and device time.
  std::vector<BatchStatistics> batch_statistics() const;

  // Waits until no lease is held, at most `timeout`; true if none is.
  bool WaitUntilIdle(absl::Duration timeout);
  int leases() const;

 private:
  // The only writer of the request counters.
  friend void RecordRequestOutcome(LoadedModel* model, const ModelRequestMetrics* metrics,
                                   absl::StatusCode code, const RequestDurations& durations);

  ModelIdentity identity_;
  std::string version_number_;
  std::vector<std::unique_ptr<ModelReplica>> replicas_;
  ModelTensors tensors_;
  std::unique_ptr<Scheduler> scheduler_;
  uint64_t placement_id_;
  absl::Time ready_at_;
  absl::Duration load_duration_;
  // A hold on the version's series (and its variants'): releasing it retires them.
  std::shared_ptr<const ModelRequestMetrics> request_metrics_;
  std::atomic<uint64_t> requests_succeeded_{0};
  std::atomic<uint64_t> requests_failed_{0};
  // Sums behind statistics(): lock-free, every request adds to them on its own thread.
  std::atomic<uint64_t> success_ns_{0};
  std::atomic<uint64_t> fail_ns_{0};
  std::atomic<uint64_t> queue_count_{0};
  std::atomic<uint64_t> queue_ns_{0};
  std::atomic<uint64_t> compute_count_{0};
  std::atomic<uint64_t> compute_ns_{0};
  std::atomic<uint64_t> compute_input_ns_{0};
  std::atomic<uint64_t> compute_output_ns_{0};
  std::atomic<uint64_t> executions_{0};
  std::atomic<int64_t> last_request_unix_ns_{INT64_MIN};  // INT64_MIN: none yet
  // RecordExecution's sums, by rows - 1: one slot per possible batch (1 without variants).
  std::vector<std::atomic<uint64_t>> batch_counts_;
  std::vector<std::atomic<uint64_t>> batch_ns_;
  std::vector<std::atomic<uint64_t>> batch_input_ns_;
  std::vector<std::atomic<uint64_t>> batch_output_ns_;

  // Kept apart from the model and shared with every lease, so that a lease drops its reference
  // to the model before the count can reach 0: whoever waits for idleness (the registry) then
  // holds the last reference, and its unload really happens before it answers.
  const std::shared_ptr<LeaseCount> lease_count_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_MODEL_LOADED_MODEL_H_
