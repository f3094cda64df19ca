#include "server/call/shared_memory_calls.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace neuronserve {

absl::Status RegisterSharedMemoryRegion(const InferContext& context, const RegionAudit& audit,
                                        std::string_view name, std::string_view key,
                                        uint64_t offset, uint64_t byte_size) {
  const absl::Status status =
      context.shared_memory != nullptr
          ? context.shared_memory->Register(std::string(name), std::string(key), offset, byte_size)
          : SharedMemoryRegistry::ClientSharedMemoryOff();
  audit(status, name);
  return status;
}

void UnregisterSharedMemoryRegions(const InferContext& context, const RegionAudit& audit,
                                   std::string_view name) {
  if (context.shared_memory != nullptr) context.shared_memory->Unregister(std::string(name));
  audit(absl::OkStatus(), name.empty() ? std::string_view("*") : name);
}

absl::StatusOr<std::vector<SharedMemoryRegionStatus>> SharedMemoryRegions(
    const InferContext& context, std::string_view name) {
  if (context.shared_memory != nullptr) return context.shared_memory->Status(std::string(name));
  if (name.empty()) return std::vector<SharedMemoryRegionStatus>{};
  return absl::NotFoundError(
      absl::StrCat("no shared memory region '", std::string(name), "' is registered"));
}

}  // namespace neuronserve
