// extern "C" entry points: loading, describing, executing and unloading models.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "base/nrt_abi.h"
#include "sim/abi_guard.h"
#include "sim/abort_hook.h"
#include "sim/call_faults.h"
#include "sim/load_placement.h"
#include "sim/log.h"
#include "sim/resident_model.h"
#include "sim/runtime_state.h"
#include "sim/simmodel/model_graph.h"
#include "sim/simmodel/sim_model_reader.h"

namespace nrtsim = neuronserve::nrtsim;
namespace simmodel = neuronserve::simmodel;

namespace {

NRT_STATUS RejectLoad(NRT_STATUS status, const std::string& why) {
  nrtsim::LogLine("nrt_load: " + why);
  return status;
}

// A version that predates a dtype has no number for it (FP8 before 2.30), so such a model
// cannot be described by nrt_get_model_tensor_info: refuse it, as the older runtime would.
// Returns the complaint, or an empty string.
std::string DtypeWithoutNumber(const simmodel::SimModel& model,
                               neuronserve::DtypeNumbering numbering) {
  for (const auto* specs : {&model.inputs, &model.outputs}) {
    for (const simmodel::TensorSignature& spec : *specs) {
      if (!neuronserve::ToNrtDtype(spec.dtype, numbering)) {
        return "tensor '" + spec.name + "': dtype " +
               std::string(neuronserve::DataTypeName(spec.dtype)) +
               " does not exist in the dtype numbering of the reported runtime version (" +
               std::string(neuronserve::DtypeNumberingName(numbering)) + ")";
      }
    }
  }
  return "";
}

NRT_STATUS Load(const void* neff_bytes, size_t size, int32_t vnc, int32_t vnc_count,
                nrt_model_t** model) {
  if (neff_bytes == nullptr || model == nullptr) {
    return RejectLoad(NRT_INVALID, "null model bytes or result pointer");
  }
  std::shared_ptr<const nrtsim::Session> session;
  if (NRT_STATUS s = nrtsim::CurrentSession(&session); s != NRT_SUCCESS) return s;

  simmodel::FormatResult<simmodel::SimModel> spec =
      simmodel::ReadSimModel(std::string_view(static_cast<const char*>(neff_bytes), size));
  if (!spec.ok()) return RejectLoad(NRT_INVALID, spec.error());
  if (std::string why = DtypeWithoutNumber(spec.value(), session->config.dtype_numbering);
      !why.empty()) {
    return RejectLoad(NRT_INVALID, why);
  }
  simmodel::FormatResult<simmodel::ModelGraph> graph = simmodel::CompileModelGraph(spec.value());
  if (!graph.ok()) return RejectLoad(NRT_INVALID, graph.error());
  const uint32_t nc_count = spec.value().nc_count;

  std::optional<nrtsim::CoreOccupancy::Claim> cores;
  if (NRT_STATUS s = nrtsim::PlaceModel(*session, vnc, vnc_count, nc_count, &cores);
      s != NRT_SUCCESS) {
    return s;
  }
  const uint32_t start = cores->start();
  // Here the start core is known (-1 resolved) and nothing is taken yet but the claim on the
  // cores, which returning releases: a fault leaves no trace.
  if (std::optional<NRT_STATUS> fault =
          nrtsim::InjectedCallFault(nrtsim::RuntimeCall::kLoad, start)) {
    return *fault;
  }
  std::optional<nrtsim::HbmReservation> constants =
      nrtsim::HbmReservation::TryReserve(session->cores[start], graph.value().constant_bytes);
  if (!constants) {
    return RejectLoad(NRT_RESOURCE, "the constants need " +
                                        std::to_string(graph.value().constant_bytes) +
                                        " bytes of HBM, more than core " + std::to_string(start) +
                                        " has free");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(spec.value().load_latency_ms));
  *model = new nrt_model(std::move(spec).value(), std::move(graph).value(),
                         nrtsim::ModelPlacement{session, std::move(*cores)},
                         std::move(*constants));
  return NRT_SUCCESS;
}

NRT_STATUS CheckModel(const nrt_model_t* model) {
  if (model == nullptr) return NRT_INVALID;
  if (!model->valid_handle()) return NRT_INVALID_HANDLE;
  return NRT_SUCCESS;
}

NRT_STATUS Execute(nrt_model_t* model, const nrt_tensor_set_t* input_set,
                   nrt_tensor_set_t* output_set) {
  if (NRT_STATUS s = CheckModel(model); s != NRT_SUCCESS) return s;
  std::shared_ptr<const nrtsim::Session> session;
  if (NRT_STATUS s = nrtsim::CurrentSession(&session); s != NRT_SUCCESS) return s;
  if (model->session_id() != session->id) {
    nrtsim::LogLine("nrt_execute: the model was loaded before the last nrt_close");
    return NRT_INVALID;
  }
  auto* inputs = static_cast<const nrtsim::TensorSet*>(input_set);
  auto* outputs = static_cast<nrtsim::TensorSet*>(output_set);
  if (inputs == nullptr || outputs == nullptr) {
    nrtsim::LogLine("nrt_execute: null input or output tensor set");
    return NRT_INVALID;
  }
  if (!inputs->valid_handle() || !outputs->valid_handle()) return NRT_INVALID_HANDLE;
  nrtsim::AbortIfRequested();
  return model->Execute(*inputs, *outputs);
}

}  // namespace

