// SharedMemoryReference: a request's tensor that lives in a registered region rather than in
// the message, as the tensor's parameters name it: shared_memory_region (string),
// shared_memory_byte_size and shared_memory_offset (integers), Triton's parameter names on
// every protocol. The region and the byte size are required together; the offset is optional
// (0). Each protocol reads the three parameters from its own message form and hands them to
// ReadSharedMemoryReference, so the rules are stated once.
//
// Thread safety: pure functions. Ownership: a reference's region name is a view into the
// request, which outlives it.
#ifndef NEURON_SERVE_SERVER_SHARED_MEMORY_SHARED_MEMORY_REFERENCE_H_
#define NEURON_SERVE_SERVER_SHARED_MEMORY_SHARED_MEMORY_REFERENCE_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace neuronserve {

inline constexpr absl::string_view kSharedMemoryRegionParameter = "shared_memory_region";
inline constexpr absl::string_view kSharedMemoryOffsetParameter = "shared_memory_offset";
inline constexpr absl::string_view kSharedMemoryByteSizeParameter = "shared_memory_byte_size";

struct SharedMemoryReference {
  absl::string_view region;
  uint64_t offset = 0;
  uint64_t byte_size = 0;
};

// One of the three parameters as the request gave it: absent, or a value of the right type, or
// present with the wrong type (then `wrong_type` names the type the protocol saw, e.g. "string").
template <typename T>
struct GivenParameter {
  std::optional<T> value;
  absl::string_view wrong_type;  // non-empty: present, but not of type T
  bool present() const { return value.has_value() || !wrong_type.empty(); }
};

// The reference the parameters make, nullopt when none of them is given (the tensor's bytes are
// in the message), or INVALID_ARGUMENT naming `tensor` (e.g. "model 'm' input 'x'") when only
// some are given, one has the wrong type, or an integer is negative.
absl::StatusOr<std::optional<SharedMemoryReference>> ReadSharedMemoryReference(
    absl::string_view tensor, const GivenParameter<absl::string_view>& region,
    const GivenParameter<int64_t>& offset, const GivenParameter<int64_t>& byte_size);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_SHARED_MEMORY_SHARED_MEMORY_REFERENCE_H_
