#include "server/daemon/health_publisher.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/log_capture.h"

namespace neuronserve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

// Records what is published instead of serving it: PublishHealth needs no gRPC server.
class RecordingHealthService : public grpc::HealthCheckServiceInterface {
 public:
  void SetServingStatus(const std::string& service_name, bool serving) override {
    statuses.emplace_back(service_name, serving);
  }
  void SetServingStatus(bool serving) override { statuses.emplace_back("(all)", serving); }

  std::vector<std::pair<std::string, bool>> statuses;
};

HealthReport Report(bool serving, std::string serving_reason, bool live, std::string live_reason) {
  HealthReport report;
  report.serving = serving;
  report.serving_reason = std::move(serving_reason);
  report.live = live;
  report.live_reason = std::move(live_reason);
  return report;
}

TEST(HealthPublisherTest, TheServerStatusIsSetUnderBothNamesAndNeverForAllServices) {
  RecordingHealthService health;
  testing::LogCapture log;
  PublishHealth(health, "", true, Report(true, "", true, ""), /*startup_done=*/true);
  EXPECT_THAT(health.statuses,
              ElementsAre(Pair("", true), Pair("neuronserve.v1.NeuronServing", true)));
  EXPECT_EQ(log.text(), "info health: SERVING\n");
}

TEST(HealthPublisherTest, NotServingIsLoggedWithItsReasonOnlyOnceStartupIsDone) {
  RecordingHealthService health;
  testing::LogCapture log;
  const HealthReport report = Report(false, "draining", true, "");
  PublishHealth(health, "", false, report, /*startup_done=*/false);
  EXPECT_THAT(log.text(), IsEmpty());
  PublishHealth(health, "", false, report, /*startup_done=*/true);
  EXPECT_EQ(log.text(), "warning health: NOT_SERVING (draining)\n");
  EXPECT_THAT(health.statuses,
              ElementsAre(Pair("", false), Pair("neuronserve.v1.NeuronServing", false),
                          Pair("", false), Pair("neuronserve.v1.NeuronServing", false)));
}

TEST(HealthPublisherTest, TheWatchdogLogsNotLiveAlwaysAndLiveAgainOnlyAfterStartup) {
  RecordingHealthService health;
  testing::LogCapture log;
  PublishHealth(health, kLivenessService, true, Report(false, "x", true, ""),
                /*startup_done=*/false);
  EXPECT_THAT(log.text(), IsEmpty());
  PublishHealth(health, kLivenessService, false,
                Report(false, "x", false, "core 0 stuck in one execution for 3s"),
                /*startup_done=*/false);
  PublishHealth(health, kLivenessService, true, Report(true, "", true, ""),
                /*startup_done=*/true);
  EXPECT_EQ(log.text(),
            "error watchdog: not live: core 0 stuck in one execution for 3s\n"
            "info watchdog: live again\n");
  EXPECT_THAT(health.statuses,
              ElementsAre(Pair(kLivenessService, true), Pair(kLivenessService, false),
                          Pair(kLivenessService, true)));
}

TEST(HealthPublisherTest, AModelsStatusIsSetUnderItsNameWithoutALogLine) {
  RecordingHealthService health;
  testing::LogCapture log;
  PublishHealth(health, "resnet", false, Report(false, "x", true, ""), /*startup_done=*/true);
  EXPECT_THAT(health.statuses, ElementsAre(Pair("resnet", false)));
  EXPECT_THAT(log.text(), IsEmpty());
}

}  // namespace
}  // namespace neuronserve

namespace neuronserve {
namespace {

TEST(HealthPublisherTest, EveryListenerGetsTheSameStatusesAndTheChangeIsLoggedOnce) {
  RecordingHealthService main;
  RecordingHealthService admin;
  RecordingHealthService probe;
  testing::LogCapture log;
  PublishHealth({&main, &admin, nullptr, &probe}, "", false,
                Report(false, "core 1 is out of rotation", true, ""), /*startup_done=*/true);
  PublishHealth({&main, &admin, nullptr, &probe}, "resnet", true, Report(true, "", true, ""),
                /*startup_done=*/true);
  for (const RecordingHealthService* health : {&main, &admin, &probe}) {
    EXPECT_THAT(health->statuses,
                ElementsAre(Pair("", false), Pair("neuronserve.v1.NeuronServing", false),
                            Pair("resnet", true)));
  }
  EXPECT_EQ(log.text(), "warning health: NOT_SERVING (core 1 is out of rotation)\n");
}

}  // namespace
}  // namespace neuronserve
