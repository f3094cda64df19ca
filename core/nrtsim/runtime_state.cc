#include "core/nrtsim/runtime_state.h"

#include <mutex>
#include <string>

#include "core/nrt/instance_size_names.h"
#include "core/nrtsim/log.h"
#include "core/nrtsim/sim_counters.h"

namespace neuronserve::nrtsim {
namespace {

enum class RuntimePhase { kNeverInitialized, kOpen, kClosed };

struct RuntimeState {
  std::mutex mutex;
  RuntimePhase phase = RuntimePhase::kNeverInitialized;  // guarded by mutex
  std::shared_ptr<const Session> session;                // guarded by mutex; set when kOpen
  uint64_t last_session_id = 0;                          // guarded by mutex
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

std::string DescribeVersion(const RuntimeVersion& v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch) +
         (v.maintenance != 0 ? "." + std::to_string(v.maintenance) : "");
}

std::string DescribeCoreList(const std::vector<uint32_t>& cores) {
  std::string text;
  for (uint32_t core : cores) {
    if (!text.empty()) text += ",";
    text += std::to_string(core);
  }
  return text;
}

void LogInit(const Session& session) {
  const SimConfig& c = session.config;
  LogLine("nrt_init: simulated runtime " + DescribeVersion(c.version) + " (dtype numbering " +
          std::string(DtypeNumberingName(c.dtype_numbering)) + "), instance " +
          std::string(c.family->name) + "." + NrtInstanceSizeName(c.instance_size) + " (" +
          std::string(c.family->arch_name) + "), " + std::to_string(c.visible_cores.size()) +
          " of " + std::to_string(c.physical_core_count) + " cores visible (physical " +
          DescribeCoreList(c.visible_cores) + "), HBM " + DescribeBytes(c.hbm_bytes_per_core) +
          " per core");
}

}  // namespace

std::shared_ptr<DeviceCore> Session::CoreAt(int64_t vnc) const {
  if (vnc < 0 || static_cast<uint64_t>(vnc) >= cores.size()) return nullptr;
  return cores[static_cast<size_t>(vnc)];
}

NRT_STATUS OpenRuntime() {
  RuntimeState& state = State();
  std::lock_guard<std::mutex> lock(state.mutex);
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
  auto session = std::make_shared<Session>();
  session->id = ++state.last_session_id;
  session->config = std::move(*config);
  const std::vector<uint32_t>& visible = session->config.visible_cores;
  for (size_t i = 0; i < visible.size(); ++i) {
    session->cores.push_back(std::make_shared<DeviceCore>(static_cast<uint32_t>(i), visible[i],
                                                          session->config.hbm_bytes_per_core));
  }
  LogInit(*session);
  state.session = std::move(session);
  state.phase = RuntimePhase::kOpen;
  Counters().init_count.fetch_add(1);
  return NRT_SUCCESS;
}

bool CloseRuntime() {
  RuntimeState& state = State();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.phase != RuntimePhase::kOpen) return false;
  state.phase = RuntimePhase::kClosed;
  state.session.reset();
  Counters().close_count.fetch_add(1);
  return true;
}

NRT_STATUS CurrentSession(std::shared_ptr<const Session>* session) {
  RuntimeState& state = State();
  std::lock_guard<std::mutex> lock(state.mutex);
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
