// server/listeners and server/host_port: which addresses count as loopback, which admin
// addresses are refused, when the exposure warning is due, gRPC's metadata limit.
#include "server/daemon/listeners.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/daemon/daemon_options.h"
#include "server/daemon/host_port.h"
#include "server/grpc/metadata_limit.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;

TEST(HostPortTest, LoopbackAddresses) {
  for (const char* address : {"127.0.0.1:8001", "127.1.2.3:0", "localhost:80", "[::1]:8001"}) {
    EXPECT_TRUE(IsLoopbackAddress(address)) << address;
  }
  for (const char* address : {"0.0.0.0:8001", "[::]:8001", "10.0.0.5:8001", "128.0.0.1:1",
                              "example.com:80", "unix:/run/a.sock", "127.0.0.1", "[::2]:1"}) {
    EXPECT_FALSE(IsLoopbackAddress(address)) << address;
  }
}

TEST(ListenersTest, AdminAddressesMustStayOnThisMachine) {
  EXPECT_TRUE(ValidateAdminAddress("unix:/run/neuron-serve/admin.sock").ok());
  EXPECT_TRUE(ValidateAdminAddress("127.0.0.1:0").ok());
  EXPECT_TRUE(ValidateAdminAddress("[::1]:9000").ok());
  absl::Status open = ValidateAdminAddress("0.0.0.0:9000");
  EXPECT_EQ(open.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(open.message(), HasSubstr("not a loopback address"));
  EXPECT_FALSE(ValidateAdminAddress("unix:").ok());
  EXPECT_EQ(UnixSocketPath("unix:/a/b.sock"), "/a/b.sock");
  EXPECT_EQ(UnixSocketPath("127.0.0.1:1"), "");
}

TEST(ListenersTest, TheExposureWarningIsDueOnlyWithoutTlsAndTokensOffLoopback) {
  DaemonOptions options;
  options.listen_address = "127.0.0.1:8001";
  EXPECT_FALSE(ExposureWarning(options).has_value());
  options.listen_address = "0.0.0.0:8001";
  std::optional<std::string> warning = ExposureWarning(options);
  ASSERT_TRUE(warning.has_value());
  EXPECT_THAT(*warning, HasSubstr("--listen=0.0.0.0:8001"));
  EXPECT_THAT(*warning, HasSubstr("LoadModel and UnloadModel included"));
  EXPECT_THAT(*warning, HasSubstr("--tls-cert"));
  EXPECT_THAT(*warning, HasSubstr("--admin-token-file"));
  options.admin_listen = "unix:/run/a.sock";
  EXPECT_THAT(ExposureWarning(options).value_or(""),
              HasSubstr("admin calls are on unix:/run/a.sock"));

  DaemonOptions tls = options;
  tls.tls_cert = "/etc/cert.pem";
  EXPECT_FALSE(ExposureWarning(tls).has_value());
  DaemonOptions tokens = options;
  tokens.infer_token_file = "/etc/tokens";
  EXPECT_FALSE(ExposureWarning(tokens).has_value());
}

TEST(ListenersTest, GrpcsMetadataLimitLeavesRoomForTheDaemonsOwnCheck) {
  EXPECT_EQ(MetadataLimitFor(1024), 1024 + 8192);
  EXPECT_EQ(MetadataLimitFor(16384), 32768);
  EXPECT_EQ(MetadataLimitFor(UINT32_MAX), INT32_MAX);
}

}  // namespace
}  // namespace neuronserve
