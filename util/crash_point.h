// Crash points: a TEST-ONLY hook that kills the process with SIGKILL at a named point of a state
// change, so that tests can check what a kill -9 at exactly that point leaves behind
// (tests/e2e/crash_points_e2e_test.cc: the daemon's --state-dir after a crash at each point).
//
// Armed by the environment variable NEURON_SERVE_TEST_CRASH_AT=<point>[@<n>]: the n-th time
// (default 1, counted over all threads) the code reaches CrashPoint(<point>), the process writes
// one line to stderr,
//   neuron-serve: crash point <point> reached (test hook): kill -9
// and raises SIGKILL: no destructor, atexit handler or log flush runs, as with a kill -9 from
// outside. The variable is read once, on the first CrashPoint call (a function-local static,
// so thread-safe); unset (the only setting outside tests), a CrashPoint costs a check of that
// static's guard and one load of a cached bool. It is not a flag (--help does not list it) and
// no production setting needs it. The daemon refuses to start (exit 2) when the variable is set
// to anything ParseCrashPointSetting refuses, an unknown point above all, so that a typo in a
// test cannot make it pass without crashing anywhere.
//
// Thread safety: every function may be called from any thread.
#ifndef NEURON_SERVE_UTIL_CRASH_POINT_H_
#define NEURON_SERVE_UTIL_CRASH_POINT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace neuronserve {

inline constexpr char kCrashAtVariable[] = "NEURON_SERVE_TEST_CRASH_AT";

// The points, in the order a model goes through them. Each is reached once per occurrence of
// what its comment says.
//
// ModelStore::Save (core/lifecycle/model_store.cc): the model's new NEFFs are durable under their
// final names; its record is not written yet (an upload on disk, not committed).
inline constexpr char kCrashStoreNeffsDurable[] = "store.neffs-durable";
// ModelStore::Save: the new record's temp file is written, fsynced and closed, not yet renamed
// over record.json (util/durable_file.h's WriteFileAtomically, before its rename).
inline constexpr char kCrashStoreRecordTempWritten[] = "store.record-temp-written";
// ModelStore::Save: the new record is renamed into place and its directory fsynced (committed);
// the NEFFs it replaced are not deleted yet.
inline constexpr char kCrashStoreRecordDurable[] = "store.record-durable";
// ModelStore::Remove: the record is deleted and its directory fsynced; the model's NEFFs and
// directory are not deleted yet.
inline constexpr char kCrashStoreRecordRemoved[] = "store.record-removed";
// VersionLoader::Load (core/lifecycle/version_loader.cc): a replica (every variant of it) is
// loaded on its cores and the next replica is not (reached only by models of 2+ replicas, also
// when the daemon restores them from the state directory at start).
inline constexpr char kCrashLoadBetweenReplicas[] = "load.between-replicas";
// ModelRegistry::RunLoad (core/lifecycle/model_registry.cc), replacing a READY model: the new
// version is loaded on the device, not yet recorded in the store; the old one still serves.
inline constexpr char kCrashReplaceNewVersionLoaded[] = "replace.new-version-loaded";
// ModelRegistry::RunLoad, replacing: the new version is recorded, serves and is answered; the
// old version is not yet drained and unloaded.
inline constexpr char kCrashReplaceOldVersionRetiring[] = "replace.old-version-retiring";
// ModelRegistry::RunUnload: the model is drained and off the device (a FAILED one had nothing
// there); its store record is not removed yet and the unload not answered.
inline constexpr char kCrashUnloadDeviceUnloaded[] = "unload.device-unloaded";
// DynamicBatcher::Next (core/serving/scheduling/dynamic_batcher.cc): a core decides to hold a queued
// request for company (max_queue_delay); once per request, on the worker thread, with the
// batcher's lock held.
inline constexpr char kCrashBatcherHolding[] = "batcher.holding";

// Every point above, in that order.
absl::Span<const absl::string_view> KnownCrashPoints();

struct CrashPointSetting {
  std::string point;  // one of KnownCrashPoints()
  uint64_t nth = 1;   // >= 1
};

// Parses a value of NEURON_SERVE_TEST_CRASH_AT: "<point>" or "<point>@<n>", n >= 1.
// INVALID_ARGUMENT naming the variable, the value and what is wrong (an unknown point: the
// known ones).
absl::StatusOr<CrashPointSetting> ParseCrashPointSetting(absl::string_view value);

// The daemon's startup check of the variable: nullopt when it is unset or empty (unarmed), else
// ParseCrashPointSetting's answer.
absl::StatusOr<std::optional<CrashPointSetting>> CrashPointSettingFromEnvironment();

// The setting CrashPoint acts on (read from the environment on the first call of either);
// nullopt when unarmed, which includes a value ParseCrashPointSetting refuses.
const std::optional<CrashPointSetting>& ArmedCrashPoint();

namespace crash_point_internal {
bool ReadArmed();  // ArmedCrashPoint().has_value()
// Counts `point` if it is the armed one, and kills the process on its n-th time.
void Reached(absl::string_view point);
inline bool Armed() {
  static const bool armed = ReadArmed();
  return armed;
}
}  // namespace crash_point_internal

// `point` must be one of the k*Crash* names above. See the top of this file.
inline void CrashPoint(absl::string_view point) {
  if (crash_point_internal::Armed()) crash_point_internal::Reached(point);
}

}  // namespace neuronserve

#endif  // NEURON_SERVE_UTIL_CRASH_POINT_H_
