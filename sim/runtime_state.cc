#include "sim/runtime_state.h"

#include <map>
#include <string>

#include "base/instance_size_names.h"
#include "base/mutex.h"
#include "sim/call_faults.h"
#include "sim/core_locks.h"
#include "sim/log.h"
#include "sim/sim_counters.h"

namespace neuronserve::nrtsim {
namespace {

enum class RuntimePhase { kNeverInitialized, kOpen, kClosed };

struct RuntimeState {
  Mutex mutex;
  RuntimePhase phase ABSL_GUARDED_BY(mutex) = RuntimePhase::kNeverInitialized;
  std::shared_ptr<const Session> session ABSL_GUARDED_BY(mutex);  // set when kOpen
  uint64_t last_session_id ABSL_GUARDED_BY(mutex) = 0;
  std::unique_ptr<CoreLocks> core_locks ABSL_GUARDED_BY(mutex);  // set when kOpen
};

RuntimeState& State() {
  static RuntimeState state;
  return state;
}

std::string DescribeBytes(uint64_t bytes) {
  constexpr uint64_t kKiB = 1 << 10, kMiB = 1 << 20, kGiB = 1 << 30;
  if (bytes % kGiB == 0) return std::to_string(bytes / kGiB) + " GiB";
  if (bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  return std::to_string(bytes) + " bytes";
}

// "3", "2,3", "0,1,2,3" as "0-3": a list that may have gaps, shortened where it has none.
std::string DescribeCores(const std::vector<uint32_t>& cores) {
  if (cores.size() > 2 && cores.back() - cores.front() + 1 == cores.size()) {
    return std::to_string(cores.front()) + "-" + std::to_string(cores.back());
  }
  std::string text;
  for (uint32_t core : cores) {
    if (!text.empty()) text += ",";
    text += std::to_string(core);
  }
  return text;
}

void LogInit(const Session& session) {
  const SimConfig& c = session.config;
  std::string cores = std::to_string(c.visible_cores.size()) + " of " +
                      std::to_string(c.core_count) + " cores visible (" +
                      DescribeCores(c.visible_cores);
  if (c.family->default_lnc > 1) {
    cores += "; LNC=" + std::to_string(c.lnc) + ", physical cores " +
             DescribeCores(c.VisiblePhysicalCores());
  }
  cores += ")";
  std::string hbm = "HBM " + DescribeBytes(c.hbm_bytes_per_pool) +
                    (c.cores_per_hbm_pool > 1 ? " shared by each pair of cores" : " per core");
  std::string timeout = c.exec_timeout_seconds ? ", executions time out after " +
                                                     std::to_string(*c.exec_timeout_seconds) + " s"
                                               : "";
  std::string faults;
  if (!c.call_fault_rules.empty()) {
    faults += ", " + std::to_string(c.call_fault_rules.size()) + " fault rule(s) in NRTSIM_FAULTS";
  }
  if (!c.call_faults_file.empty()) faults += ", fault rules file " + c.call_faults_file;
  LogLine("nrt_init: simulated runtime " + c.version.ToString() + " (dtype numbering " +
          std::string(DtypeNumberingName(c.dtype_numbering)) + "), instance " +
          std::string(c.family->name) + "." + NrtInstanceSizeName(c.instance_size) + " (" +
          std::string(c.family->arch_name) + "), " + cores + ", " + hbm + timeout +
          ", core locks in " + c.lock_dir + faults);
}

// "NeuronCores 1,2 are in use by process 4242": one clause per holder, cores in the machine's
// logical numbering (with the physical cores when a logical core has several).
std::string DescribeBusyCores(const SimConfig& config, const std::vector<BusyCore>& busy) {
  std::map<pid_t, std::vector<uint32_t>> physical_by_holder;
  for (const BusyCore& core : busy) physical_by_holder[core.holder].push_back(core.physical_core);
  std::string text;
  for (const auto& [holder, physical] : physical_by_holder) {
    std::vector<uint32_t> logical;
    for (uint32_t core : physical) {
      if (logical.empty() || logical.back() != core / config.lnc) {
        logical.push_back(core / config.lnc);
      }
    }
    if (!text.empty()) text += ", ";
    text += (logical.size() == 1 ? "NeuronCore " : "NeuronCores ") + DescribeCores(logical);
    if (config.lnc > 1) text += " (physical " + DescribeCores(physical) + ")";
    text += logical.size() == 1 ? " is" : " are";
    text += holder != 0 ? " in use by process " + std::to_string(holder)
                        : " in use by another process (its pid is not written yet)";
  }
  return text;
}

// Takes the visible cores' lock files; NRT_SUCCESS and *locks set, or a status after a log line.
NRT_STATUS LockCores(const SimConfig& config, std::unique_ptr<CoreLocks>* locks) {
  CoreLockResult result = CoreLocks::Acquire(config.lock_dir, config.VisiblePhysicalCores());
  if (!result.error.empty()) {
    LogLine("nrt_init: " + result.error + " (NRTSIM_LOCK_DIR chooses the lock directory)");
    return NRT_FAILURE;
  }
  if (!result.busy.empty()) {
    LogLine("nrt_init: " + DescribeBusyCores(config, result.busy) +
            "; a NeuronCore belongs to one process (lock files in " + config.lock_dir + ")");
    return NRT_RESOURCE;
  }
  *locks = std::move(result.locks);
  return NRT_SUCCESS;
}

}  // namespace

std::shared_ptr<DeviceCore> Session::CoreAt(int64_t vnc) const {
  if (vnc < 0 || static_cast<uint64_t>(vnc) >= cores.size()) return nullptr;
  return cores[static_cast<size_t>(vnc)];
}

NRT_STATUS OpenRuntime() {
  RuntimeState& state = State();
  MutexLock lock(&state.mutex);
  if (state.phase == RuntimePhase::kOpen) {
    LogLine("nrt_init: the runtime is already initialized");
    return NRT_FAILURE;
  }
  std::string error;
  std::optional<SimConfig> config = ReadSimConfigFromEnvironment(&error);
  if (!config) {
    LogLine("nrt_init: " + error);
    return NRT_INVALID;
  }
  std::unique_ptr<CoreLocks> locks;
  if (NRT_STATUS status = LockCores(*config, &locks); status != NRT_SUCCESS) return status;
  auto session = std::make_shared<Session>();
  session->id = ++state.last_session_id;
  session->config = std::move(*config);
  const SimConfig& c = session->config;
  // One pool per HBM bank among the visible cores; at LNC=1 on trn2 a pair shares one.
  std::map<uint32_t, std::shared_ptr<HbmPool>> pools;
  for (size_t i = 0; i < c.visible_cores.size(); ++i) {
    std::shared_ptr<HbmPool>& pool = pools[c.HbmPoolOf(c.visible_cores[i])];
    if (pool == nullptr) pool = std::make_shared<HbmPool>(c.hbm_bytes_per_pool);
    session->cores.push_back(
        std::make_shared<DeviceCore>(static_cast<uint32_t>(i), c.visible_cores[i], pool));
  }
  session->occupancy =
      std::make_shared<CoreOccupancy>(static_cast<uint32_t>(c.visible_cores.size()));
  LogInit(*session);
  // Before the session is published, so that no call of this session sees the last one's rules.
  InstallCallFaults(session->config);
  state.session = std::move(session);
  state.core_locks = std::move(locks);
  state.phase = RuntimePhase::kOpen;
  Counters().init_count.fetch_add(1);
  return NRT_SUCCESS;
}

bool CloseRuntime() {
  RuntimeState& state = State();
  MutexLock lock(&state.mutex);
  if (state.phase != RuntimePhase::kOpen) return false;
  state.phase = RuntimePhase::kClosed;
  state.session.reset();
  state.core_locks.reset();  // other processes may take the cores now
  Counters().close_count.fetch_add(1);
  return true;
}

NRT_STATUS CurrentSession(std::shared_ptr<const Session>* session) {
  RuntimeState& state = State();
  MutexLock lock(&state.mutex);
  switch (state.phase) {
    case RuntimePhase::kNeverInitialized:
      return NRT_UNINITIALIZED;
    case RuntimePhase::kClosed:
      return NRT_CLOSED;
    case RuntimePhase::kOpen:
      *session = state.session;
      return NRT_SUCCESS;
  }
  return NRT_FAILURE;
}

NRT_STATUS ConfigForQuery(const char* caller, SimConfig* config) {
  std::shared_ptr<const Session> session;
  if (CurrentSession(&session) == NRT_SUCCESS) {
    *config = session->config;
    return NRT_SUCCESS;
  }
  std::string error;
  std::optional<SimConfig> fresh = ReadSimConfigFromEnvironment(&error);
  if (!fresh) {
    LogLine(std::string(caller) + ": " + error);
    return NRT_INVALID;
  }
  *config = std::move(*fresh);
  return NRT_SUCCESS;
}

}  // namespace neuronserve::nrtsim
