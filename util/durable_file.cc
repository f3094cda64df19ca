#include "util/durable_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "util/crash_point.h"
#include "util/posix_file.h"

namespace neuronserve {
namespace {

// MakeDirs for `path`, an ancestor of (or) `target`, the directory the caller asked for, which
// the errors name.
absl::Status MakeDirsFor(const std::string& path, const std::string& target) {
  struct stat info;
  if (stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat("cannot create directory ", target, ": ",
                                                      path, " exists and is not a directory"));
  }
  // ENOTDIR: some ancestor is not a directory; recursing up names it.
  if (errno != ENOENT && errno != ENOTDIR) return ErrnoError(errno, "stat", path);
  std::string parent = std::filesystem::path(path).parent_path().string();
  if (!parent.empty() && parent != path) {
    if (absl::Status made = MakeDirsFor(parent, target); !made.ok()) return made;
  }
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return ErrnoError(errno, "create directory", path);
  }
  return parent.empty() ? absl::OkStatus() : FsyncDir(parent);
}

absl::Status WriteAll(int fd, absl::string_view data, const std::string& described_path) {
  while (!data.empty()) {
    ssize_t written = write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(errno, "write", described_path);
    }
    data.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

std::string DirectoryOf(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// A name no other writer uses: the pid tells processes apart, the counter the calls in this one.
std::string TemporaryPathFor(const std::filesystem::path& target) {
  static std::atomic<uint64_t> counter{0};
  return (target.parent_path() / absl::StrCat(".", target.filename().string(), ".tmp-", getpid(),
                                              "-", counter.fetch_add(1)))
      .string();
}

}  // namespace

absl::StatusOr<FileKind> GetFileKind(const std::string& path) {
  struct stat info;
  if (lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return FileKind::kAbsent;
    return ErrnoError(errno, "stat", path);
  }
  if (S_ISREG(info.st_mode)) return FileKind::kRegular;
  if (S_ISDIR(info.st_mode)) return FileKind::kDirectory;
  return FileKind::kOther;
}

absl::Status FsyncDir(const std::string& dir) {
  ScopedFd fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError(errno, "open directory", dir);
  if (fsync(fd.get()) != 0) return ErrnoError(errno, "fsync directory", dir);
  return absl::OkStatus();
}

absl::Status MakeDirs(const std::string& path) { return MakeDirsFor(path, path); }

absl::StatusOr<std::vector<std::string>> ListDir(const std::string& dir) {
  DIR* stream = opendir(dir.c_str());
  if (stream == nullptr) return ErrnoError(errno, "list directory", dir);
  std::vector<std::string> names;
  errno = 0;
  while (struct dirent* entry = readdir(stream)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
    errno = 0;
  }
  int error = errno;
  closedir(stream);
  if (error != 0) return ErrnoError(error, "list directory", dir);
  std::sort(names.begin(), names.end());
  return names;
}

absl::Status WriteFileAtomically(const std::string& path, const std::string& temp_path,
                                 absl::string_view contents, mode_t mode, bool* renamed,
                                 const char* crash_point) {
  *renamed = false;
  // Errors of the steps on the temp file name both files: the temp file is what failed, `path`
  // is what the caller knows.
  const std::string temp_for_path = absl::StrCat(temp_path, " for ", path);
  ScopedFd fd(open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
  if (fd.get() < 0) return ErrnoError(errno, "create", temp_for_path);
  absl::Status status = [&]() -> absl::Status {
    if (absl::Status written = WriteAll(fd.get(), contents, temp_for_path); !written.ok()) {
      return written;
    }
    if (fsync(fd.get()) != 0) return ErrnoError(errno, "fsync", temp_for_path);
    // close can report a failed delayed write.
    if (fd.Close() != 0) return ErrnoError(errno, "close", temp_for_path);
    if (crash_point != nullptr) CrashPoint(crash_point);
    if (rename(temp_path.c_str(), path.c_str()) != 0) {
      return ErrnoError(errno, absl::StrCat("rename ", temp_path, " to"), path);
    }
    return absl::OkStatus();
  }();
  if (!status.ok()) {
    // The temp file is ours (O_EXCL). Best effort: the caller may sweep leftovers (the model
    // store does at startup).
    unlink(temp_path.c_str());
    return status;
  }
  *renamed = true;
  return FsyncDir(DirectoryOf(path));
}

absl::Status WriteFileAtomically(absl::string_view path, absl::string_view contents) {
  const std::filesystem::path target{std::string(path)};
  if (path.empty() || !target.has_filename()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write '", path, "': not a file path"));
  }
  absl::Status status;
  // A temp file of the same name can only be the leftover of a crashed process that had our pid;
  // the next counter value steps past it. EEXIST (ALREADY_EXISTS) comes only from the create.
  for (int attempt = 0; attempt < 16; ++attempt) {
    bool renamed = false;
    status =
        WriteFileAtomically(target.string(), TemporaryPathFor(target), contents, 0666, &renamed);
    if (renamed) return absl::OkStatus();
    if (!absl::IsAlreadyExists(status)) return status;
  }
  return status;
}

}  // namespace neuronserve
