#include "client/common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"

namespace neuronserve {
namespace {

absl::Status ErrnoError(absl::string_view step, absl::string_view path, int error) {
  return absl::Status(
      error == ENOENT   ? absl::StatusCode::kNotFound
      : error == EACCES ? absl::StatusCode::kPermissionDenied
                        : absl::StatusCode::kInternal,
      absl::StrCat("cannot write '", path, "': ", step, ": ", std::strerror(error)));
}

// Owns a file descriptor.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() { Close(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Returns 0 or the errno of close(); close errors can report a failed delayed write.
  int Close() {
    if (fd_ < 0) return 0;
    const int result = ::close(fd_);
    fd_ = -1;
    return result == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

// Removes the temporary file unless the rename succeeded.
class TemporaryFile {
 public:
  explicit TemporaryFile(std::string path) : path_(std::move(path)) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }

  const std::string& path() const { return path_; }
  void Release() { path_.clear(); }

 private:
  std::string path_;
};

absl::Status WriteAll(int fd, absl::string_view contents, absl::string_view path) {
  while (!contents.empty()) {
    const ssize_t written = ::write(fd, contents.data(), contents.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("write", path, errno);
    }
    contents.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

// A name no other writer uses: our pid tells processes apart, the counter calls in this one.
std::string TemporaryName(const std::filesystem::path& target) {
  static std::atomic<uint64_t> counter{0};
  return (target.parent_path() / absl::StrCat(".", target.filename().string(), ".tmp-", ::getpid(),
                                              "-", counter.fetch_add(1)))
      .string();
}

}  // namespace

absl::Status WriteFileAtomically(absl::string_view path_text, absl::string_view contents) {
  const std::filesystem::path target{std::string(path_text)};
  if (path_text.empty() || !target.has_filename()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write '", path_text, "': not a file path"));
  }
  const std::filesystem::path directory =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");

  int fd = -1;
  std::string temporary_name;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    temporary_name = TemporaryName(target);
    fd = ::open(temporary_name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) {
      return ErrnoError(absl::StrCat("create a temporary file in '", directory.string(), "'"),
                        path_text, errno);
    }
  }
  if (fd < 0) return ErrnoError("create a temporary file", path_text, EEXIST);
  TemporaryFile temporary(temporary_name);
  FileDescriptor file(fd);

  if (absl::Status status = WriteAll(file.get(), contents, path_text); !status.ok()) {
    return status;
  }
  if (::fsync(file.get()) != 0) return ErrnoError("fsync", path_text, errno);
  if (int error = file.Close(); error != 0) return ErrnoError("close", path_text, error);
  if (::rename(temporary.path().c_str(), target.c_str()) != 0) {
    return ErrnoError("rename the temporary file into place", path_text, errno);
  }
  temporary.Release();

  // Makes the rename itself durable. The file is already in place, so a failure here is not
  // reported: there is nothing the caller could do about it.
  FileDescriptor dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.valid()) ::fsync(dir.get());
  return absl::OkStatus();
}

}  // namespace neuronserve
