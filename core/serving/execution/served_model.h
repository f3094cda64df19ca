// ServedModel: what the execution layer needs of a model whose replicas it runs, and nothing
// else of it: its name for messages, its scheduler (where the next unit comes from), its
// replicas, the tensors a unit's jobs carry, and where an execution is recorded.
//
// LoadedModel (core/serving/model/) implements it; a core worker and the worker pool see only
// this, so the execution layer sits below model bookkeeping. A model kind that binds more per
// execution (state slots, shared weights) still presents its replicas here; what differs lives
// in its scheduler (which unit runs next) and its replicas (what stays bound on the device).
//
// Thread safety: every member is callable from any thread while the caller keeps the model
// alive (a worker: while the model is attached; see CoreWorker::Detach). RecordExecution is
// lock-free. Ownership: the implementation owns its scheduler and replicas.
#ifndef NEURON_SERVE_CORE_SERVING_EXECUTION_SERVED_MODEL_H_
#define NEURON_SERVE_CORE_SERVING_EXECUTION_SERVED_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "core/nrt/nrt_handles.h"
#include "core/serving/execution/model_replica.h"
#include "core/serving/scheduling/scheduler.h"

namespace neuronserve {

class ServedModel {
 public:
  virtual ~ServedModel() = default;

  // The model's name, as messages name it ("model '<name>' ...").
  virtual const std::string& name() const = 0;
  // Where the model's units come from; null for a version that takes no requests.
  virtual Scheduler* scheduler() const = 0;
  virtual const std::vector<std::unique_ptr<ModelReplica>>& replicas() const = 0;
  // The tensors a job carries, in the runtime's order (InferenceJob's input and output
  // indices): each a whole tensor, or one row of it for a batched model.
  virtual const std::vector<TensorSpec>& inputs() const = 0;
  virtual const std::vector<TensorSpec>& outputs() const = 0;
  // One successful execution of `rows` requests' rows (padding not counted) that took
  // `device` on the device, of which `input` writing and `output` reading.
  virtual void RecordExecution(uint32_t rows, absl::Duration device, absl::Duration input,
                               absl::Duration output) = 0;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_EXECUTION_SERVED_MODEL_H_
