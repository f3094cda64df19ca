#include "util/crash_point.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace neuronserve {
namespace {

constexpr absl::string_view kKnownCrashPoints[] = {
    kCrashStoreNeffsDurable,         kCrashStoreRecordTempWritten, kCrashStoreRecordDurable,
    kCrashStoreRecordRemoved,        kCrashLoadBetweenReplicas,    kCrashReplaceNewVersionLoaded,
    kCrashReplaceOldVersionRetiring, kCrashUnloadDeviceUnloaded,   kCrashBatcherHolding,
};

// How many times the armed point was reached, over all threads.
std::atomic<uint64_t> times_reached{0};

// write(2) straight to fd 2: nothing buffered is left behind by the SIGKILL that follows.
void WriteToStderr(absl::string_view text) {
  while (!text.empty()) {
    const ssize_t written = write(STDERR_FILENO, text.data(), text.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;
    text.remove_prefix(static_cast<size_t>(written));
  }
}

}  // namespace

absl::Span<const absl::string_view> KnownCrashPoints() { return kKnownCrashPoints; }

absl::StatusOr<CrashPointSetting> ParseCrashPointSetting(absl::string_view value) {
  auto refuse = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("environment variable ", kCrashAtVariable, "='", value, "': ", why));
  };
  CrashPointSetting setting;
  absl::string_view point = value;
  if (const size_t at = value.find('@'); at != absl::string_view::npos) {
    point = value.substr(0, at);
    const absl::string_view count = value.substr(at + 1);
    const bool digits = !count.empty() && std::all_of(count.begin(), count.end(), [](char c) {
      return absl::ascii_isdigit(static_cast<unsigned char>(c));
    });
    if (!digits || !absl::SimpleAtoi(count, &setting.nth) || setting.nth == 0) {
      return refuse(absl::StrCat("the count after '@' must be a whole number >= 1, not '", count,
                                 "' (<point>[@<n>]: crash the n-th time the point is reached)"));
    }
  }
  if (std::find(std::begin(kKnownCrashPoints), std::end(kKnownCrashPoints), point) ==
      std::end(kKnownCrashPoints)) {
    return refuse(absl::StrCat("unknown crash point '", point,
                               "' (a test-only hook, util/crash_point.h); the known points: ",
                               absl::StrJoin(kKnownCrashPoints, ", ")));
  }
  setting.point = std::string(point);
  return setting;
}

absl::StatusOr<std::optional<CrashPointSetting>> CrashPointSettingFromEnvironment() {
  const char* value = std::getenv(kCrashAtVariable);
  if (value == nullptr || *value == '\0') return std::nullopt;
  absl::StatusOr<CrashPointSetting> setting = ParseCrashPointSetting(value);
  if (!setting.ok()) return setting.status();
  return *std::move(setting);
}

const std::optional<CrashPointSetting>& ArmedCrashPoint() {
  static const std::optional<CrashPointSetting> armed = []() -> std::optional<CrashPointSetting> {
    absl::StatusOr<std::optional<CrashPointSetting>> setting = CrashPointSettingFromEnvironment();
    if (!setting.ok()) {
      // The daemon refuses such a value at startup; any other program says so and runs on.
      WriteToStderr(absl::StrCat("neuron-serve: ", setting.status().message(),
                                 "; no crash point is armed\n"));
      return std::nullopt;
    }
    return *setting;
  }();
  return armed;
}

namespace crash_point_internal {

bool ReadArmed() { return ArmedCrashPoint().has_value(); }

void Reached(absl::string_view point) {
  const std::optional<CrashPointSetting>& armed = ArmedCrashPoint();
  if (!armed.has_value() || point != armed->point) return;
  if (times_reached.fetch_add(1) + 1 != armed->nth) return;
  WriteToStderr(
      absl::StrCat("neuron-serve: crash point ", point, " reached (test hook): kill -9\n"));
  raise(SIGKILL);
  _exit(128 + SIGKILL);  // not reached: SIGKILL cannot be caught, blocked or ignored
}

}  // namespace crash_point_internal
}  // namespace neuronserve
