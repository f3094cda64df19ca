// CertificateMirror: publishes only pairs that pass the checks, keeps the previous copy when a
// new one fails, and never lets a reader that works like gRPC's file watcher provider see a
// key and a certificate of different generations.
#include "server/security/certificate_mirror.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/security/tls_pair_check.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certificates.h"

namespace neuronserve {
namespace {

using testing::CertificateFiles;
using ::testing::HasSubstr;
using testing::TempDir;
using testing::SharedTestCertificates;
using testing::TestCertificates;

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string LinkTarget(const std::string& path) {
  std::error_code error;
  return std::filesystem::read_symlink(path, error).string();
}

class CertificateMirrorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { certs_ = &SharedTestCertificates(); }

  // Puts `pair` (and the CA) where the mirror's sources are.
  void Install(const CertificateFiles& pair) {
    dir_.Write("cert.pem", pair.CertPem());
    dir_.Write("key.pem", pair.KeyPem());
  }
  CertificateMirror::Sources Sources(bool with_ca = true) {
    return {dir_.Join("cert.pem"), dir_.Join("key.pem"), with_ca ? dir_.Join("ca.pem") : ""};
  }
  std::unique_ptr<CertificateMirror> Mirror(bool with_ca = true) {
    absl::StatusOr<std::unique_ptr<CertificateMirror>> mirror =
        CertificateMirror::Create(Sources(with_ca));
    EXPECT_TRUE(mirror.ok()) << mirror.status();
    return mirror.ok() ? *std::move(mirror) : nullptr;
  }

  void SetUp() override { dir_.Write("ca.pem", certs_->ca.CertPem()); }

