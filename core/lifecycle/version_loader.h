// VersionLoader: brings one version of a model onto the device and takes it off again; the
// model registry (model_registry.h) decides when, this unit knows how.
//
// Loading (Load, then Attach): place the replicas with the CoreAllocator (the core count of one
// replica is known only after a first nrt_load, so that load is a probe on the first core the
// model may use), one nrt_load per variant per replica at its range's start core, the tensors of
// each, and the LoadedModel with its scheduler ringing the workers of those cores. Attach
// then binds the replicas to the workers. A failed load leaves nothing behind: no replica stays
// loaded and no core stays reserved.
//
// Unloading (Detach, then Unload; or Retire for both): wait for the version's leases up to the
// unload timeout (then the requests still queued get UNAVAILABLE and those executing finish),
// close its scheduler, detach it from the workers; then drop the last reference (nrt_unload of
// every replica) and release its placement.
//
// Errors name the model and say what to change: INVALID_ARGUMENT for an explicit start core
// that does not exist or leaves too few cores, RESOURCE_EXHAUSTED when no core may be used,
// FAILED_PRECONDITION when the core count of a replica cannot be told, and the runtime's own
// code (mapped by core/nrt) for a failed nrt_load or tensor allocation.
//
// Thread safety: the loader keeps no state of its own; the allocator and the worker pool lock
// for themselves, so every method may be called from any thread. Two loads at once may race for
// the same free cores between the probe and the placement (one then fails RESOURCE_EXHAUSTED);
// the registry avoids that by loading one version at a time on its own thread.
//
// Ownership: the loader borrows the runtime, the allocator, the worker pool and the metrics,
// which must outlive it and every version it loaded. The LoadedModel it returns is the
// caller's; Unload must be given the last reference.
#ifndef NEURON_SERVE_CORE_LIFECYCLE_VERSION_LOADER_H_
#define NEURON_SERVE_CORE_LIFECYCLE_VERSION_LOADER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/lifecycle/core_allocator.h"
#include "core/lifecycle/declared_tensors.h"
#include "core/lifecycle/model_defaults.h"
#include "core/serving/model/loaded_model.h"
#include "core/serving/scheduling/dynamic_batcher.h"

namespace neuronserve {

// Borrowed by reference or pointer only.
class NrtRuntime;
class QueuedBytesBudget;
class ServingMetrics;
class WorkerPool;

// One compiled variant of a batched model: the network compiled for `batch_size` rows.
struct VariantSpec {
  uint32_t batch_size = 0;
  std::shared_ptr<const std::string> neff;
  // As LoadSpec::neff_sha256, for this variant's bytes: verified by whoever produced them, or
  // empty. The loader ignores it.
  std::string neff_sha256;
};

struct LoadSpec {
  ModelIdentity identity;
  // The model's one NEFF, when `variants` is empty: a model without a batch dimension, whose
  // requests run one per execution (FifoScheduler).
  std::shared_ptr<const std::string> neff;
  // A batched model: its compiled variants (distinct batch sizes, one network: the loader
  // refuses variants that disagree, batch_variants.h), every one loaded on every replica and
  // scheduled by the DynamicBatcher with `batching` (whose variant_batch_sizes the loader
  // fills). `neff` is then unused.
  std::vector<VariantSpec> variants;
  BatchingPolicy batching;
  // A batched model: the most rows one request may carry (the front ends refuse more); at least
  // the largest variant's batch size, and larger means a request may be split. 0 for an
  // unbatched model, and taken as the largest variant's when a batched spec leaves it 0.
  uint32_t max_batch_size = 0;
  uint32_t replicas = 1;              // used when start_cores is empty
  std::vector<uint32_t> start_cores;  // explicit placement, one replica per start core
  bool shared = false;
  // Most requests waiting at once; 0: VersionLoaderOptions::max_queue.
  uint32_t max_queue = 0;
  // Tensor sets bound per variant of each replica (ModelReplica::pipeline_depth), 1 to
  // kMaxPipelineDepth; 0: VersionLoaderOptions::pipeline_depth.
  uint32_t pipeline_depth = 0;
  // Cores one replica occupies as the config declares it (0: not declared); used only when the
  // runtime reports no core count of its own.
  uint32_t declared_core_count = 0;
  // Record the model in the store once READY, with this opaque config (the ModelConfig text).
  // The registry does that; the loader ignores both.
  bool persist = false;
  std::string config_text;
  // The SHA-256 of *neff (64 lower-case hex digits) when whoever produced the bytes already
  // verified it (an upload, against the client's announced digest), so that recording the model
  // does not hash the bytes a second time; empty: nobody did, and the store hashes them
  // (ModelStore::Save). The loader ignores it.
  std::string neff_sha256;
  // The tensors the configuration declares (a Triton config.pbtxt's): checked against the
  // runtime's once the NEFF is loaded, before the model takes a request
  // (declared_tensors.h). Empty: nothing declared, nothing checked.
  std::vector<DeclaredTensor> declared_tensors;

