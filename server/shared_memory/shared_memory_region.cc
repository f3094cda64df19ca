#include "server/shared_memory/shared_memory_region.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/scoped_fd.h"

namespace neuronserve {
namespace {

std::string RegionPrefix(absl::string_view name) {
  return absl::StrCat("shared memory region '", name, "': ");
}

absl::Status OpenError(absl::string_view name, int error) {
  const std::string prefix = RegionPrefix(name);
  switch (error) {
    case ENOENT:
      return absl::NotFoundError(
          absl::StrCat(prefix,
                       "no shared memory object exists by the key given (the client "
                       "creates the object before it registers it)"));
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(absl::StrCat(
          prefix, "the daemon (uid ", getuid(),
          ") may not open the object by the key given: it belongs to another user or its mode "
          "refuses this one (tritonclient creates objects of mode 0600: run the client and the "
          "daemon as the same user)"));
    case EINVAL:
    case ENAMETOOLONG:
      return absl::InvalidArgumentError(
          absl::StrCat(prefix, "the key is not a valid shared memory object name"));
    default:
      return absl::InternalError(
          absl::StrCat(prefix, "cannot open the object by the key given: ", strerror(error)));
  }
}

}  // namespace

absl::string_view StripKeySlashes(absl::string_view key) {
  while (!key.empty() && key.front() == '/') key.remove_prefix(1);
  return key;
}

absl::StatusOr<std::shared_ptr<SharedMemoryRegion>> SharedMemoryRegion::Open(absl::string_view name,
                                                                             absl::string_view key,
                                                                             uint64_t offset,
                                                                             uint64_t byte_size) {
  const std::string prefix = RegionPrefix(name);
  const absl::string_view object = StripKeySlashes(key);
  if (object.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(prefix, "the key is empty"));
  }
  if (object.find('/') != absl::string_view::npos || object.find('\0') != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, "the key may hold no '/' (but leading ones) and no NUL"));
  }
  if (object.size() > NAME_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, "the key is longer than ", NAME_MAX, " bytes"));
  }
  if (byte_size == 0) {
    return absl::InvalidArgumentError(absl::StrCat(prefix, "byte_size is 0"));
  }

  // Never O_CREAT: the object is the client's. glibc adds O_NOFOLLOW.
  const ScopedFd fd(shm_open(absl::StrCat("/", object).c_str(), O_RDWR | O_CLOEXEC, 0));
  if (fd.get() < 0) return OpenError(name, errno);
  struct stat status;
  if (fstat(fd.get(), &status) != 0) {
    return absl::InternalError(absl::StrCat(prefix, "cannot stat the object: ", strerror(errno)));
  }
  if (!S_ISREG(status.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, "the key names no regular shared memory object"));
  }
  const uint64_t object_size = static_cast<uint64_t>(status.st_size);
  if (offset > object_size || byte_size > object_size - offset) {
    return absl::InvalidArgumentError(absl::StrCat(prefix, "offset ", offset, " and byte_size ",
                                                   byte_size, " reach past the end of the object (",
                                                   object_size, " bytes)"));
  }

  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t map_start = offset & ~(page - 1);
  const size_t mapping_length = static_cast<size_t>(offset - map_start + byte_size);
  void* mapping = mmap(nullptr, mapping_length, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(),
                       static_cast<off_t>(map_start));
  if (mapping == MAP_FAILED) {
    const int error = errno;
    const absl::StatusCode code =
        error == ENOMEM ? absl::StatusCode::kResourceExhausted : absl::StatusCode::kInternal;
    return absl::Status(code, absl::StrCat(prefix, "cannot map ", byte_size,
                                           " bytes of the object: ", strerror(error)));
  }
  absl::StatusOr<GuardedRange> guard = GuardedRange::Guard(mapping, mapping_length);
  if (!guard.ok()) {
    munmap(mapping, mapping_length);
    return absl::Status(guard.status().code(), absl::StrCat(prefix, guard.status().message()));
  }
  return std::shared_ptr<SharedMemoryRegion>(
      new SharedMemoryRegion(std::string(name), std::string(key), offset, byte_size, mapping,
                             mapping_length, std::move(*guard)));
}

SharedMemoryRegion::SharedMemoryRegion(std::string name, std::string key, uint64_t offset,
                                       uint64_t byte_size, void* mapping, size_t mapping_length,
                                       GuardedRange guard)
    : name_(std::move(name)),
      key_(std::move(key)),
      offset_(offset),
      byte_size_(byte_size),
      mapping_(mapping),
      mapping_length_(mapping_length),
      bytes_(static_cast<uint8_t*>(mapping) + mapping_length - byte_size),
      guard_(std::move(guard)) {}

SharedMemoryRegion::~SharedMemoryRegion() {
  // Out of the guard's table first: the handler must never repair an address that is no
  // longer this mapping's.
  { GuardedRange released = std::move(guard_); }
  munmap(mapping_, mapping_length_);
}

absl::StatusOr<absl::Span<uint8_t>> SharedMemoryRegion::Slice(uint64_t offset, uint64_t size,
                                                              absl::string_view role) const {
  if (offset > byte_size_ || size > byte_size_ - offset) {
    return absl::InvalidArgumentError(
        absl::StrCat(RegionPrefix(name_), role, "'s offset ", offset, " and byte size ", size,
                     " reach past the region's end (", byte_size_, " bytes)"));
  }
  return absl::Span<uint8_t>(bytes_ + offset, static_cast<size_t>(size));
}

absl::Status SharedMemoryRegion::CheckNotLost() const {
  if (!lost()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      RegionPrefix(name_),
      "its object shrank while it was registered (truncated by its owner), so its bytes are "
      "lost; unregister it and register the object again"));
}

}  // namespace neuronserve
