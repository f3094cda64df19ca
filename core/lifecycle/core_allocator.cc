#include "core/lifecycle/core_allocator.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace neuronserve {
namespace {

// Process-wide, so an id outlives any one allocator and is never handed out twice.
std::atomic<uint64_t> next_placement_id{1};

uint64_t End(CoreRange range) { return uint64_t{range.start} + range.count; }

bool Overlap(CoreRange a, CoreRange b) { return a.start < End(b) && b.start < End(a); }

std::string Plural(uint64_t n, const char* singular, const char* plural) {
  return absl::StrCat(n, " ", n == 1 ? singular : plural);
}

// "core 3" or "cores 1-2, 5".
std::string NameCores(absl::Span<const uint32_t> cores) {
  return absl::StrCat(cores.size() == 1 ? "core " : "cores ", FormatCoreList(cores));
}

// "3 replicas of 2 contiguous cores", "1 replica of 1 core".
std::string DescribeAsk(uint32_t replicas, uint32_t cores_per_replica) {
  return absl::StrCat(Plural(replicas, "replica", "replicas"), " of ",
                      cores_per_replica == 1
                          ? std::string("1 core")
                          : absl::StrCat(cores_per_replica, " contiguous cores"));
}

}  // namespace

CoreAllocator::CoreAllocator(uint32_t core_count) : core_count_(core_count), holders_(core_count) {}

bool CoreAllocator::Usable(uint32_t core, const std::string& owner, bool shared) const {
  for (const CoreHolder& holder : holders_[core]) {
    if (holder.owner != owner && !(shared && holder.shared)) return false;
  }
  return true;
}

int64_t CoreAllocator::FirstUnusable(CoreRange range, const std::string& owner, bool shared) const {
  for (uint32_t core = range.start; core < End(range); ++core) {
    if (!Usable(core, owner, shared)) return core;
  }
  return -1;
}

std::string CoreAllocator::Occupancy() const {
  MutexLock lock(&mu_);
  return DescribeOccupancy();
}

std::string CoreAllocator::DescribeOccupancy() const {
  std::vector<uint32_t> free;
  // Holders grouped by (owner, shared), in the order of the lowest core each group holds.
  std::vector<std::pair<std::pair<std::string, bool>, std::vector<uint32_t>>> groups;
  for (uint32_t core = 0; core < core_count_; ++core) {
    if (holders_[core].empty()) free.push_back(core);
    for (const CoreHolder& holder : holders_[core]) {
      auto key = std::make_pair(holder.owner, holder.shared);
      auto it = std::find_if(groups.begin(), groups.end(),
                             [&](const auto& group) { return group.first == key; });
      if (it == groups.end()) {
        groups.push_back({key, {}});
        it = groups.end() - 1;
      }
      // Two versions of one model on the same core count once.
      if (it->second.empty() || it->second.back() != core) it->second.push_back(core);
    }
  }
  std::string text =
      free.empty() ? "no free cores" : absl::StrCat("free cores: ", FormatCoreList(free));
  for (const auto& [key, cores] : groups) {
    absl::StrAppend(&text, "; ", NameCores(cores), " held by '", key.first, "'",
                    key.second ? " (shared)" : "");
  }
  return text;
}

absl::StatusOr<std::vector<CoreRange>> CoreAllocator::PlaceByCount(
    const PlacementRequest& request) const {
  const uint32_t width = request.cores_per_replica;
  // Cores this request has already taken for its earlier replicas.
  std::vector<bool> taken(core_count_, false);
  std::vector<CoreRange> ranges;
  for (uint32_t replica = 0; replica < request.replicas; ++replica) {
    bool placed = false;
    for (uint32_t start = 0; uint64_t{start} + width <= core_count_; ++start) {
      CoreRange range{start, width};
      int64_t blocked = -1;
      for (uint32_t core = start; core < End(range); ++core) {
        if (taken[core] || !Usable(core, request.owner, request.shared)) {
          blocked = core;
          break;
        }
      }
      if (blocked >= 0) {
        // No range starting at or before the blocked core can fit; skip past it.
        start = static_cast<uint32_t>(blocked);
        continue;
      }
      for (uint32_t core = start; core < End(range); ++core) taken[core] = true;
      ranges.push_back(range);
      placed = true;
      break;
    }
    if (!placed) break;
  }
  if (ranges.size() == request.replicas) return ranges;

  const size_t fit = ranges.size();
  std::string message =
      absl::StrCat("cannot place model '", request.owner, "': it asks for ",
                   DescribeAsk(request.replicas, width), " and ",
                   fit == 0 ? std::string("none fits") : absl::StrCat("only ", fit, " fit"), "; ",
                   DescribeOccupancy());
  // Enough usable cores in number but no room for the ranges: say so, or the operator sees
  // free cores and wonders why the model was refused.
  uint64_t usable = 0;
  for (uint32_t core = 0; core < core_count_; ++core) {
    if (Usable(core, request.owner, request.shared)) ++usable;
  }
  if (width > 1 && usable >= uint64_t{width} * request.replicas) {
    absl::StrAppend(&message, "; the usable cores are fragmented: there are ", usable,
                    ", enough in number, but each replica needs ", width, " adjacent ones");
  }
  return absl::ResourceExhaustedError(message);
}

