#include "sim/resident_model.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <span>
#include <thread>

#include "base/nrt_status_names.h"
#include "sim/call_faults.h"
#include "sim/compute/kernels.h"
#include "sim/graph_executor.h"
#include "sim/log.h"
#include "sim/sim_counters.h"
#include "sim/simmodel/model_graph.h"

namespace neuronserve::nrtsim {
namespace {

// The rules that apply to a copy of the model loaded at `start_core`.
std::vector<simmodel::Fault> FaultsForCore(const std::vector<simmodel::Fault>& rules,
                                           uint32_t start_core) {
  std::vector<simmodel::Fault> applicable;
  for (const simmodel::Fault& rule : rules) {
    if (!rule.core.has_value() || *rule.core == start_core) applicable.push_back(rule);
  }
  return applicable;
}

// A constant's numbers as the bytes of its dtype. Float constants are first rounded to float32
// (the format's promise: each is a finite float32), then cast like any float32 tensor; integer
// constants are whole numbers in range (checked at load), so the cast from int64 is exact.
std::vector<std::byte> EncodeConstant(const simmodel::Constant& constant) {
  const uint64_t count = constant.data.size();
  std::vector<std::byte> bytes(count * DataTypeSize(constant.dtype));
  const compute::MutTensor out{constant.dtype, &constant.shape, bytes};
  if (simmodel::IsFloatingPoint(constant.dtype)) {
    std::vector<float> floats(constant.data.begin(), constant.data.end());
    compute::Cast({DataType::kFloat32, &constant.shape, std::as_bytes(std::span(floats))}, out);
  } else {
    std::vector<int64_t> integers;
    integers.reserve(count);
    for (double number : constant.data) integers.push_back(static_cast<int64_t>(number));
    compute::Cast({DataType::kInt64, &constant.shape, std::as_bytes(std::span(integers))}, out);
  }
  return bytes;
}

std::vector<std::vector<std::byte>> EncodeConstants(const simmodel::SimModel& spec,
                                                    const simmodel::ModelGraph& graph) {
  std::vector<std::vector<std::byte>> encoded;
  for (const simmodel::GraphConstant& constant : graph.constants) {
    encoded.push_back(EncodeConstant(spec.constants.at(constant.name)));
  }
  return encoded;
}

// The spec without the constants' numbers, which live on as bytes.
simmodel::SimModel WithoutConstantData(simmodel::SimModel spec) {
  spec.constants.clear();
  return spec;
}

}  // namespace

ResidentModel::ResidentModel(simmodel::SimModel spec, simmodel::ModelGraph graph,
                         ModelPlacement placement, HbmReservation constants)
    : constant_bytes_(EncodeConstants(spec, graph)),
      spec_(WithoutConstantData(std::move(spec))),
      graph_(std::move(graph)),
      placement_(std::move(placement)),
      constants_(std::move(constants)),
      faults_(FaultsForCore(spec_.faults, placement_.cores.start())) {
  Counters().live_models.fetch_add(1);
}

ResidentModel::~ResidentModel() { Counters().live_models.fetch_sub(1); }

std::span<const std::shared_ptr<DeviceCore>> ResidentModel::cores() const {
  return std::span(placement_.session->cores).subspan(placement_.cores.start(), spec_.nc_count);
}

NRT_STATUS ResidentModel::Execute(const TensorSet& inputs, TensorSet& outputs) {
  // Faults come first, before any check of the sets, so that a test can make the Nth execution
  // fail whatever it passes. Both kinds count every execution, so neither shifts the other's
  // numbering; a rule of NRTSIM_FAULTS(_FILE) that fires wins over the model file's (and
  // wrote its line). Either way the status returns before the inputs are read or the outputs
  // touched.
  std::optional<FaultInjector::Fired> fault = faults_.NextExecution();
  if (std::optional<NRT_STATUS> call_fault =
          InjectedCallFault(RuntimeCall::kExecute, placement_.cores.start())) {
    return *call_fault;
  }
  uint64_t latency_us = spec_.latency_us;
  if (fault) {
    Counters().faults_injected.fetch_add(1);
    if (fault->latency_us) {
      latency_us = *fault->latency_us;  // a slow execution: it runs, just longer
      LogLine("nrt_execute: injected fault: this execution takes " + std::to_string(latency_us) +
              " us");
    } else {
      const std::string_view name = NrtStatusName(fault->status);
      LogLine("nrt_execute: injected fault " +
              (!name.empty() ? std::string(name)
                             : std::to_string(static_cast<int32_t>(fault->status))));
      return fault->status;
    }
  }
  std::optional<std::vector<nrt_tensor*>> in =
      BindTensors(spec_.inputs, graph_.input_values, inputs, "input");
  if (!in) return NRT_INVALID;
  std::optional<std::vector<nrt_tensor*>> out =
      BindTensors(spec_.outputs, graph_.output_values, outputs, "output");
  if (!out) return NRT_INVALID;
  return RunOnDevice(*in, *out, latency_us);
}

std::optional<std::vector<nrt_tensor*>> ResidentModel::BindTensors(
    const std::vector<simmodel::TensorSignature>& specs, const std::vector<size_t>& values,
    const TensorSet& set, const char* usage) const {
  std::vector<nrt_tensor*> bound;
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string& name = specs[i].name;
    uint64_t expected_size = graph_.values[values[i]].byte_size;
    auto reject = [&](const std::string& problem) {
      LogLine("nrt_execute: " + std::string(usage) + " tensor '" + name + "' " + problem);
      return std::nullopt;
    };
    nrt_tensor* tensor = set.Find(name);
    if (tensor == nullptr) return reject("is not in the " + std::string(usage) + " set");
    if (!tensor->valid_handle()) return reject("is not a valid tensor handle");
    if (tensor->placement() == NRT_TENSOR_PLACEMENT_VIRTUAL) {
      return reject("is a VIRTUAL tensor (it has no memory)");
    }
    if (tensor->size() != expected_size) {
      return reject("has " + std::to_string(tensor->size()) + " bytes; the model needs " +
                    std::to_string(expected_size));
    }
    if (tensor->placement() == NRT_TENSOR_PLACEMENT_DEVICE) {
      bool on_model_core = false;
      for (const std::shared_ptr<DeviceCore>& core : cores()) {
        on_model_core = on_model_core || core.get() == tensor->core();
      }
      if (!on_model_core) {
        return reject("is on a core outside the model's cores " +
                      std::to_string(placement_.cores.start()) + ".." +
                      std::to_string(placement_.cores.start() + spec_.nc_count - 1) +
                      " (or from before the last nrt_close)");
      }
    }
    bound.push_back(tensor);
  }
  return bound;
}