  static const TestCertificates* certs_;
  TempDir dir_;
};
const TestCertificates* CertificateMirrorTest::certs_ = nullptr;

TEST_F(CertificateMirrorTest, PublishesAGoodPairInAPrivateDirectoryRemovedAtTheEnd) {
  Install(certs_->server);
  std::string directory;
  {
    std::unique_ptr<CertificateMirror> mirror = Mirror();
    ASSERT_NE(mirror, nullptr);
    directory = mirror->directory();
    absl::StatusOr<CertificateMirror::Update> update = mirror->Refresh();
    ASSERT_TRUE(update.ok()) << update.status();
    EXPECT_TRUE(update->changed);
    EXPECT_EQ(update->certificate.subject, "CN=server-1");
    EXPECT_EQ(Contents(mirror->cert_path()), certs_->server.CertPem());
    EXPECT_EQ(Contents(mirror->key_path()), certs_->server.KeyPem());
    EXPECT_EQ(Contents(mirror->client_ca_path()), certs_->ca.CertPem());

    struct stat info {};
    ASSERT_EQ(::stat(directory.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0700);
    ASSERT_EQ(::stat(mirror->key_path().c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600);
  }
  EXPECT_FALSE(std::filesystem::exists(directory));
}

TEST_F(CertificateMirrorTest, WithoutAClientCaThereIsNoCaFile) {
  Install(certs_->server);
  std::unique_ptr<CertificateMirror> mirror = Mirror(/*with_ca=*/false);
  ASSERT_NE(mirror, nullptr);
  ASSERT_TRUE(mirror->Refresh().ok());
  EXPECT_EQ(mirror->client_ca_path(), "");
  EXPECT_EQ(Contents(mirror->cert_path()), certs_->server.CertPem());
}

TEST_F(CertificateMirrorTest, ABadNewPairLeavesThePreviousCopyUntouched) {
  Install(certs_->server);
  std::unique_ptr<CertificateMirror> mirror = Mirror();
  ASSERT_NE(mirror, nullptr);
  ASSERT_TRUE(mirror->Refresh().ok());
  const std::string link = mirror->directory() + "/current";
  const std::string generation = LinkTarget(link);
  ASSERT_FALSE(generation.empty());

  struct Case {
    std::string what;
    std::string cert;
    std::string key;
    std::string message;
  };
  for (const Case& bad : {
           Case{"mismatched key", certs_->server_rotated.CertPem(), certs_->server.KeyPem(),
                "does not belong to certificate 'CN=server-2'"},
           Case{"garbage", "garbage\n", "garbage\n", "holds no PEM certificate"},
           Case{"expired", certs_->expired_server.CertPem(), certs_->expired_server.KeyPem(),
                "certificate 'CN=server-expired' expired at"},
       }) {
    SCOPED_TRACE(bad.what);
    dir_.Write("cert.pem", bad.cert);
    dir_.Write("key.pem", bad.key);
    absl::StatusOr<CertificateMirror::Update> update = mirror->Refresh();
    ASSERT_FALSE(update.ok());
    EXPECT_THAT(update.status().message(), HasSubstr(bad.message));
    EXPECT_EQ(LinkTarget(link), generation);
    EXPECT_EQ(Contents(mirror->cert_path()), certs_->server.CertPem());
    EXPECT_EQ(Contents(mirror->key_path()), certs_->server.KeyPem());
  }

  // An unreadable source names the file; an empty CA bundle is refused too.
  std::filesystem::remove(dir_.Join("key.pem"));
  absl::StatusOr<CertificateMirror::Update> missing = mirror->Refresh();
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr(dir_.Join("key.pem")));
  Install(certs_->server);
  dir_.Write("ca.pem", "");
  absl::StatusOr<CertificateMirror::Update> empty_ca = mirror->Refresh();
  ASSERT_FALSE(empty_ca.ok());
  EXPECT_THAT(empty_ca.status().message(), HasSubstr("is empty"));
  EXPECT_EQ(LinkTarget(link), generation);
}

TEST_F(CertificateMirrorTest, ARotationIsANewGenerationWithALaterModificationTime) {
  Install(certs_->server);
  std::unique_ptr<CertificateMirror> mirror = Mirror();
  ASSERT_NE(mirror, nullptr);
  ASSERT_TRUE(mirror->Refresh().ok());
  const std::string link = mirror->directory() + "/current";
  const std::string first = LinkTarget(link);
  struct stat before {};
  ASSERT_EQ(::stat(mirror->key_path().c_str(), &before), 0);

  // The same contents again (SIGHUP, a touched file): nothing new is published.
  absl::StatusOr<CertificateMirror::Update> same = mirror->Refresh();
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_FALSE(same->changed);
  EXPECT_EQ(LinkTarget(link), first);

  Install(certs_->server_rotated);
  absl::StatusOr<CertificateMirror::Update> rotated = mirror->Refresh();
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  EXPECT_TRUE(rotated->changed);
  EXPECT_EQ(rotated->certificate.subject, "CN=server-2");
  EXPECT_NE(LinkTarget(link), first);
  EXPECT_EQ(Contents(mirror->cert_path()), certs_->server_rotated.CertPem());
  struct stat after {};
  ASSERT_EQ(::stat(mirror->key_path().c_str(), &after), 0);
  EXPECT_GT(after.st_mtime, before.st_mtime) << "gRPC's provider compares whole seconds";
}

// Reads the pair the way gRPC 1.51's FileWatcherCertificateProvider does (stat both, read the
// key, read the certificate, stat both again; a differing modification time means retry) while
// the mirror rotates between two pairs: every read the provider would accept is a matching pair.
TEST_F(CertificateMirrorTest, AProviderStyleReaderNeverAcceptsAMismatchedPair) {
  Install(certs_->server);
  std::unique_ptr<CertificateMirror> mirror = Mirror(/*with_ca=*/false);
  ASSERT_NE(mirror, nullptr);
  ASSERT_TRUE(mirror->Refresh().ok());

  std::atomic<bool> done{false};
  std::atomic<int> accepted{0};
  std::atomic<int> mismatched{0};
  std::thread reader([&] {
    auto mtime = [](const std::string& path) -> time_t {
      struct stat info {};
      return ::stat(path.c_str(), &info) == 0 ? info.st_mtime : 0;
    };
    while (!done.load()) {
      const time_t key_before = mtime(mirror->key_path());
      const time_t cert_before = mtime(mirror->cert_path());
      const std::string key = Contents(mirror->key_path());
      const std::string cert = Contents(mirror->cert_path());
      if (key_before == 0 || cert_before == 0 || mtime(mirror->key_path()) != key_before ||
          mtime(mirror->cert_path()) != cert_before) {
        continue;  // the provider retries
      }
      if (CheckServerCertificate(cert, key, "", absl::Now()).ok()) {
        accepted.fetch_add(1);
      } else {
        mismatched.fetch_add(1);
      }
    }
  });
  for (int i = 0; i < 20; ++i) {
    Install(i % 2 == 0 ? certs_->server_rotated : certs_->server);
    absl::StatusOr<CertificateMirror::Update> update = mirror->Refresh();
    ASSERT_TRUE(update.ok()) << update.status();
    ASSERT_TRUE(update->changed);
  }
  // Let the reader accept at least one read after the last rotation.
  const int accepted_at_end = accepted.load();
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (accepted.load() == accepted_at_end && absl::Now() < deadline) std::this_thread::yield();
  done.store(true);
  reader.join();
  EXPECT_GT(accepted.load(), accepted_at_end);
  EXPECT_EQ(mismatched.load(), 0);
}

}  // namespace
}  // namespace neuronserve
