#include "server/security/certificate_mirror.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "util/durable_file.h"
#include "util/posix_file.h"

namespace neuronserve {
namespace {

constexpr char kCurrent[] = "current";
constexpr char kCert[] = "cert.pem";
constexpr char kKey[] = "key.pem";
constexpr char kClientCa[] = "client_ca.pem";

std::string GenerationName(uint64_t generation) { return absl::StrCat("gen-", generation); }

absl::Status SetModificationTime(const std::string& path, int64_t seconds) {
  struct timespec times[2];
  times[0].tv_sec = static_cast<time_t>(seconds);
  times[0].tv_nsec = 0;
  times[1] = times[0];
  if (::utimensat(AT_FDCWD, path.c_str(), times, 0) != 0) {
    return ErrnoError(errno, "set the modification time of", path);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<CertificateMirror>> CertificateMirror::Create(Sources sources) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string pattern = absl::StrCat(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp",
                                     "/neuron-serve-tls-XXXXXX");
  // mkdtemp makes the directory 0700: only the daemon's user reads the key copy.
  if (::mkdtemp(pattern.data()) == nullptr) {
    return ErrnoError(errno, "create the private certificate directory", pattern);
  }
  return std::unique_ptr<CertificateMirror>(
      new CertificateMirror(std::move(sources), std::move(pattern)));
}

CertificateMirror::CertificateMirror(Sources sources, std::string directory)
    : sources_(std::move(sources)), directory_(std::move(directory)) {}

CertificateMirror::~CertificateMirror() {
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

std::string CertificateMirror::cert_path() const {
  return absl::StrCat(directory_, "/", kCurrent, "/", kCert);
}
std::string CertificateMirror::key_path() const {
  return absl::StrCat(directory_, "/", kCurrent, "/", kKey);
}
std::string CertificateMirror::client_ca_path() const {
  if (sources_.client_ca.empty()) return "";
  return absl::StrCat(directory_, "/", kCurrent, "/", kClientCa);
}

absl::StatusOr<CertificateMirror::Update> CertificateMirror::Refresh(absl::Time now) {
  // Held from the read to the publication, so that a slower refresh of older contents never
  // publishes after a newer one.
  MutexLock lock(&mutex_);
  absl::StatusOr<std::string> cert = ReadFile(sources_.cert);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadFile(sources_.key);
  if (!key.ok()) return key.status();
  std::string client_ca;
  if (!sources_.client_ca.empty()) {
    absl::StatusOr<std::string> read = ReadFile(sources_.client_ca);
    if (!read.ok()) return read.status();
    // An empty bundle would make gRPC refuse every client: a configured CA must hold one.
    if (read->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the client CA file ", sources_.client_ca, " is empty"));
    }
    client_ca = *std::move(read);
  }
  absl::StatusOr<CertificateSummary> summary = CheckServerCertificate(*cert, *key, client_ca, now);
  if (!summary.ok()) return summary.status();

  Update update;
  update.certificate = *std::move(summary);
  if (generation_ != 0 && *cert == cert_ && *key == key_ && client_ca == client_ca_) {
    return update;
  }
  if (absl::Status published = Publish(*cert, *key, client_ca); !published.ok()) {
    return published;
  }
  cert_ = *std::move(cert);
  key_ = *std::move(key);
  client_ca_ = std::move(client_ca);
  update.changed = true;
  return update;
}

// Why a new generation directory and a swap of the `current` symlink, and why the mtimes:
//
// gRPC 1.51's FileWatcherCertificateProvider (grpc_tls_certificate_provider.cc,
// ReadIdentityKeyCertPairFromFiles) reads the key and the certificate as two files: it stats
// the key and the certificate (modification time in whole seconds), reads the key, reads the
// certificate, stats both again, and retries (3 times, then at the next interval) when a time
// differs. It does not check that the key matches the certificate before serving them.
//
// Two file renames (key, then certificate) would leave a moment where the key is new and the
// certificate old; a provider reading inside that moment sees two files that do not change
// while it reads, so its check passes and it serves a mismatched pair. Swapping one symlink
// to a directory changes both files at once: no mismatched state ever exists on disk. A read
// that straddles the swap (old key, new certificate) is caught by the provider's own check,
// because every file of a new generation gets a modification time strictly later, in whole
// seconds, than the previous generation's: the key's "after" stat then differs from its
// "before". The previous generation stays on disk (only older ones are removed), so a read in
// progress finds its files.
absl::Status CertificateMirror::Publish(const std::string& cert, const std::string& key,
                                        const std::string& client_ca) {
  const uint64_t generation = generation_ + 1;
  const std::string name = GenerationName(generation);
  const std::string dir = absl::StrCat(directory_, "/", name);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);  // a leftover of a failed attempt
  if (::mkdir(dir.c_str(), 0700) != 0) return ErrnoError(errno, "create directory", dir);

  const int64_t mtime = std::max(absl::ToUnixSeconds(absl::Now()), last_mtime_seconds_ + 1);
  std::vector<std::pair<std::string, const std::string*>> files = {{kKey, &key}, {kCert, &cert}};
  if (!sources_.client_ca.empty()) files.emplace_back(kClientCa, &client_ca);
  for (const auto& [file, contents] : files) {
    const std::string path = absl::StrCat(dir, "/", file);
    bool renamed = false;
    absl::Status written =
        WriteFileAtomically(path, absl::StrCat(path, ".tmp"), *contents, 0600, &renamed);
    if (written.ok()) written = SetModificationTime(path, mtime);
    if (!written.ok()) {
      std::filesystem::remove_all(dir, ignored);
      return written;
    }
  }

  const std::string link = absl::StrCat(directory_, "/", kCurrent);
  const std::string temp_link = absl::StrCat(link, ".tmp");
  ::unlink(temp_link.c_str());
  if (::symlink(name.c_str(), temp_link.c_str()) != 0) {
    absl::Status error = ErrnoError(errno, "create symlink", temp_link);
    std::filesystem::remove_all(dir, ignored);
    return error;
  }
  if (::rename(temp_link.c_str(), link.c_str()) != 0) {
    absl::Status error = ErrnoError(errno, "rename a symlink over", link);
    ::unlink(temp_link.c_str());
    std::filesystem::remove_all(dir, ignored);
    return error;
  }
  if (generation >= 3) {
    std::filesystem::remove_all(absl::StrCat(directory_, "/", GenerationName(generation - 2)),
                                ignored);
  }
  generation_ = generation;
  last_mtime_seconds_ = mtime;
  return absl::OkStatus();
}

}  // namespace neuronserve
