// SharedMemoryRegion: a client's POSIX shared-memory object, registered under a name and mapped
// once into the daemon, so that requests can name a byte range of it instead of carrying the
// bytes (Triton's system shared memory extension).
//
// Opening follows what is safe rather than what is convenient:
// - the object must exist (shm_open without O_CREAT: the client creates it, the daemon never
//   does) and be a regular shared-memory object;
// - `offset` + `byte_size` must lie inside it (overflow-safe), and `byte_size` may not be 0;
// - the mapping starts at the page below `offset`, so offsets need not be page-aligned (the
//   region's bytes begin `offset` into the object whatever the alignment);
// - the object's descriptor is closed once mapped;
// - the mapping is guarded against the object shrinking later (sigbus_guard.h): lost() tells
//   a request that used it that its bytes are not to be trusted.
// The key (the object's name) is kept for the status answer only: no error or log names it, so
// that a client cannot learn another's key, nor the daemon's, from a message.
//
// Thread safety: immutable after Open but for lost(), which any thread may read. Ownership: a
// region owns its mapping; the registry and every request that uses it hold it through a
// shared_ptr, so it is unmapped when the last of them lets go (never under a request).
#ifndef NEURON_SERVE_SERVER_SHARED_MEMORY_SHARED_MEMORY_REGION_H_
#define NEURON_SERVE_SERVER_SHARED_MEMORY_SHARED_MEMORY_REGION_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "server/shared_memory/sigbus_guard.h"

namespace neuronserve {

class SharedMemoryRegion {
 public:
  // Opens and maps `byte_size` bytes at `offset` of the object `key` (a leading '/' is
  // optional, as shm_open takes it). Errors name `name`, never `key`: INVALID_ARGUMENT for a
  // malformed key, a size of 0 or a range outside the object; NOT_FOUND when no such object
  // exists; PERMISSION_DENIED when the daemon may not open it (another user's object of mode
  // 0600); RESOURCE_EXHAUSTED when too many regions are mapped.
  static absl::StatusOr<std::shared_ptr<SharedMemoryRegion>> Open(absl::string_view name,
                                                                  absl::string_view key,
                                                                  uint64_t offset,
                                                                  uint64_t byte_size);

  ~SharedMemoryRegion();
  SharedMemoryRegion(const SharedMemoryRegion&) = delete;
  SharedMemoryRegion& operator=(const SharedMemoryRegion&) = delete;

  const std::string& name() const { return name_; }
  const std::string& key() const { return key_; }  // as registered; the status answer only
  uint64_t offset() const { return offset_; }
  uint64_t byte_size() const { return byte_size_; }

  // `size` bytes at `offset` into the region, checked without overflow: INVALID_ARGUMENT naming
  // the region, the offset, the size and the region's size when they do not fit. `role` says
  // what asked in the message ("input 'x'", "output 'y'").
  absl::StatusOr<absl::Span<uint8_t>> Slice(uint64_t offset, uint64_t size,
                                            absl::string_view role) const;

  // True once the object shrank under the mapping (a SIGBUS was repaired in it): every request
  // that used the region since then must fail, and later ones are refused.
  bool lost() const { return guard_.lost(); }

  // FAILED_PRECONDITION naming the region when lost(); OK otherwise.
  absl::Status CheckNotLost() const;

 private:
  SharedMemoryRegion(std::string name, std::string key, uint64_t offset, uint64_t byte_size,
                     void* mapping, size_t mapping_length, GuardedRange guard);

  const std::string name_;
  const std::string key_;
  const uint64_t offset_;
  const uint64_t byte_size_;
  void* const mapping_;  // from the page below offset_
  const size_t mapping_length_;
  uint8_t* const bytes_;  // offset_ into the object
  GuardedRange guard_;    // released before the mapping goes
};

// The key as shm_open will see it: without its leading '/'s. Empty for a key of slashes only.
absl::string_view StripKeySlashes(absl::string_view key);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_SHARED_MEMORY_SHARED_MEMORY_REGION_H_
