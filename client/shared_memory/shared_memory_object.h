// A POSIX shared-memory object that a client creates, fills and registers with the daemon
// (Client::RegisterSharedMemory) so that tensors travel through it instead of through the
// request: shm_open of a new key (O_CREAT|O_EXCL, mode 0600, as tritonclient's helpers make
// them), its pages allocated up front (posix_fallocate: a full /dev/shm is an error here rather
// than SIGBUS at the first write), mapped read-write, and unmapped and unlinked when the object
// is destroyed.
//
// Mode 0600 means the daemon can open it only when it runs as the same user (in Kubernetes: the
// sidecar overlay runs both containers as one uid and shares a memory-backed /dev/shm).
//
// Thread safety: the object's own members are not changed after Create, so any number of
// threads may read key() and bytes() at once; what they write into the bytes is theirs to order
// (and the daemon's reads of a request's inputs happen between the request being sent and its
// answer arriving). Ownership: the object owns its descriptor, mapping and name; moving it moves
// them.
#ifndef NEURON_SERVE_CLIENT_SHARED_MEMORY_SHARED_MEMORY_OBJECT_H_
#define NEURON_SERVE_CLIENT_SHARED_MEMORY_SHARED_MEMORY_OBJECT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace neuronserve::client {

class SharedMemoryObject {
 public:
  // A new object of `size` bytes (zero-filled) under `key`, which is "/" and a name without
  // another '/' (shm_open's rule). ALREADY_EXISTS when the key is taken (an object is never
  // reused: it could be someone else's); INVALID_ARGUMENT for a bad key or a zero size;
  // RESOURCE_EXHAUSTED when /dev/shm has no room; otherwise the system's error, naming the key
  // (it is the caller's own).
  static absl::StatusOr<SharedMemoryObject> Create(const std::string& key, size_t size);

  // A key no other object has: "/<prefix>-<pid>-<random>-<n>" (random per process, so that the
  // leftovers of a process that died with the same pid do not collide).
  static std::string UniqueKey(absl::string_view prefix);

  SharedMemoryObject(SharedMemoryObject&& other) noexcept;
  SharedMemoryObject& operator=(SharedMemoryObject&& other) noexcept;
  SharedMemoryObject(const SharedMemoryObject&) = delete;
  SharedMemoryObject& operator=(const SharedMemoryObject&) = delete;
  // Unmaps and unlinks: a region the daemon still maps stays valid for it until it lets go.
  ~SharedMemoryObject();

  // With its leading '/', as RegisterSharedMemory takes it.
  const std::string& key() const { return key_; }
  // The whole object, this process's mapping of it.
  absl::Span<uint8_t> bytes() const { return {mapping_, size_}; }
  size_t size() const { return size_; }

 private:
  SharedMemoryObject(std::string key, int fd, uint8_t* mapping, size_t size);
  void Release();

  std::string key_;
  int fd_ = -1;
  uint8_t* mapping_ = nullptr;
  size_t size_ = 0;
};

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_SHARED_MEMORY_SHARED_MEMORY_OBJECT_H_