extern "C" {

NRT_STATUS nrt_load(const void* neff_bytes, size_t size, int32_t vnc, int32_t vnc_count,
                    nrt_model_t** model) {
  try {
    return Load(neff_bytes, size, vnc, vnc_count, model);
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_load");
  }
}

NRT_STATUS nrt_unload(nrt_model_t* model) {
  try {
    if (NRT_STATUS s = CheckModel(model); s != NRT_SUCCESS) return s;
    // Works after nrt_close too: the model's HBM goes back to the core it came from.
    delete model;
    return NRT_SUCCESS;
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_unload");
  }
}

// The three ways to ask for a model's core count. Other builds of the library leave some out, as
// a runtime may, so that a caller's fallbacks can be tested (see CMakeLists.txt and README.md).
namespace {
NRT_STATUS GetModelCoreCount(const nrt_model_t* model, uint32_t* vnc_count) {
  if (NRT_STATUS s = CheckModel(model); s != NRT_SUCCESS) return s;
  if (vnc_count == nullptr) return NRT_INVALID;
  *vnc_count = model->nc_count();
  return NRT_SUCCESS;
}
}  // namespace

#ifndef NRTSIM_WITHOUT_MODEL_NC_COUNT
NRT_STATUS nrt_get_model_nc_count(const nrt_model_t* model, uint32_t* vnc_count) {
  return GetModelCoreCount(model, vnc_count);
}
#endif

#ifndef NRTSIM_WITHOUT_MODEL_VNC_COUNT
NRT_STATUS nrt_get_model_vnc_count(const nrt_model_t* model, uint32_t* vnc_count) {
  return GetModelCoreCount(model, vnc_count);
}
#endif

#ifndef NRTSIM_WITHOUT_MODEL_INFO
// Copies min(info_size_in, sizeof(nrt_model_info_t)) bytes and reports that many written, so a
// caller built against a smaller (or a future larger) struct gets what both know.
NRT_STATUS nrt_get_model_info(const nrt_model_t* model, nrt_model_info_t* info,
                              size_t info_size_in, size_t* info_size_out) {
  if (NRT_STATUS s = CheckModel(model); s != NRT_SUCCESS) return s;
  if (info == nullptr || info_size_out == nullptr) return NRT_INVALID;
  nrt_model_info_t full{};
  full.vnc = model->nc_count();
  const size_t copied = std::min(info_size_in, sizeof(full));
  std::memcpy(info, &full, copied);
  *info_size_out = copied;
  return NRT_SUCCESS;
}
#endif

NRT_STATUS nrt_get_model_tensor_info(nrt_model_t* model, nrt_tensor_info_array_t** tensor_info) {
  try {
    if (NRT_STATUS s = CheckModel(model); s != NRT_SUCCESS) return s;
    if (tensor_info == nullptr) return NRT_INVALID;
    *tensor_info = model->NewTensorInfo();
    return *tensor_info != nullptr ? NRT_SUCCESS : NRT_FAIL_HOST_MEM_ALLOC;
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_get_model_tensor_info");
  }
}

NRT_STATUS nrt_free_model_tensor_info(nrt_tensor_info_array_t* tensor_info) {
  std::free(tensor_info);  // one block, see ResidentModel::NewTensorInfo
  return NRT_SUCCESS;
}

NRT_STATUS nrt_execute(nrt_model_t* model, const nrt_tensor_set_t* input_set,
                       nrt_tensor_set_t* output_set) {
  try {
    return Execute(model, input_set, output_set);
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_execute");
  }
}

}  // extern "C"
