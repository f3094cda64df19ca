// The simulated machine, as the environment describes it (see README.md for every variable).
// Read afresh at each nrt_init, and by the functions that may be called before it. A SimConfig
// is a plain value: copy it freely; it is immutable once a session holds it.
//
// Core numbering: the runtime counts logical cores. On the families without logical cores
// (inf1, inf2, trn1) a logical core is one physical core. On trn2 NEURON_LOGICAL_NC_CONFIG (LNC)
// physical cores form one logical core: logical core c is physical cores c*LNC .. c*LNC+LNC-1.
// The physical cores 2i and 2i+1 of a trn2 share one HBM bank.
#ifndef NEURON_SERVE_SIM_SIM_CONFIG_H_
#define NEURON_SERVE_SIM_SIM_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/dtype.h"
#include "sim/call_fault_rules.h"
#include "sim/instance_table.h"
#include "sim/text_parse.h"

namespace neuronserve::nrtsim {

struct SimConfig {
  // NRTSIM_CORES: the core count the runtime reports in the family's default configuration
  // (trn2: logical cores at LNC=2). It picks the instance size.
  uint32_t default_core_count = 0;
  const InstanceFamily* family = nullptr;
  uint32_t instance_size = 0;  // NRT_INSTANCE_SIZE_*
  // NEURON_LOGICAL_NC_CONFIG: physical cores per logical core.
  uint32_t lnc = 1;
  // Logical cores of the machine: what nrt_get_total_nc_count reports, and what
  // NEURON_RT_VISIBLE_CORES and NEURON_RT_NUM_CORES count.
  uint32_t core_count = 0;
  // NRTSIM_HBM_BYTES: the bytes of one HBM pool. A pool is one core's HBM in the default
  // configuration; at LNC=1 on trn2 two logical cores share one pool.
  uint64_t hbm_bytes_per_pool = 0;
  uint32_t cores_per_hbm_pool = 1;  // 2 on trn2 at LNC=1, else 1
  RuntimeVersion version;
  // The numbering of nrt_dtype_t that a runtime of `version` uses.
  DtypeNumbering dtype_numbering = DtypeNumbering::kRuntime230;
  // Logical ids of the visible cores, contiguous and ascending; visible core i is
  // visible_cores[i].
  std::vector<uint32_t> visible_cores;
  // NRTSIM_DMA_BYTES_PER_SECOND: the bandwidth of each core's copy engine, which nrt_tensor_read
  // and nrt_tensor_write of DEVICE tensors take their time on; 0: copies are free.
  uint64_t dma_bytes_per_second = 0;
  // NEURON_RT_EXEC_TIMEOUT in seconds; nullopt: executions never time out.
  std::optional<uint32_t> exec_timeout_seconds;
  // NRTSIM_VOID_DTYPE_TENSORS: tensors whose dtype nrt_get_model_tensor_info reports as 0.
  std::vector<std::string> void_dtype_tensors;
  // Where the per-physical-core lock files live (NRTSIM_LOCK_DIR or its default).
  std::string lock_dir;
  // NRTSIM_FAULTS: rules that fail runtime calls (call_faults.h), checked against the visible
  // cores; NRTSIM_FAULTS_FILE: the file of more such rules, read while the runtime runs (empty:
  // none).
  std::vector<CallFaultRule> call_fault_rules;
  std::string call_faults_file;

  uint32_t physical_core_count() const { return core_count * lnc; }
  // The physical cores of the visible cores, ascending.
  std::vector<uint32_t> VisiblePhysicalCores() const;
  // The HBM pool of logical core `core` (pools are numbered like the default-configuration
  // cores).
  uint32_t HbmPoolOf(uint32_t core) const { return core / cores_per_hbm_pool; }
  bool ReportsVoidDtype(std::string_view tensor_name) const;
};

// On a malformed or out-of-range variable returns nullopt and sets *error to a sentence naming
// the variable and its value.
std::optional<SimConfig> ReadSimConfigFromEnvironment(std::string* error);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_SIM_CONFIG_H_
