#include "server/shared_memory/shared_memory_reference.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace neuronserve {
namespace {

absl::Status WrongType(absl::string_view tensor, absl::string_view parameter,
                       absl::string_view wanted, absl::string_view given) {
  return absl::InvalidArgumentError(
      absl::StrCat(tensor, ": parameter '", parameter, "' must be ", wanted, ", got ", given));
}

// The non-negative value of an integer parameter, or the error naming it.
absl::StatusOr<uint64_t> NonNegative(absl::string_view tensor, absl::string_view parameter,
                                     const GivenParameter<int64_t>& given) {
  if (!given.wrong_type.empty()) {
    return WrongType(tensor, parameter, "an integer", given.wrong_type);
  }
  if (*given.value < 0) {
    return absl::InvalidArgumentError(absl::StrCat(tensor, ": parameter '", parameter, "' is ",
                                                   *given.value, "; it may not be negative"));
  }
  return static_cast<uint64_t>(*given.value);
}

}  // namespace

absl::StatusOr<std::optional<SharedMemoryReference>> ReadSharedMemoryReference(
    absl::string_view tensor, const GivenParameter<absl::string_view>& region,
    const GivenParameter<int64_t>& offset, const GivenParameter<int64_t>& byte_size) {
  if (!region.present() && !offset.present() && !byte_size.present()) return std::nullopt;
  if (!region.present() || !byte_size.present()) {
    std::vector<absl::string_view> given;
    if (region.present()) given.push_back(kSharedMemoryRegionParameter);
    if (offset.present()) given.push_back(kSharedMemoryOffsetParameter);
    if (byte_size.present()) given.push_back(kSharedMemoryByteSizeParameter);
    return absl::InvalidArgumentError(absl::StrCat(
        tensor, ": a tensor in shared memory needs both '", kSharedMemoryRegionParameter, "' and '",
        kSharedMemoryByteSizeParameter, "' (and optionally '", kSharedMemoryOffsetParameter,
        "'); the request gives only ", absl::StrJoin(given, ", ")));
  }
  if (!region.wrong_type.empty()) {
    return WrongType(tensor, kSharedMemoryRegionParameter, "a string", region.wrong_type);
  }
  if (region.value->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        tensor, ": parameter '", kSharedMemoryRegionParameter, "' is empty: name a region"));
  }
  SharedMemoryReference reference;
  reference.region = *region.value;
  absl::StatusOr<uint64_t> size = NonNegative(tensor, kSharedMemoryByteSizeParameter, byte_size);
  if (!size.ok()) return size.status();
  reference.byte_size = *size;
  if (offset.present()) {
    absl::StatusOr<uint64_t> at = NonNegative(tensor, kSharedMemoryOffsetParameter, offset);
    if (!at.ok()) return at.status();
    reference.offset = *at;
  }
  return reference;
}

}  // namespace neuronserve
