#include "client/lib/file_contents.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace neuronserve::client {

absl::Status FileError(const std::string& path, const char* operation, int error) {
  const std::string message = absl::StrCat(operation, " ", path, ": ", std::strerror(error));
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    default:
      return absl::ErrnoToStatus(error, message);
  }
}

absl::StatusOr<FileReader> FileReader::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return FileError(path, "open", errno);
  FileReader reader(path, fd, 0);
  struct stat info;
  if (::fstat(fd, &info) != 0) return FileError(path, "stat", errno);
  // A directory opens fine but reads fail with EISDIR; say so up front, in the caller's terms.
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, " is not a regular file"));
  }
  reader.size_ = static_cast<uint64_t>(info.st_size);
  return reader;
}

FileReader::FileReader(std::string path, int fd, uint64_t size)
    : path_(std::move(path)), fd_(fd), size_(size) {}

FileReader::FileReader(FileReader&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      size_(std::exchange(other.size_, 0)) {}

FileReader& FileReader::operator=(FileReader&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

FileReader::~FileReader() {
  if (fd_ >= 0) ::close(fd_);
}

absl::StatusOr<size_t> FileReader::Read(absl::Span<uint8_t> buffer) {
  size_t filled = 0;
  while (filled < buffer.size()) {
    const ssize_t got = ::read(fd_, buffer.data() + filled, buffer.size() - filled);
    if (got < 0) {
      if (errno == EINTR) continue;
      return FileError(path_, "read", errno);
    }
    if (got == 0) break;
    filled += static_cast<size_t>(got);
  }
  return filled;
}

absl::Status FileReader::Rewind() {
  if (::lseek(fd_, 0, SEEK_SET) != 0) return FileError(path_, "seek", errno);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFileContents(const std::string& path) {
  absl::StatusOr<FileReader> reader = FileReader::Open(path);
  if (!reader.ok()) return reader.status();
  std::string contents;
  // Token and certificate files are small; read until the end rather than trusting the size,
  // which is 0 for files such as those under /proc.
  uint8_t buffer[64 * 1024];
  while (true) {
    absl::StatusOr<size_t> got = reader->Read(absl::MakeSpan(buffer));
    if (!got.ok()) return got.status();
    if (*got == 0) break;
    contents.append(reinterpret_cast<const char*>(buffer), *got);
  }
  return contents;
}

}  // namespace neuronserve::client