namespace {

// Holds the execution locks of every core of a model for its device section, and marks the
// cores as executing (DeviceCore::BeginExecution) until it ends, charging each `busy`. Cores are
// locked in ascending order (a model's cores are ascending) so that two multi-core models that
// overlap cannot deadlock. Exempt from the thread-safety analysis: the set of locks is known
// only at run time, and nothing is guarded by them (DeviceCore::execution_mutex).
class ExecutionLocks {
 public:
  explicit ExecutionLocks(std::span<const std::shared_ptr<DeviceCore>> cores)
      ABSL_NO_THREAD_SAFETY_ANALYSIS : cores_(cores) {
    for (const std::shared_ptr<DeviceCore>& core : cores_) {
      core->execution_mutex().Lock();
      core->BeginExecution();
    }
  }
  ~ExecutionLocks() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    for (auto core = cores_.rbegin(); core != cores_.rend(); ++core) {
      (*core)->EndExecution(busy);
      (*core)->execution_mutex().Unlock();
    }
  }
  // How long the execution holds the cores, in the simulator's nominal time.
  std::chrono::microseconds busy{0};
  ExecutionLocks(const ExecutionLocks&) = delete;
  ExecutionLocks& operator=(const ExecutionLocks&) = delete;

 private:
  const std::span<const std::shared_ptr<DeviceCore>> cores_;
};

}  // namespace

