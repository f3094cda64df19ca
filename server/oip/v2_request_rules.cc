#include "server/oip/v2_request_rules.h"

#include <algorithm>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/shape.h"

namespace neuronserve {

int64_t V2TimeoutFromUnsigned(uint64_t micros) {
  return static_cast<int64_t>(
      std::min<uint64_t>(micros, static_cast<uint64_t>(std::numeric_limits<int64_t>::max())));
}

absl::StatusOr<absl::Duration> V2QueueTimeout(std::string_view model, int64_t micros) {
  if (micros < 0) {
    return absl::InvalidArgumentError(absl::StrCat("model '", std::string(model),
                                                   "': request parameter 'timeout' is ", micros,
                                                   " microseconds; give 0 (none) or more"));
  }
  return absl::Microseconds(micros);
}

const TensorSpec* V2FindTensor(const std::vector<TensorSpec>& tensors, std::string_view name) {
  for (const TensorSpec& tensor : tensors) {
    if (tensor.name == name) return &tensor;
  }
  return nullptr;
}

absl::Status V2CheckEmptyShape(std::string_view where, const TensorSpec& spec, size_t rank) {
  if (rank == 0 && !spec.shape.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(where), ": expected shape ",
                                                   ShapeToString(spec.shape), ", got []"));
  }
  return absl::OkStatus();
}

}  // namespace neuronserve
