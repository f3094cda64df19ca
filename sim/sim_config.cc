#include "sim/sim_config.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>

#include "sim/visible_cores.h"

namespace neuronserve::nrtsim {
namespace {

constexpr uint32_t kDefaultCoreCount = 2;
// Far beyond any real instance (trn2.48xlarge with LNC=1 has 128); it only stops a typo such as
// NRTSIM_CORES=80000 from allocating a huge core table.
constexpr uint64_t kMaxCoreCount = 4096;
constexpr std::string_view kDefaultInstance = "inf2";
constexpr std::string_view kDefaultVersion = "2.30.0";

// An unset and an empty variable both mean "use the default": shells and container specs
// commonly export VAR= to clear a setting.
std::optional<std::string_view> GetEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string_view(value);
}

std::string Describe(const char* name, std::string_view value, std::string_view problem) {
  return std::string(name) + "='" + std::string(value) + "' " + std::string(problem);
}

bool ReadCoreCount(SimConfig* config, std::string* error) {
  config->default_core_count = kDefaultCoreCount;
  std::optional<std::string_view> text = GetEnv("NRTSIM_CORES");
  if (!text) return true;
  std::optional<uint64_t> count = ParseUnsigned(*text);
  if (!count || *count == 0 || *count > kMaxCoreCount) {
    *error = Describe(
        "NRTSIM_CORES", *text,
        "is not a core count (an integer from 1 to " + std::to_string(kMaxCoreCount) + ")");
    return false;
  }
  config->default_core_count = static_cast<uint32_t>(*count);
  return true;
}

bool ReadInstance(SimConfig* config, std::string* error) {
  std::string_view name = GetEnv("NRTSIM_INSTANCE").value_or(kDefaultInstance);
  config->family = FindInstanceFamily(name);
  if (config->family == nullptr) {
    *error = Describe("NRTSIM_INSTANCE", name, "is not one of inf1, inf2, trn1, trn2");
    return false;
  }
  // The size follows the default configuration's count, whatever NEURON_LOGICAL_NC_CONFIG says.
  config->instance_size = InstanceSizeForCores(*config->family, config->default_core_count);
  return true;
}

// NEURON_LOGICAL_NC_CONFIG: 1 or 2 on trn2 (default 2), only 1 elsewhere. It decides how many
// logical cores the machine has and how they share the HBM banks.
bool ReadLogicalNcConfig(SimConfig* config, std::string* error) {
  const uint32_t default_lnc = config->family->default_lnc;
  config->lnc = default_lnc;
  if (std::optional<std::string_view> text = GetEnv("NEURON_LOGICAL_NC_CONFIG")) {
    std::optional<uint64_t> lnc = ParseUnsigned(*text);
    if (!lnc || (*lnc != 1 && *lnc != 2)) {
      *error = Describe("NEURON_LOGICAL_NC_CONFIG", *text, "is not 1 or 2");
      return false;
    }
    if (*lnc > default_lnc) {
      *error = Describe("NEURON_LOGICAL_NC_CONFIG", *text,
                        "is not supported on " + std::string(config->family->name) +
                            ", which has no logical NeuronCores (only 1 is accepted)");
      return false;
    }
    config->lnc = static_cast<uint32_t>(*lnc);
  }
  const uint32_t physical_cores = config->default_core_count * default_lnc;
  config->core_count = physical_cores / config->lnc;
  config->cores_per_hbm_pool = default_lnc / config->lnc;
  return true;
}

// The positive byte count in variable `name`, into *value (left as it is when the variable is
// unset); false with *error saying what is wrong, `expected` and its examples.
bool ReadPositiveByteCount(const char* name, const char* expected, uint64_t* value,
                           std::string* error) {
  std::optional<std::string_view> text = GetEnv(name);
  if (!text) return true;
  std::optional<uint64_t> bytes = ParseByteSize(*text);
  if (!bytes || *bytes == 0) {
    *error = Describe(name, *text, expected);
    return false;
  }
  *value = *bytes;
  return true;
}

bool ReadHbm(SimConfig* config, std::string* error) {
  config->hbm_bytes_per_pool = config->family->hbm_bytes_per_core;
  return ReadPositiveByteCount("NRTSIM_HBM_BYTES",
                               "is not a positive byte count (e.g. 1048576, 512KiB, 64MiB, 16GiB)",
                               &config->hbm_bytes_per_pool, error);
}

bool ReadDmaBandwidth(SimConfig* config, std::string* error) {
  return ReadPositiveByteCount(
      "NRTSIM_DMA_BYTES_PER_SECOND",
      "is not a positive byte count per second (e.g. 1048576, 512MiB, 16GiB)",
      &config->dma_bytes_per_second, error);
}

bool ReadVersion(SimConfig* config, std::string* error) {
  std::string_view text = GetEnv("NRTSIM_VERSION").value_or(kDefaultVersion);
  std::optional<RuntimeVersion> version = ParseRuntimeVersion(text);
  if (!version) {
    *error = Describe("NRTSIM_VERSION", text, "is not major.minor.patch[.maintenance]");
    return false;
  }
  config->version = *version;
  config->dtype_numbering = DtypeNumberingForVersion(version->major, version->minor);
  return true;
}

// NEURON_RT_VISIBLE_CORES wins over NEURON_RT_NUM_CORES, as in the real runtime. Both count
// logical cores.
bool ReadVisibleCores(SimConfig* config, std::string* error) {
  if (std::optional<std::string_view> list = GetEnv("NEURON_RT_VISIBLE_CORES")) {
    std::optional<std::vector<uint32_t>> cores = ParseVisibleCoreList(*list, config->core_count);
    if (!cores) {
      *error = Describe("NEURON_RT_VISIBLE_CORES", *list,
                        "is not one contiguous ascending set of cores (e.g. 2-5 or 3,4) below " +
                            std::to_string(config->core_count));
      return false;
    }
    config->visible_cores = std::move(*cores);
    return true;
  }
  uint64_t count = config->core_count;
  if (std::optional<std::string_view> text = GetEnv("NEURON_RT_NUM_CORES")) {
    std::optional<uint64_t> parsed = ParseUnsigned(*text);
    if (!parsed || *parsed > config->core_count) {
      *error = Describe("NEURON_RT_NUM_CORES", *text,
                        "is not a core count from 1 to " + std::to_string(config->core_count) +
                            " (or 0 for all)");
      return false;
    }
    if (*parsed != 0) count = *parsed;  // 0, the runtime's default, means all cores
  }
  config->visible_cores.resize(count);
  std::iota(config->visible_cores.begin(), config->visible_cores.end(), 0u);
  return true;
}

bool ReadExecTimeout(SimConfig* config, std::string* error) {
  std::optional<std::string_view> text = GetEnv("NEURON_RT_EXEC_TIMEOUT");
  if (!text) return true;
  std::optional<uint64_t> seconds = ParseUnsigned(*text);
  if (!seconds || *seconds == 0 || *seconds > std::numeric_limits<uint32_t>::max()) {
    *error = Describe("NEURON_RT_EXEC_TIMEOUT", *text,
                      "is not a positive whole number of seconds (at most 4294967295)");
    return false;
  }
  config->exec_timeout_seconds = static_cast<uint32_t>(*seconds);
  return true;
}

bool ReadVoidDtypeTensors(SimConfig* config, std::string* error) {
  std::optional<std::string_view> text = GetEnv("NRTSIM_VOID_DTYPE_TENSORS");
  if (!text) return true;
  std::string_view rest = *text;
  while (true) {
    size_t comma = rest.find(',');
    std::string_view name = rest.substr(0, comma);
    if (name.empty()) {
      *error = Describe("NRTSIM_VOID_DTYPE_TENSORS", *text,
                        "is not a comma-separated list of tensor names (an empty name)");
      return false;
    }
    config->void_dtype_tensors.emplace_back(name);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return true;
}

// NRTSIM_FAULTS is parsed here, so that a bad rule fails nrt_init like any bad variable. The
// file's content is not: it may change while the runtime runs (call_faults.h reads it).
bool ReadCallFaults(SimConfig* config, std::string* error) {
  if (std::optional<std::string_view> text = GetEnv("NRTSIM_FAULTS")) {
    std::string problem;
    std::optional<std::vector<CallFaultRule>> rules =
        ParseCallFaultRules(*text, static_cast<uint32_t>(config->visible_cores.size()), &problem);
    if (!rules) {
      *error = Describe("NRTSIM_FAULTS", *text, "has a bad " + problem);
      return false;
    }
    config->call_fault_rules = std::move(*rules);
  }
  if (std::optional<std::string_view> file = GetEnv("NRTSIM_FAULTS_FILE")) {
    config->call_faults_file = std::string(*file);
  }
  return true;
}

// NRTSIM_LOCK_DIR, else $XDG_RUNTIME_DIR/nrtsim, else /dev/shm/nrtsim-<uid>: per user, on a
// file system that is cleared at boot, so a stale lock file never outlives the machine.
void ReadLockDir(SimConfig* config) {
  if (std::optional<std::string_view> dir = GetEnv("NRTSIM_LOCK_DIR")) {
    config->lock_dir = std::string(*dir);
  } else if (std::optional<std::string_view> runtime_dir = GetEnv("XDG_RUNTIME_DIR")) {
    config->lock_dir = std::string(*runtime_dir) + "/nrtsim";
  } else {
    config->lock_dir = "/dev/shm/nrtsim-" + std::to_string(getuid());
  }
}

}  // namespace

std::vector<uint32_t> SimConfig::VisiblePhysicalCores() const {
  std::vector<uint32_t> physical;
  for (uint32_t core : visible_cores) {
    for (uint32_t i = 0; i < lnc; ++i) physical.push_back(core * lnc + i);
  }
  return physical;
}

bool SimConfig::ReportsVoidDtype(std::string_view tensor_name) const {
  return std::find(void_dtype_tensors.begin(), void_dtype_tensors.end(), tensor_name) !=
         void_dtype_tensors.end();
}

std::optional<SimConfig> ReadSimConfigFromEnvironment(std::string* error) {
  SimConfig config;
  // Order matters: the instance size needs the core count, the logical core count and the HBM
  // default need the family, the visible cores need the logical core count, and the fault rules'
  // core= the visible cores.
  if (!ReadCoreCount(&config, error) || !ReadInstance(&config, error) ||
      !ReadLogicalNcConfig(&config, error) || !ReadHbm(&config, error) ||
      !ReadDmaBandwidth(&config, error) || !ReadVersion(&config, error) ||
      !ReadVisibleCores(&config, error) || !ReadExecTimeout(&config, error) ||
      !ReadVoidDtypeTensors(&config, error) || !ReadCallFaults(&config, error)) {
    return std::nullopt;
  }
  ReadLockDir(&config);
  return config;
}

}  // namespace neuronserve::nrtsim
