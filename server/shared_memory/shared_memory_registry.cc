#include "server/shared_memory/shared_memory_registry.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace neuronserve {

SharedMemoryRegistry::SharedMemoryRegistry(SharedMemoryPolicy policy)
    : policy_(std::move(policy)), prefix_(StripKeySlashes(policy_.key_prefix)) {}

absl::Status SharedMemoryRegistry::Register(absl::string_view name, absl::string_view key,
                                            uint64_t offset, uint64_t byte_size) {
  if (!policy_.allow_client) return ClientSharedMemoryOff();
  if (name.empty()) {
    return absl::InvalidArgumentError("a shared memory region needs a name");
  }
  if (!absl::StartsWith(StripKeySlashes(key), prefix_)) {
    // Neither the key nor the prefix in the message: a client learns no name from it.
    return absl::PermissionDeniedError(
        absl::StrCat("shared memory region '", name,
                     "': the key is outside the prefix this daemon allows (", kPrefixFlag, ")"));
  }

  MutexLock lock(&mutex_);
  if (regions_.find(name) != regions_.end()) {
    return absl::AlreadyExistsError(
        absl::StrCat("shared memory region '", name, "' is already registered"));
  }
  // Opened first: a key, range or object that is wrong is INVALID_ARGUMENT (or NOT_FOUND)
  // whatever the limits; a region over a limit is unmapped again at once.
  absl::StatusOr<std::shared_ptr<SharedMemoryRegion>> region =
      SharedMemoryRegion::Open(name, key, offset, byte_size);
  if (!region.ok()) return region.status();
  const uint64_t draining_bytes = PruneDrainingLocked();
  const size_t mapped_regions = regions_.size() + draining_.size();
  if (mapped_regions >= policy_.max_regions) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "shared memory region '", name, "': ", mapped_regions, " regions are mapped (",
        draining_.size(), " of them unregistered but still used by requests), the limit (",
        kMaxRegionsFlag, ")"));
  }
  uint64_t mapped_bytes = draining_bytes;
  for (const auto& [unused, registered] : regions_) mapped_bytes += registered->byte_size();
  if (byte_size > policy_.max_bytes || mapped_bytes > policy_.max_bytes - byte_size) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "shared memory region '", name, "': its ", byte_size, " bytes and the ", mapped_bytes,
        " mapped already exceed the limit of ", policy_.max_bytes, " (", kMaxBytesFlag, ")"));
  }
  regions_.emplace(std::string(name), std::move(*region));
  return absl::OkStatus();
}

std::vector<std::string> SharedMemoryRegistry::Unregister(absl::string_view name) {
  std::vector<std::string> removed;
  // Let go of the regions after the lock: a region no request holds is unmapped here.
  std::vector<std::shared_ptr<const SharedMemoryRegion>> released;
  {
    MutexLock lock(&mutex_);
    auto take = [&](auto it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      removed.push_back(it->first);
      draining_.push_back(it->second);
      released.push_back(std::move(it->second));
      return regions_.erase(it);
    };
    if (name.empty()) {
      for (auto it = regions_.begin(); it != regions_.end();) it = take(it);
    } else if (auto it = regions_.find(name); it != regions_.end()) {
      take(it);
    }
  }
  released.clear();
  MutexLock lock(&mutex_);
  PruneDrainingLocked();
  return removed;
}

absl::StatusOr<std::vector<SharedMemoryRegionStatus>> SharedMemoryRegistry::Status(
    absl::string_view name) const {
  std::vector<SharedMemoryRegionStatus> statuses;
  MutexLock lock(&mutex_);
  auto add = [&statuses](const SharedMemoryRegion& region) {
    statuses.push_back({region.name(), region.key(), region.offset(), region.byte_size()});
  };
  if (name.empty()) {
    for (const auto& [unused, region] : regions_) add(*region);
    return statuses;
  }
  auto it = regions_.find(name);
  if (it == regions_.end()) {
    return absl::NotFoundError(absl::StrCat("no shared memory region '", name, "' is registered"));
  }
  add(*it->second);
  return statuses;
}

std::shared_ptr<const SharedMemoryRegion> SharedMemoryRegistry::Find(absl::string_view name) const {
  MutexLock lock(&mutex_);
  auto it = regions_.find(name);
  return it == regions_.end() ? nullptr : it->second;
}

absl::Status SharedMemoryRegistry::ClientSharedMemoryOff() {
  return absl::FailedPreconditionError(
      absl::StrCat("client shared memory is off in this daemon: start it with ", kAllowFlag,
                   " to let clients register regions"));
}

absl::Status SharedMemoryRegistry::CudaRegistrationRefused(absl::string_view name) {
  return absl::FailedPreconditionError(absl::StrCat(
      "CUDA shared memory region '", name,
      "': this server has no GPUs (neuron-serve runs on NeuronCores); register system shared "
      "memory instead"));
}

absl::Status SharedMemoryRegistry::NoCudaRegion(absl::string_view name) {
  return absl::NotFoundError(absl::StrCat("no CUDA shared memory region '", name,
                                          "' is registered: this server has no GPUs"));
}

size_t SharedMemoryRegistry::registered() const {
  MutexLock lock(&mutex_);
  return regions_.size();
}

size_t SharedMemoryRegistry::draining() const {
  MutexLock lock(&mutex_);
  PruneDrainingLocked();
  return draining_.size();
}

uint64_t SharedMemoryRegistry::PruneDrainingLocked() const {
  uint64_t bytes = 0;
  auto gone = [&bytes](const std::weak_ptr<const SharedMemoryRegion>& weak) {
    const std::shared_ptr<const SharedMemoryRegion> region = weak.lock();
    if (region == nullptr) return true;
    bytes += region->byte_size();
    return false;
  };
  draining_.erase(std::remove_if(draining_.begin(), draining_.end(), gone), draining_.end());
  return bytes;
}

}  // namespace neuronserve
