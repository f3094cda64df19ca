// SharedMemoryRegistry: the daemon's registered shared-memory regions by name, one registry for
// every front end (the v2 gRPC and REST extension, the native API), so a region registered over
// one is usable over the others, as in Triton.
//
// Safe by default: registering is refused unless the daemon was started with
// --allow-client-shared-memory (the refusal names the flag), and --shared-memory-key-prefix
// confines the keys a client may open (compared after stripping leading '/'s, as tritonclient's
// keys have one). --shared-memory-max-regions and --shared-memory-max-bytes bound what is mapped
// at once, counting regions that were unregistered but are still used by a request.
//
// Unregistering takes a region out of the registry at once and never waits: requests that hold
// it (through the shared_ptr Find gave them) keep its mapping until the last one finishes, on
// whatever thread that is; new requests no longer find it.
//
// Thread safety: every method may be called from any thread. Ownership: the registry shares its
// regions with the requests that use them.
#ifndef NEURON_SERVE_SERVER_SHARED_MEMORY_SHARED_MEMORY_REGISTRY_H_
#define NEURON_SERVE_SERVER_SHARED_MEMORY_SHARED_MEMORY_REGISTRY_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/mutex.h"
#include "server/shared_memory/shared_memory_region.h"

namespace neuronserve {

struct SharedMemoryPolicy {
  bool allow_client = false;                // --allow-client-shared-memory
  std::string key_prefix;                   // --shared-memory-key-prefix; empty: any key
  size_t max_regions = 64;                  // --shared-memory-max-regions
  uint64_t max_bytes = uint64_t{64} << 30;  // --shared-memory-max-bytes
};

// A registered region as the status answers show it.
struct SharedMemoryRegionStatus {
  std::string name;
  std::string key;
  uint64_t offset = 0;
  uint64_t byte_size = 0;
};

class SharedMemoryRegistry {
 public:
  explicit SharedMemoryRegistry(SharedMemoryPolicy policy);
  SharedMemoryRegistry(const SharedMemoryRegistry&) = delete;
  SharedMemoryRegistry& operator=(const SharedMemoryRegistry&) = delete;

  // Opens and maps the object (SharedMemoryRegion::Open) and registers it as `name`.
  // FAILED_PRECONDITION when client shared memory is off; INVALID_ARGUMENT for an empty name;
  // PERMISSION_DENIED for a key outside the prefix; ALREADY_EXISTS for a name in use;
  // RESOURCE_EXHAUSTED over a limit; Open's errors. No error names the key.
  absl::Status Register(absl::string_view name, absl::string_view key, uint64_t offset,
                        uint64_t byte_size);

  // Takes `name` (every region when empty) out of the registry; requests holding it keep it
  // until they finish. Returns the names taken out: none for an unknown name, which is not an
  // error (unregistering is idempotent, as Triton's is).
  std::vector<std::string> Unregister(absl::string_view name);

  // The region `name`, or every region when `name` is empty, by name. NOT_FOUND for an unknown
  // name.
  absl::StatusOr<std::vector<SharedMemoryRegionStatus>> Status(absl::string_view name) const;

  // The region a request names, for as long as the request holds it; null when none is
  // registered by that name.
  std::shared_ptr<const SharedMemoryRegion> Find(absl::string_view name) const;

  // Regions registered, and regions unregistered whose mappings requests still hold.
  size_t registered() const;
  size_t draining() const;

  const SharedMemoryPolicy& policy() const { return policy_; }

  // What registering gets while client shared memory is off: the refusal names the flag.
  static absl::Status ClientSharedMemoryOff();
  // What CUDA shared memory registration gets: there is no GPU here.
  static absl::Status CudaRegistrationRefused(absl::string_view name);
  // What a CUDA region's status gets: none is ever registered.
  static absl::Status NoCudaRegion(absl::string_view name);

  // The flags, as the refusals name them.
  static constexpr absl::string_view kAllowFlag = "--allow-client-shared-memory";
  static constexpr absl::string_view kPrefixFlag = "--shared-memory-key-prefix";
  static constexpr absl::string_view kMaxRegionsFlag = "--shared-memory-max-regions";
  static constexpr absl::string_view kMaxBytesFlag = "--shared-memory-max-bytes";

 private:
  // Drops the draining regions no request holds any more; returns the bytes the others map.
  uint64_t PruneDrainingLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const SharedMemoryPolicy policy_;
  const std::string prefix_;  // policy_.key_prefix without its leading '/'s
  mutable Mutex mutex_;
  std::map<std::string, std::shared_ptr<const SharedMemoryRegion>, std::less<>> regions_
      ABSL_GUARDED_BY(mutex_);
  // Unregistered regions, until no request holds them.
  mutable std::vector<std::weak_ptr<const SharedMemoryRegion>> draining_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_SHARED_MEMORY_SHARED_MEMORY_REGISTRY_H_