NRT_STATUS ResidentModel::RunOnDevice(const std::vector<nrt_tensor*>& inputs,
                                    const std::vector<nrt_tensor*>& outputs,
                                    uint64_t latency_us) {
  // Like the hardware, a core runs one execution at a time.
  ExecutionLocks held(cores());
  held.busy = std::chrono::microseconds(latency_us);
  DeviceSectionScope in_device;
  auto start = std::chrono::steady_clock::now();
  // NEURON_RT_EXEC_TIMEOUT: an execution that would run longer holds its cores for the timeout,
  // like a hung one, and fails without touching the outputs.
  if (const std::optional<uint32_t>& timeout = placement_.session->config.exec_timeout_seconds;
      timeout && latency_us > uint64_t{*timeout} * 1000000) {
    held.busy = std::chrono::seconds(*timeout);
    std::this_thread::sleep_until(start + std::chrono::seconds(*timeout));
    LogLine("nrt_execute: timed out after NEURON_RT_EXEC_TIMEOUT=" + std::to_string(*timeout) +
            " s (the execution takes " + std::to_string(latency_us) + " us)");
    return NRT_TIMEOUT;
  }

  std::vector<std::span<const std::byte>> input_bytes;
  for (const nrt_tensor* tensor : inputs) input_bytes.emplace_back(tensor->data(), tensor->size());
  std::vector<std::span<std::byte>> output_bytes;
  for (nrt_tensor* tensor : outputs) output_bytes.emplace_back(tensor->data(), tensor->size());
  std::optional<std::string> error = RunGraph(graph_, constant_bytes_, input_bytes, output_bytes);

  // Sleep, not spin: on hardware the host CPU is idle while the core computes.
  std::this_thread::sleep_until(start + std::chrono::microseconds(latency_us));
  Counters().executions.fetch_add(1);
  if (error) {
    LogLine("nrt_execute: " + *error);
    return NRT_EXEC_BAD_INPUT;
  }
  return NRT_SUCCESS;
}

nrt_tensor_info_array_t* ResidentModel::NewTensorInfo() const {
  size_t count = spec_.inputs.size() + spec_.outputs.size();
  size_t dims = 0;
  for (const simmodel::TensorSignature& d : spec_.inputs) dims += d.shape.size();
  for (const simmodel::TensorSignature& d : spec_.outputs) dims += d.shape.size();
  // One block: the header, the entries, then every shape array, so a single free() releases it.
  size_t header_bytes = sizeof(nrt_tensor_info_array_t) + count * sizeof(nrt_tensor_info_t);
  void* block = std::calloc(1, header_bytes + dims * sizeof(uint32_t));
  if (block == nullptr) return nullptr;
  auto* array = static_cast<nrt_tensor_info_array_t*>(block);
  auto* next_shape = reinterpret_cast<uint32_t*>(static_cast<char*>(block) + header_bytes);
  array->tensor_count = count;
  size_t index = 0;
  auto fill = [&](const simmodel::TensorSignature& decl, size_t value, nrt_tensor_usage_t usage) {
    nrt_tensor_info_t& info = array->tensor_array[index++];
    std::memcpy(info.name, decl.name.data(), decl.name.size());  // name < NRT_TENSOR_NAME_MAX
    info.usage = usage;
    info.size = graph_.values[value].byte_size;
    // nrt_load refused a dtype the reported version has no number for. NRTSIM_VOID_DTYPE_TENSORS
    // imitates runtimes that report some tensors' dtype as void (0).
    const SimConfig& config = placement_.session->config;
    info.dtype = config.ReportsVoidDtype(decl.name)
                     ? 0
                     : ToNrtDtype(decl.dtype, config.dtype_numbering).value_or(0);
    info.shape = next_shape;
    info.ndim = static_cast<uint32_t>(decl.shape.size());
    for (uint32_t dim : decl.shape) *next_shape++ = dim;
  };
  for (size_t i = 0; i < spec_.inputs.size(); ++i) {
    fill(spec_.inputs[i], graph_.input_values[i], NRT_TENSOR_USAGE_INPUT);
  }
  for (size_t i = 0; i < spec_.outputs.size(); ++i) {
    fill(spec_.outputs[i], graph_.output_values[i], NRT_TENSOR_USAGE_OUTPUT);
  }
  return array;
}

}  // namespace neuronserve::nrtsim
