#include <cstdlib>

#include "absl/flags/flag.h"
#include "core/nrt/nrt_status.h"
#include "gtest/gtest.h"
#include "server/daemon/flags.h"
#include "server/grpc/grpc_status.h"

namespace neuronserve {
namespace {

TEST(GrpcStatusTest, EveryNrtStatusKeepsItsCodeAndMessage) {
  for (NRT_STATUS nrt_status : AllKnownNrtStatuses()) {
    absl::Status error = NrtError("nrt_execute", nrt_status);
    grpc::Status converted = ToGrpcStatus(error);
    EXPECT_EQ(static_cast<int>(converted.error_code()), static_cast<int>(error.code()))
        << NrtStatusName(nrt_status);
    EXPECT_EQ(converted.error_message(), std::string(error.message()));
  }
}

TEST(GrpcStatusTest, TheMappingsTheIssueNames) {
  EXPECT_EQ(ToGrpcStatus(NrtError("op", NRT_INVALID)).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(ToGrpcStatus(NrtError("op", NRT_RESOURCE)).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  // A hang past NEURON_RT_EXEC_TIMEOUT is a core fault, not the caller's deadline.
  EXPECT_EQ(ToGrpcStatus(NrtError("op", NRT_TIMEOUT)).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(ToGrpcStatus(NrtError("op", NRT_HW_ERROR)).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(ToGrpcStatus(NrtError("op", NRT_EXEC_COMPLETED_WITH_ERR)).error_code(),
            grpc::StatusCode::INTERNAL);
  EXPECT_EQ(ToGrpcStatus(NrtError("op", static_cast<NRT_STATUS>(31337))).error_code(),
            grpc::StatusCode::UNKNOWN);
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
}

TEST(FlagsTest, EnvironmentVariableNames) {
  EXPECT_EQ(EnvironmentVariableForFlag("nrt_library"), "NEURON_SERVE_NRT_LIBRARY");
  EXPECT_EQ(EnvironmentVariableForFlag("listen"), "NEURON_SERVE_LISTEN");
}

TEST(FlagsTest, EnvironmentSetsFlagsAndBadValuesNameTheVariable) {
  setenv("NEURON_SERVE_LISTEN", "0.0.0.0:9000", 1);
  ASSERT_TRUE(ApplyFlagsFromEnvironment().ok());
  EXPECT_EQ(absl::GetFlag(FLAGS_listen), "0.0.0.0:9000");
  setenv("NEURON_SERVE_DRAIN_TIMEOUT", "ten", 1);
  absl::Status status = ApplyFlagsFromEnvironment();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("NEURON_SERVE_DRAIN_TIMEOUT='ten'"), absl::string_view::npos)
      << status;
  unsetenv("NEURON_SERVE_LISTEN");
  unsetenv("NEURON_SERVE_DRAIN_TIMEOUT");
}

TEST(FlagsTest, DashesBecomeUnderscoresInNamesOnly) {
  const char* argv[] = {"neuron-serve", "--nrt-library=/opt/a-b/libnrt.so",
                        "-log-level",   "info",
                        "--",           "--not-a-flag"};
  std::vector<std::string> args = NormalizeFlagSpelling(6, const_cast<char**>(argv));
  EXPECT_EQ(args[0], "neuron-serve");
  EXPECT_EQ(args[1], "--nrt_library=/opt/a-b/libnrt.so");
  EXPECT_EQ(args[2], "-log_level");
  EXPECT_EQ(args[3], "info");
  EXPECT_EQ(args[4], "--");
  EXPECT_EQ(args[5], "--not-a-flag");
}

}  // namespace
}  // namespace neuronserve
