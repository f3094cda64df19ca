#include "core/nrtsim/sim_config.h"

#include <cstdlib>
#include <numeric>
#include <string_view>

#include "core/nrtsim/visible_cores.h"

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
  config->physical_core_count = kDefaultCoreCount;
  std::optional<std::string_view> text = GetEnv("NRTSIM_CORES");
  if (!text) return true;
  std::optional<uint64_t> count = ParseUnsigned(*text);
  if (!count || *count == 0 || *count > kMaxCoreCount) {
    *error = Describe(
        "NRTSIM_CORES", *text,
        "is not a core count (an integer from 1 to " + std::to_string(kMaxCoreCount) + ")");
    return false;
  }
  config->physical_core_count = static_cast<uint32_t>(*count);
  return true;
}

bool ReadInstance(SimConfig* config, std::string* error) {
  std::string_view name = GetEnv("NRTSIM_INSTANCE").value_or(kDefaultInstance);
  config->family = FindInstanceFamily(name);
  if (config->family == nullptr) {
    *error = Describe("NRTSIM_INSTANCE", name, "is not one of inf1, inf2, trn1, trn2");
    return false;
  }
  config->instance_size = InstanceSizeForCores(*config->family, config->physical_core_count);
  return true;
}

bool ReadHbm(SimConfig* config, std::string* error) {
  config->hbm_bytes_per_core = config->family->hbm_bytes_per_core;
  std::optional<std::string_view> text = GetEnv("NRTSIM_HBM_BYTES");
  if (!text) return true;
  std::optional<uint64_t> bytes = ParseByteSize(*text);
  if (!bytes || *bytes == 0) {
    *error = Describe("NRTSIM_HBM_BYTES", *text,
                      "is not a positive byte count (e.g. 1048576, 512KiB, 64MiB, 16GiB)");
    return false;
  }
  config->hbm_bytes_per_core = *bytes;
  return true;
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

// NEURON_RT_VISIBLE_CORES wins over NEURON_RT_NUM_CORES, as in the real runtime.
bool ReadVisibleCores(SimConfig* config, std::string* error) {
  if (std::optional<std::string_view> list = GetEnv("NEURON_RT_VISIBLE_CORES")) {
    std::optional<std::vector<uint32_t>> cores =
        ParseVisibleCoreList(*list, config->physical_core_count);
    if (!cores) {
      *error = Describe("NEURON_RT_VISIBLE_CORES", *list,
                        "is not a list of distinct cores and ranges (e.g. 0-3 or 1,3) below " +
                            std::to_string(config->physical_core_count));
      return false;
    }
    config->visible_cores = std::move(*cores);
    return true;
  }
  uint64_t count = config->physical_core_count;
  if (std::optional<std::string_view> text = GetEnv("NEURON_RT_NUM_CORES")) {
    std::optional<uint64_t> parsed = ParseUnsigned(*text);
    if (!parsed || *parsed == 0 || *parsed > config->physical_core_count) {
      *error =
          Describe("NEURON_RT_NUM_CORES", *text,
                   "is not a core count from 1 to " + std::to_string(config->physical_core_count));
      return false;
    }
    count = *parsed;
  }
  config->visible_cores.resize(count);
  std::iota(config->visible_cores.begin(), config->visible_cores.end(), 0u);
  return true;
}

}  // namespace

std::optional<SimConfig> ReadSimConfigFromEnvironment(std::string* error) {
  SimConfig config;
  // Order matters: the instance size needs the core count, the HBM default needs the family.
  if (!ReadCoreCount(&config, error) || !ReadInstance(&config, error) || !ReadHbm(&config, error) ||
      !ReadVersion(&config, error) || !ReadVisibleCores(&config, error)) {
    return std::nullopt;
  }
  return config;
}

}  // namespace neuronserve::nrtsim
