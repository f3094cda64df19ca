// ResidentModel: a model loaded by nrt_load and resident on simulated cores (the simulator's
// side of an nrt_model_t; not the daemon's neuronserve::LoadedModel of core/serving): its
// checked graph, the cores it occupies, the HBM its constants take, its faults, and the
// execution protocol (fault check, tensor checks, device section).
#ifndef NEURON_SERVE_SIM_RESIDENT_MODEL_H_
#define NEURON_SERVE_SIM_RESIDENT_MODEL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/nrt_abi.h"
#include "sim/core_occupancy.h"
#include "sim/device_core.h"
#include "sim/fault_injector.h"
#include "sim/handle_tag.h"
#include "sim/runtime_state.h"
#include "sim/simmodel/model_graph.h"
#include "sim/simmodel/sim_model.h"
#include "sim/tensor_set.h"

namespace neuronserve::nrtsim {

struct ModelPlacement {
  std::shared_ptr<const Session> session;
  // The model's cores, from cores.start() (visible numbering), marked as holding a model while
  // it lives.
  CoreOccupancy::Claim cores;
};

class ResidentModel {
 public:
  // `spec` has passed CompileModelGraph into `graph`; `constants` is the HBM the constants took
  // on the start core. The constants' numbers are encoded in their dtypes here and dropped
  // from the kept spec.
  ResidentModel(simmodel::SimModel spec, simmodel::ModelGraph graph, ModelPlacement placement,
              HbmReservation constants);
  ~ResidentModel();
  ResidentModel(const ResidentModel&) = delete;
  ResidentModel& operator=(const ResidentModel&) = delete;

  bool valid_handle() const { return tag_.valid(); }
  uint32_t nc_count() const { return spec_.nc_count; }
  uint64_t session_id() const { return placement_.session->id; }

  // nrt_execute after the runtime checks: NRT_SUCCESS, a fault's status, NRT_INVALID (with a
  // log line naming the tensor) when the sets do not match the model, NRT_TIMEOUT when
  // latency_us is longer than NEURON_RT_EXEC_TIMEOUT, or NRT_EXEC_BAD_INPUT (with a line naming
  // the op) when an op cannot run on the inputs, e.g. a gather index out of range.
  NRT_STATUS Execute(const TensorSet& inputs, TensorSet& outputs);

  // nrt_get_model_tensor_info: inputs, then outputs, in one calloc'd block (freed with free()).
  nrt_tensor_info_array_t* NewTensorInfo() const;

 private:
  // The model's cores, in ascending order.
  std::span<const std::shared_ptr<DeviceCore>> cores() const;
  // Looks up every declared tensor of `decls` in `set` and checks it; nullopt (after logging)
  // on the first mismatch.
  std::optional<std::vector<nrt_tensor*>> BindTensors(
      const std::vector<simmodel::TensorSignature>& specs, const std::vector<size_t>& values,
      const TensorSet& set, const char* usage) const;
  // Runs the graph holding the model's cores for `latency_us` (the model's, or a slow fault's).
  NRT_STATUS RunOnDevice(const std::vector<nrt_tensor*>& inputs,
                         const std::vector<nrt_tensor*>& outputs, uint64_t latency_us);

  HandleTag<0x6e727473696d4d03> tag_;
  // The constants' bytes in their dtypes, parallel to graph_.constants. Declared before spec_,
  // from whose numbers it is made before they are dropped.
  const std::vector<std::vector<std::byte>> constant_bytes_;
  const simmodel::SimModel spec_;  // without the constants' numbers
  const simmodel::ModelGraph graph_;
  const ModelPlacement placement_;
  HbmReservation constants_;
  FaultInjector faults_;
};

}  // namespace neuronserve::nrtsim

// The opaque handle of the C ABI is the model itself.
struct nrt_model final : neuronserve::nrtsim::ResidentModel {
  using ResidentModel::ResidentModel;
};

#endif  // NEURON_SERVE_SIM_RESIDENT_MODEL_H_