  // The bytes of every NEFF the spec carries: the one, or all the variants'.
  uint64_t TotalNeffBytes() const {
    uint64_t total = neff != nullptr ? neff->size() : 0;
    for (const VariantSpec& variant : variants) {
      total += variant.neff != nullptr ? variant.neff->size() : 0;
    }
    return total;
  }
};

struct VersionLoaderOptions {
  // How long Detach waits for requests in flight before answering the queued ones UNAVAILABLE.
  absl::Duration unload_timeout = kDefaultUnloadTimeout;
  // A version's request queue bound when its LoadSpec does not set one.
  uint32_t max_queue = kDefaultMaxQueue;
  // Tensor sets per replica when a LoadSpec does not set pipeline_depth.
  uint32_t pipeline_depth = kDefaultPipelineDepth;
  // Where each loaded version's requests are counted (nullable).
  ServingMetrics* metrics = nullptr;
  // Bounds the input bytes queued for every version together (nullable: no bound).
  QueuedBytesBudget* queued_bytes = nullptr;
};

class VersionLoader {
 public:
  VersionLoader(const NrtRuntime& runtime, CoreAllocator& allocator, WorkerPool& workers,
                VersionLoaderOptions options);
  VersionLoader(const VersionLoader&) = delete;
  VersionLoader& operator=(const VersionLoader&) = delete;

  // Places and loads every replica of `spec` and builds the version, not yet attached to the
  // workers. The placement's owner is spec.identity.name, so versions of one model may share
  // cores with each other.
  absl::StatusOr<std::shared_ptr<LoadedModel>> Load(const LoadSpec& spec);
  // Binds the loaded version's replicas to the workers of their cores; before this no worker
  // takes its requests.
  void Attach(LoadedModel& model);

  // Attach's reverse, the first step of an unload: waits until no lease of `model` is out (see
  // the top of this file), then detaches it from the workers. Its queue refuses new requests
  // afterwards. Blocks for up to the unload timeout plus the longest execution in progress.
  void Detach(LoadedModel& model);
  // Drops `model`, which must be the last reference to a detached version (nrt_unload of every
  // replica), and releases its cores.
  void Unload(std::shared_ptr<LoadedModel> model);
  // Detach, then Unload.
  void Retire(std::shared_ptr<LoadedModel> model);

 private:
  // A batched model's warm-up: every variant on every replica executes once on zero inputs
  // before the model is READY, so that a variant the runtime cannot run fails the load (naming
  // it and the runtime's status) and the batcher starts from measured costs, not guesses.
  absl::Status WarmUp(const std::string& name,
                      const std::vector<std::unique_ptr<ModelReplica>>& replicas,
                      Scheduler& scheduler);
  // `pipeline_depth` sets of device tensors for each variant of each replica, `tensors[v]` for
  // variant v.
  // A runtime call of the load failed on `cores` with `status`: a hardware fault (as
  // ClassifyExecutionFailure says: NRT_HW_ERROR, a hang, the EXEC_HW_ERR family) takes them out
  // of rotation, as an execution's does; any other failure leaves them serving.
  void NoteLoadFailure(const std::string& name, const absl::Status& status, const CoreRange& cores);
  absl::Status BindTensors(const std::string& name, const std::vector<ModelTensors>& tensors,
                           uint32_t pipeline_depth,
                           std::vector<std::unique_ptr<ModelReplica>>& replicas);

  const NrtRuntime& runtime_;
  CoreAllocator& allocator_;
  WorkerPool& workers_;
  const VersionLoaderOptions options_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_LIFECYCLE_VERSION_LOADER_H_
