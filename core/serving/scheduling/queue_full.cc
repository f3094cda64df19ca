#include "core/serving/scheduling/queue_full.h"

#include "absl/strings/str_cat.h"

namespace neuronserve {

absl::Status QueueFullError(absl::string_view model, size_t capacity) {
  return absl::UnavailableError(absl::StrCat("model '", model, "': request queue is full (",
                                             capacity,
                                             " waiting, its max_queue); retry later or add "
                                             "replicas"));
}

absl::Status QueuedBytesFullError(absl::string_view model, uint64_t request_bytes, uint64_t held,
                                  uint64_t limit) {
  return absl::UnavailableError(
      absl::StrCat("model '", model, "': the request's ", request_bytes,
                   " input bytes do not fit the daemon's queues (", held, " of ", limit,
                   " bytes held by queued requests, --max-queued-bytes); retry later"));
}

}  // namespace neuronserve
