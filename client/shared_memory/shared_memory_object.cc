#include "client/shared_memory/shared_memory_object.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <random>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace neuronserve::client {
namespace {

absl::Status SystemError(int error, absl::string_view what, const std::string& key) {
  const std::string message =
      absl::StrCat(what, " of shared-memory object '", key, "': ", std::strerror(error));
  switch (error) {
    case EEXIST:
      return absl::AlreadyExistsError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    case ENOSPC:
    case ENOMEM:
    case EMFILE:
    case ENFILE:
      return absl::ResourceExhaustedError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace

absl::StatusOr<SharedMemoryObject> SharedMemoryObject::Create(const std::string& key, size_t size) {
  if (key.size() < 2 || key[0] != '/' || key.find('/', 1) != std::string::npos ||
      key.size() > NAME_MAX + 1) {
    return absl::InvalidArgumentError(absl::StrCat("shared-memory key '", key,
                                                   "' is not '/' and a name of at most ", NAME_MAX,
                                                   " characters without another '/'"));
  }
  if (size == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("shared-memory object '", key, "' must have at least one byte"));
  }
  const int fd = shm_open(key.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return SystemError(errno, "shm_open", key);
  // From here on the object exists: every failure unlinks it again.
  // Allocated now rather than sized with ftruncate alone: a full /dev/shm is ENOSPC here, not
  // SIGBUS at the first write into a page it cannot back.
  int error = posix_fallocate(fd, 0, static_cast<off_t>(size));
  if (error == EOPNOTSUPP || error == EINVAL) {
    error = ftruncate(fd, static_cast<off_t>(size)) == 0 ? 0 : errno;
  }
  if (error != 0) {
    close(fd);
    shm_unlink(key.c_str());
    return SystemError(error, "allocating", key);
  }
  void* mapping = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mapping == MAP_FAILED) {
    const int error = errno;
    close(fd);
    shm_unlink(key.c_str());
    return SystemError(error, "mmap", key);
  }
  return SharedMemoryObject(key, fd, static_cast<uint8_t*>(mapping), size);
}

std::string SharedMemoryObject::UniqueKey(absl::string_view prefix) {
  static std::atomic<uint64_t> next{0};
  // A process that died without removing its objects leaves their names behind, and its pid is
  // reused: the random part keeps a new process from meeting them.
  static const uint32_t nonce = std::random_device()();
  return absl::StrCat("/", prefix, "-", getpid(), "-", absl::Hex(nonce, absl::kZeroPad8), "-",
                      next.fetch_add(1));
}

SharedMemoryObject::SharedMemoryObject(std::string key, int fd, uint8_t* mapping, size_t size)
    : key_(std::move(key)), fd_(fd), mapping_(mapping), size_(size) {}

SharedMemoryObject::SharedMemoryObject(SharedMemoryObject&& other) noexcept
    : key_(std::move(other.key_)),
      fd_(std::exchange(other.fd_, -1)),
      mapping_(std::exchange(other.mapping_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

SharedMemoryObject& SharedMemoryObject::operator=(SharedMemoryObject&& other) noexcept {
  if (this != &other) {
    Release();
    key_ = std::move(other.key_);
    fd_ = std::exchange(other.fd_, -1);
    mapping_ = std::exchange(other.mapping_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

SharedMemoryObject::~SharedMemoryObject() { Release(); }

void SharedMemoryObject::Release() {
  if (fd_ < 0) return;  // moved from
  munmap(mapping_, size_);
  close(fd_);
  shm_unlink(key_.c_str());
  fd_ = -1;
  mapping_ = nullptr;
  size_ = 0;
}

}  // namespace neuronserve::client
