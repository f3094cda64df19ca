// The test-only crash points (util/crash_point.h): parsing NEURON_SERVE_TEST_CRASH_AT, refusing
// unknown points, and the kill itself (death tests: SIGKILL on the n-th time, one line first).
#include "util/crash_point.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;

TEST(CrashPointTest, EveryPointIsKnownOnceAndParses) {
  std::set<absl::string_view> seen;
  for (absl::string_view point : KnownCrashPoints()) {
    EXPECT_TRUE(seen.insert(point).second) << point;
    absl::StatusOr<CrashPointSetting> setting = ParseCrashPointSetting(point);
    ASSERT_TRUE(setting.ok()) << setting.status();
    EXPECT_EQ(setting->point, point);
    EXPECT_EQ(setting->nth, 1u);
  }
  for (const char* point :
       {kCrashStoreNeffsDurable, kCrashStoreRecordTempWritten, kCrashStoreRecordDurable,
        kCrashStoreRecordRemoved, kCrashLoadBetweenReplicas, kCrashReplaceNewVersionLoaded,
        kCrashReplaceOldVersionRetiring, kCrashUnloadDeviceUnloaded, kCrashBatcherHolding}) {
    EXPECT_EQ(seen.count(point), 1u) << point;
  }
  EXPECT_EQ(seen.size(), 9u);
}

TEST(CrashPointTest, ACountAfterTheAtSignPicksTheNthTime) {
  absl::StatusOr<CrashPointSetting> setting = ParseCrashPointSetting("store.record-durable@3");
  ASSERT_TRUE(setting.ok()) << setting.status();
  EXPECT_EQ(setting->point, "store.record-durable");
  EXPECT_EQ(setting->nth, 3u);
}

TEST(CrashPointTest, UnknownPointsAndBadCountsAreRefusedNamingTheVariable) {
  absl::StatusOr<CrashPointSetting> typo = ParseCrashPointSetting("store.neff-durable");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(typo.status().message(),
              HasSubstr("NEURON_SERVE_TEST_CRASH_AT='store.neff-durable': unknown crash point "
                        "'store.neff-durable'"));
  EXPECT_THAT(typo.status().message(), HasSubstr("store.neffs-durable, store.record-temp-written"));
  for (const char* value :
       {"store.record-durable@0", "store.record-durable@", "store.record-durable@x",
        "store.record-durable@+2", "store.record-durable@ 2", "store.record-durable@2@3",
        "store.record-durable@99999999999999999999999"}) {
    absl::StatusOr<CrashPointSetting> refused = ParseCrashPointSetting(value);
    ASSERT_FALSE(refused.ok()) << value;
    EXPECT_THAT(refused.status().message(), HasSubstr("whole number >= 1")) << value;
  }
  for (const char* value : {"@2", "STORE.RECORD-DURABLE", " store.record-durable"}) {
    absl::StatusOr<CrashPointSetting> refused = ParseCrashPointSetting(value);
    ASSERT_FALSE(refused.ok()) << value;
    EXPECT_THAT(refused.status().message(), HasSubstr("unknown crash point")) << value;
  }
}

TEST(CrashPointTest, TheEnvironmentUnsetOrEmptyArmsNothing) {
  unsetenv(kCrashAtVariable);
  absl::StatusOr<std::optional<CrashPointSetting>> unset = CrashPointSettingFromEnvironment();
  ASSERT_TRUE(unset.ok());
  EXPECT_FALSE(unset->has_value());
  setenv(kCrashAtVariable, "", 1);
  absl::StatusOr<std::optional<CrashPointSetting>> empty = CrashPointSettingFromEnvironment();
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
  setenv(kCrashAtVariable, "batcher.hold", 1);
  EXPECT_FALSE(CrashPointSettingFromEnvironment().ok());
  setenv(kCrashAtVariable, "batcher.holding@2", 1);
  absl::StatusOr<std::optional<CrashPointSetting>> armed = CrashPointSettingFromEnvironment();
  ASSERT_TRUE(armed.ok());
  ASSERT_TRUE(armed->has_value());
  EXPECT_EQ((*armed)->nth, 2u);
  unsetenv(kCrashAtVariable);
}

// The process reads the variable once, at its first CrashPoint: each death test runs in a fresh
// process (the "threadsafe" style re-executes the test binary for it).
class CrashPointDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(CrashPointDeathTest, TheNthTimeKillsWithSigkillAfterOneLine) {
  EXPECT_EXIT(
      {
        setenv(kCrashAtVariable, "store.record-durable@2", 1);
        CrashPoint(kCrashStoreNeffsDurable);   // another point: not counted
        CrashPoint(kCrashStoreRecordDurable);  // the first time: no crash
        CrashPoint(kCrashStoreNeffsDurable);
        fputs("still alive after the first time\n", stderr);
        CrashPoint(kCrashStoreRecordDurable);  // the second: SIGKILL
        fputs("not reached\n", stderr);
        _exit(0);
      },
      ::testing::KilledBySignal(SIGKILL),
      "still alive after the first time\n"
      "neuron-serve: crash point store.record-durable reached \\(test hook\\): kill -9\n");
}

TEST_F(CrashPointDeathTest, UnsetNothingHappens) {
  EXPECT_EXIT(
      {
        unsetenv(kCrashAtVariable);
        for (absl::string_view point : KnownCrashPoints()) CrashPoint(point);
        EXPECT_FALSE(ArmedCrashPoint().has_value());
        _exit(3);
      },
      ::testing::ExitedWithCode(3), "");
}

TEST_F(CrashPointDeathTest, AnUnknownPointArmsNothingAndSaysSo) {
  EXPECT_EXIT(
      {
        setenv(kCrashAtVariable, "store.record-durabel", 1);
        for (absl::string_view point : KnownCrashPoints()) CrashPoint(point);
        _exit(ArmedCrashPoint().has_value() ? 4 : 3);
      },
      ::testing::ExitedWithCode(3),
      "unknown crash point 'store.record-durabel'.*; no crash point is armed");
}

}  // namespace
}  // namespace neuronserve
