#include "core/serving/queue_full.h"

#include "absl/strings/str_cat.h"

namespace neuronserve {

absl::Status QueueFullError(absl::string_view model, size_t capacity) {
  return absl::UnavailableError(absl::StrCat("model '", model, "': request queue is full (",
                                             capacity,
                                             " waiting, its max_queue); retry later or add "
                                             "replicas"));
}

}  // namespace neuronserve
