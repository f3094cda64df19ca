// Facts about the instance families the simulator can pretend to be: the value of
// nrt_instance_info_t.family, the architecture name, the sizes and their core counts, the HBM of
// one NeuronCore and how many physical cores form one logical core by default.
#ifndef NEURON_SERVE_SIM_INSTANCE_TABLE_H_
#define NEURON_SERVE_SIM_INSTANCE_TABLE_H_

#include <cstdint>
#include <string_view>

namespace neuronserve::nrtsim {

struct InstanceFamily {
  std::string_view name;       // as NRTSIM_INSTANCE spells it: "inf2"
  uint32_t family;             // NRT_INSTANCE_*
  std::string_view arch_name;  // "inferentia2"
  // HBM of one core in the default configuration (trn2: one logical core at LNC=2, i.e. one
  // HBM bank shared by two physical cores).
  uint64_t hbm_bytes_per_core;
  // Physical cores per logical core by default (NEURON_LOGICAL_NC_CONFIG): 2 on trn2, which
  // also accepts 1; 1 on the families without logical cores, which accept only 1.
  uint32_t default_lnc;
};

// nullptr for a name that is not inf1, inf2, trn1 or trn2.
const InstanceFamily* FindInstanceFamily(std::string_view name);

// The smallest real size of the family with at least core_count (logical) NeuronCores, as an
// NRT_INSTANCE_SIZE_* value; NRT_INSTANCE_SIZE_UNKNOWN if even the largest has fewer.
uint32_t InstanceSizeForCores(const InstanceFamily& family, uint32_t core_count);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_INSTANCE_TABLE_H_