absl::StatusOr<std::vector<CoreRange>> CoreAllocator::PlaceExplicitly(
    const PlacementRequest& request) const {
  const uint32_t width = request.cores_per_replica;
  std::vector<CoreRange> ranges;
  for (uint32_t start : request.start_cores) {
    CoreRange range{start, width};
    if (End(range) > core_count_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "model '", request.owner, "': start core ", start, " is out of range: a replica needs ",
          Plural(width, "core", "cores"), " and the machine has ",
          Plural(core_count_, "core", "cores"), " (0-", core_count_ - 1, ")"));
    }
    ranges.push_back(range);
  }
  for (size_t i = 0; i < ranges.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (!Overlap(ranges[i], ranges[j])) continue;
      return absl::InvalidArgumentError(
          absl::StrCat("model '", request.owner, "': start cores ", ranges[j].start, " and ",
                       ranges[i].start, " overlap: with ", Plural(width, "core", "cores"),
                       " per replica both use core ", std::max(ranges[i].start, ranges[j].start)));
    }
  }
  for (const CoreRange& range : ranges) {
    int64_t blocked = FirstUnusable(range, request.owner, request.shared);
    if (blocked < 0) continue;
    std::vector<std::string> blockers;
    for (const CoreHolder& holder : holders_[blocked]) {
      if (holder.owner == request.owner || (request.shared && holder.shared)) continue;
      std::string name =
          absl::StrCat("'", holder.owner, "'",
                       holder.shared ? " (shared, but this request is exclusive)" : " (exclusive)");
      if (std::find(blockers.begin(), blockers.end(), name) == blockers.end()) {
        blockers.push_back(std::move(name));
      }
    }
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot place model '", request.owner, "' at start core ", range.start, ": core ", blocked,
        " is held by ", absl::StrJoin(blockers, ", "), "; ", DescribeOccupancy()));
  }
  return ranges;
}

absl::StatusOr<Placement> CoreAllocator::Allocate(const PlacementRequest& request) {
  if (request.owner.empty()) {
    return absl::InvalidArgumentError("placement request has no owner (model name)");
  }
  if (request.cores_per_replica == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", request.owner, "': cores per replica must be at least 1"));
  }
  if (request.cores_per_replica > core_count_) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", request.owner, "' needs ", request.cores_per_replica,
                     " cores per replica, the machine has ", Plural(core_count_, "core", "cores")));
  }
  if (request.start_cores.empty() && request.replicas == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", request.owner, "': replicas must be at least 1"));
  }

  MutexLock lock(&mu_);
  absl::StatusOr<std::vector<CoreRange>> ranges =
      request.start_cores.empty() ? PlaceByCount(request) : PlaceExplicitly(request);
  if (!ranges.ok()) return ranges.status();

  Placement placement;
  placement.id = next_placement_id.fetch_add(1, std::memory_order_relaxed);
  placement.ranges = *std::move(ranges);
  for (const CoreRange& range : placement.ranges) {
    for (uint32_t core = range.start; core < End(range); ++core) {
      holders_[core].push_back(CoreHolder{request.owner, placement.id, request.shared});
    }
  }
  placements_.emplace(placement.id, placement.ranges);
  return placement;
}

void CoreAllocator::Release(uint64_t placement_id) {
  MutexLock lock(&mu_);
  auto it = placements_.find(placement_id);
  if (it == placements_.end()) return;
  for (const CoreRange& range : it->second) {
    for (uint32_t core = range.start; core < End(range); ++core) {
      std::vector<CoreHolder>& holders = holders_[core];
      holders.erase(std::remove_if(holders.begin(), holders.end(),
                                   [&](const CoreHolder& holder) {
                                     return holder.placement_id == placement_id;
                                   }),
                    holders.end());
    }
  }
  placements_.erase(it);
}

std::vector<std::vector<CoreHolder>> CoreAllocator::Holders() const {
  MutexLock lock(&mu_);
  return holders_;
}

std::vector<uint32_t> CoreAllocator::FreeCores() const {
  MutexLock lock(&mu_);
  std::vector<uint32_t> free;
  for (uint32_t core = 0; core < core_count_; ++core) {
    if (holders_[core].empty()) free.push_back(core);
  }
  return free;
}

}  // namespace neuronserve
