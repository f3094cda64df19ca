// ModelRegistry: every model the daemon knows by name, and its lifecycle (see model_info.h for
// the state machine). It owns the loaded versions, has the VersionLoader place and load them and
// take them off the device again, records API loads in the ModelStore, and hands out leases to
// requests.
//
// Loads and unloads run one at a time on the registry's own thread (SerialExecutor): callers,
// such as gRPC handlers, submit and return at once, and are called back when the model is READY,
// FAILED or gone. Reads (Get, List, Acquire) answer at once from the current state.
//
// Thread safety: every public method may be called from any thread. Callbacks run on the
// registry thread (or at once, on the caller's, for a request refused up front) with no registry
// lock held.
//
// Ownership: the registry borrows the runtime, the worker pool and the store (see the
// constructor) and owns the core allocator and every loaded version.
#ifndef NEURON_SERVE_CORE_LIFECYCLE_MODEL_REGISTRY_H_
#define NEURON_SERVE_CORE_LIFECYCLE_MODEL_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "core/lifecycle/core_allocator.h"
#include "core/lifecycle/model_defaults.h"
#include "core/lifecycle/version_loader.h"
#include "core/serving/model/loaded_model.h"
#include "core/serving/model/model_info.h"
#include "util/callback_relay.h"
#include "util/serial_executor.h"

namespace neuronserve {

// Borrowed by reference or pointer only.
class ModelStore;
class NrtRuntime;
class QueuedBytesBudget;
class ServingMetrics;
class WorkerPool;

struct RegistryOptions {
  // How long an unload (or a replaced version) waits for requests in flight before unloading.
  // After it, requests still queued get UNAVAILABLE; those executing always finish.
  absl::Duration unload_timeout = kDefaultUnloadTimeout;
  // A model's request queue bound when its config does not set one.
  uint32_t max_queue = kDefaultMaxQueue;
  // Tensor sets per replica when a model's config does not set pipeline_depth (1: no
  // pipelining).
  uint32_t pipeline_depth = kDefaultPipelineDepth;
  // Told after every change of a model's state, with no registry lock held (nullable; must
  // outlive the registry). Cores taken out of rotation are told by the WorkerPool's own relay,
  // which its creator passes (the daemon passes this same one).
  CallbackRelay* on_state_change = nullptr;
  // Where each model's requests are counted (nullable; must outlive the registry). Executions
  // per core are counted by the WorkerPool's metrics, which its creator passes.
  ServingMetrics* metrics = nullptr;
  // Bounds the input bytes queued for every model together (nullable: no bound; must outlive
  // the registry).
  QueuedBytesBudget* queued_bytes = nullptr;
  // Most models loaded, loading or unloading at once (the daemon's --max-models); 0: no limit.
  // A FAILED model does not count; a new version of a model that already counts is no new one.
  uint32_t max_models = 0;
};

class ModelRegistry {
 public:
  using Callback = std::function<void(absl::StatusOr<ModelInfo>)>;

  // `runtime`, `workers` and `store` (nullable: no persistence) must outlive the registry. The
  // registry places replicas on cores [0, workers.core_count()) and runs every version's
  // requests on `workers`; the pool may be shared with other readers (health, metrics).
  ModelRegistry(const NrtRuntime& runtime, WorkerPool& workers, ModelStore* store,
                RegistryOptions options = {});
  ModelRegistry(const ModelRegistry&) = delete;
  ModelRegistry& operator=(const ModelRegistry&) = delete;
  // Finishes queued lifecycle work, then unloads every model (the store keeps its records:
  // a restart loads them again).
  ~ModelRegistry();

  // Loads (or replaces) spec.identity.name. `done` runs on the registry thread with the READY
  // model's info, or with the error (the model is then FAILED, unless an older version still
  // serves). FAILED_PRECONDITION at once, through `done`, if the name is loading or unloading;
  // RESOURCE_EXHAUSTED at once (naming --max-models) if it would be one model too many: the
  // registry then keeps no entry for a name it did not know.
  void Load(LoadSpec spec, Callback done);
  // Stops the model taking requests (Acquire answers NOT_FOUND), waits for leases up to the
  // unload timeout, unloads, forgets the store record. `done` gets the info as the unload began.
  void Unload(const std::string& name, Callback done);

  // Records a model that could not even be read (e.g. a repository folder with a broken
  // config.pbtxt) as FAILED with `error`, so it is visible like any failed load. A name that is
  // already known is left alone.
  void RecordFailure(const ModelIdentity& identity, const absl::Status& error);

  absl::StatusOr<ModelInfo> Get(const std::string& name) const;
  std::vector<ModelInfo> List() const;  // by name
  // Per visible core, the names of the models with a replica on it.
  std::vector<std::vector<std::string>> ResidentsByCore() const;
  // A lease on the READY version; NOT_FOUND (naming the model and why) otherwise.
  absl::StatusOr<LoadedModel::Lease> Acquire(const std::string& name) const;

  const CoreAllocator& allocator() const { return allocator_; }
  WorkerPool& workers() { return workers_; }
  const WorkerPool& workers() const { return workers_; }  // the pool given at construction

 private:
  struct Entry {
    ModelState state = ModelState::kLoading;
    std::shared_ptr<LoadedModel> serving;  // READY (or UNLOADING) version
    ModelIdentity identity;                // of the latest load attempt
    std::string error;                     // FAILED
    bool loading_new_version = false;      // a replacement is in progress beside `serving`
  };

  // Registry-thread halves of Load and Unload.
  void RunLoad(LoadSpec spec, Callback done);
  void RunUnload(const std::string& name, Callback done);
  ModelInfo Describe(const Entry& entry) const;
  // NOT_FOUND for a model the registry does not have, in Triton's words (which scripts match)
  // and then the models it has.
  absl::Status UnknownModel(const std::string& name) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // RESOURCE_EXHAUSTED when loading `name` would exceed options_.max_models.
  absl::Status CheckModelLimit(const std::string& name) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void AnnounceStateChange() const {
    if (options_.on_state_change != nullptr) options_.on_state_change->Notify();
  }

  ModelStore* const store_;
  const RegistryOptions options_;
  // The core workers that execute every version's requests; outlives every loaded version.
  WorkerPool& workers_;
  CoreAllocator allocator_;
  VersionLoader loader_;  // after allocator_ and workers_, which it borrows

  mutable Mutex mutex_;
  std::map<std::string, Entry> entries_ ABSL_GUARDED_BY(mutex_);

  // Reset first in the destructor, so queued work finishes while everything else exists.
  std::unique_ptr<SerialExecutor> executor_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_LIFECYCLE_MODEL_REGISTRY_H_
