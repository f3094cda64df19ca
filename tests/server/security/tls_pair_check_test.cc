// CheckServerCertificate on certificates made by openssl (tests/support/test_certificates.h):
// each check that must refuse a pair, and messages that name the certificate, never the key.
#include "server/security/tls_pair_check.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certificates.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using testing::TempDir;
using testing::TestCertificates;

class TlsPairCheckTest : public ::testing::Test {
 protected:
  // openssl takes a while: one set for the whole suite.
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    certs_ = new TestCertificates(TestCertificates::Make(dir_->path()));
  }
  static void TearDownTestSuite() {
    delete certs_;
    delete dir_;
  }
  static TempDir* dir_;
  static TestCertificates* certs_;
};
TempDir* TlsPairCheckTest::dir_ = nullptr;
TestCertificates* TlsPairCheckTest::certs_ = nullptr;

TEST_F(TlsPairCheckTest, AValidPairPassesAndIsSummarized) {
  absl::StatusOr<CertificateSummary> summary = CheckServerCertificate(
      certs_->server.CertPem(), certs_->server.KeyPem(), certs_->ca.CertPem(), absl::Now());
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->subject, "CN=server-1");
  EXPECT_FALSE(summary->serial.empty());
  EXPECT_GT(summary->not_after, absl::Now() + absl::Hours(24 * 29));
  EXPECT_LE(summary->not_before, absl::Now());
}

TEST_F(TlsPairCheckTest, TheKeyOfAnotherCertificateIsRefusedWithoutShowingTheKey) {
  const std::string key = certs_->server_rotated.KeyPem();
  absl::StatusOr<CertificateSummary> summary =
      CheckServerCertificate(certs_->server.CertPem(), key, "", absl::Now());
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(summary.status().message(),
              HasSubstr("the private key does not belong to certificate 'CN=server-1'"));
  for (absl::string_view line : absl::StrSplit(key, '\n', absl::SkipEmpty())) {
    if (line.find("-----") == 0) continue;
    EXPECT_THAT(std::string(summary.status().message()), ::testing::Not(HasSubstr(line)));
  }
}

TEST_F(TlsPairCheckTest, AnExpiredCertificateIsRefusedWithItsExpiry) {
  absl::StatusOr<CertificateSummary> summary = CheckServerCertificate(
      certs_->expired_server.CertPem(), certs_->expired_server.KeyPem(), "", absl::Now());
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(std::string(summary.status().message()),
              MatchesRegex("certificate 'CN=server-expired' expired at "
                           "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"));
}

TEST_F(TlsPairCheckTest, ValidityIsJudgedAtTheTimeGiven) {
  absl::StatusOr<CertificateSummary> now =
      CheckServerCertificate(certs_->server.CertPem(), certs_->server.KeyPem(), "", absl::Now());
  ASSERT_TRUE(now.ok()) << now.status();
  absl::StatusOr<CertificateSummary> later = CheckServerCertificate(
      certs_->server.CertPem(), certs_->server.KeyPem(), "", now->not_after + absl::Seconds(1));
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.status().message(),
            "certificate 'CN=server-1' expired at " + FormatCertificateTime(now->not_after));
  absl::StatusOr<CertificateSummary> earlier = CheckServerCertificate(
      certs_->server.CertPem(), certs_->server.KeyPem(), "", now->not_before - absl::Seconds(1));
  ASSERT_FALSE(earlier.ok());
  EXPECT_EQ(earlier.status().message(), "certificate 'CN=server-1' is not valid before " +
                                            FormatCertificateTime(now->not_before));
}

TEST_F(TlsPairCheckTest, FilesThatAreNotPemAreRefused) {
  const std::string cert = certs_->server.CertPem();
  const std::string key = certs_->server.KeyPem();
  absl::StatusOr<CertificateSummary> no_cert =
      CheckServerCertificate("not a certificate\n", key, "", absl::Now());
  ASSERT_FALSE(no_cert.ok());
  EXPECT_THAT(no_cert.status().message(),
              HasSubstr("the certificate file holds no PEM certificate"));

  absl::StatusOr<CertificateSummary> no_key =
      CheckServerCertificate(cert, "not a key\n", "", absl::Now());
  ASSERT_FALSE(no_key.ok());
  EXPECT_THAT(no_key.status().message(), HasSubstr("the key file holds no PEM private key"));

  // A PEM block whose body is damaged: the block is there, it does not parse.
  std::string damaged = cert;
  damaged.replace(damaged.find('\n') + 1, 8, "!!!!!!!!");
  absl::StatusOr<CertificateSummary> broken = CheckServerCertificate(damaged, key, "", absl::Now());
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.status().message(),
              HasSubstr("the certificate file: certificate 1 does not parse"));

  absl::StatusOr<CertificateSummary> empty = CheckServerCertificate(cert, key, "", absl::Now());
  EXPECT_TRUE(empty.ok()) << "an empty CA means no client CA: " << empty.status();
  absl::StatusOr<CertificateSummary> bad_ca =
      CheckServerCertificate(cert, key, "garbage\n", absl::Now());
  ASSERT_FALSE(bad_ca.ok());
  EXPECT_THAT(bad_ca.status().message(), HasSubstr("the client CA file holds no PEM certificate"));
}

TEST_F(TlsPairCheckTest, AChainMustBeSignedInTheOrderOfTheFile) {
  absl::StatusOr<CertificateSummary> chained =
      CheckServerCertificate(certs_->server_via_intermediate.CertPem(),
                             certs_->server_via_intermediate.KeyPem(), "", absl::Now());
  ASSERT_TRUE(chained.ok()) << chained.status();
  EXPECT_EQ(chained->subject, "CN=server-3");

  // The leaf followed by a CA that did not sign it.
  const std::string wrong_chain = certs_->server.CertPem() + certs_->other_ca.CertPem();
  absl::StatusOr<CertificateSummary> wrong =
      CheckServerCertificate(wrong_chain, certs_->server.KeyPem(), "", absl::Now());
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(),
              HasSubstr("certificate 'CN=server-1' (1 of the chain) is not signed by "
                        "'CN=other test CA' (2 of the chain)"));
}

}  // namespace
}  // namespace neuronserve
