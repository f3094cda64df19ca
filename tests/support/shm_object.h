// A POSIX shared-memory object made as a client makes one (client::SharedMemoryObject:
// shm_open(O_CREAT|O_EXCL, 0600), ftruncate, mmap, as tritonclient's helpers do), under a key
// unique to the test process, filled with a known pattern, and unlinked when the test is done.
// Also what a misbehaving client does: shrink the object under the daemon's mapping.
#ifndef NEURON_SERVE_TESTS_SUPPORT_SHM_OBJECT_H_
#define NEURON_SERVE_TESTS_SUPPORT_SHM_OBJECT_H_

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "client/shared_memory/shared_memory_object.h"

namespace neuronserve::testing {

class ShmObject {
 public:
  // An object of `size` bytes whose byte i is `i * 7 + 1` (mod 256).
  explicit ShmObject(size_t size) {
    absl::StatusOr<client::SharedMemoryObject> made = client::SharedMemoryObject::Create(
        client::SharedMemoryObject::UniqueKey("neuron-serve-test"), size);
    if (!made.ok()) return;
    object_.emplace(*std::move(made));
    for (size_t i = 0; i < size; ++i) object_->bytes()[i] = Expected(i);
  }

  bool ok() const { return object_.has_value(); }
  const std::string& key() const { return object_->key(); }  // with its leading '/'
  uint8_t* bytes() { return object_->bytes().data(); }       // the client's own view
  size_t size() const { return object_->size(); }
  // The client shrinks its object under the daemon's mapping (opened again by key, as another
  // process would).
  bool Truncate(size_t size) {
    const int fd = shm_open(key().c_str(), O_RDWR, 0);
    if (fd < 0) return false;
    const bool truncated = ftruncate(fd, static_cast<off_t>(size)) == 0;
    close(fd);
    return truncated;
  }

  // Removes the name now (the mappings stay): for a process that will not live to destroy it.
  void Unlink() { shm_unlink(key().c_str()); }

  static uint8_t Expected(size_t i) { return static_cast<uint8_t>(i * 7 + 1); }

 private:
  std::optional<client::SharedMemoryObject> object_;
};

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_SHM_OBJECT_H_
