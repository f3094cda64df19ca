// RowRanges: the bookkeeping of one request whose rows run in several executions (a request
// with more rows than the model's largest batch variant, split by the batching scheduler into
// row ranges). Each range ends once (executed, refused, or handed back by a closing scheduler);
// the request is completed once, by whoever ends its last rows, with the first error any range
// met, or OK.
//
// Thread safety: every method may be called from any thread (the workers of several cores run
// and end ranges of one request at once); one mutex guards the count, the first error and the
// output spans.
#ifndef NEURON_SERVE_CORE_SERVING_REQUEST_ROW_RANGES_H_
#define NEURON_SERVE_CORE_SERVING_REQUEST_ROW_RANGES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "base/mutex.h"

namespace neuronserve {

class RowRanges {
 public:
  // A request of `rows` rows, none ended yet.
  explicit RowRanges(uint32_t rows) : pending_rows_(rows) {}
  RowRanges(const RowRanges&) = delete;
  RowRanges& operator=(const RowRanges&) = delete;

  // `rows` of the request ended with `status`. True for the call that ends its last rows, which
  // then completes the request with `*outcome`: the first error, or OK when every range was.
  bool End(uint32_t rows, const absl::Status& status, absl::Status* outcome);
  // True once a range failed: the rows not yet on the device need not run (their ranges end
  // with that error at once).
  bool failed() const;
  // The first error (OK while none): what the ranges that did not run end with.
  absl::Status first_error() const;

  // The request's output `index`, asked of `ask` (the job's InferenceJob::Output) once and
  // kept: the ranges on several cores write their rows into the one buffer, and the job's
  // Output need not be safe to call from several threads at once.
  absl::Span<uint8_t> Output(size_t index, absl::FunctionRef<absl::Span<uint8_t>()> ask);

 private:
  mutable Mutex mutex_;
  uint32_t pending_rows_ ABSL_GUARDED_BY(mutex_);
  // Kept as code and text, not as an absl::Status: a Status shared across threads counts its
  // references inside Debian's uninstrumented libabsl, where TSAN cannot follow them.
  absl::StatusCode error_code_ ABSL_GUARDED_BY(mutex_) = absl::StatusCode::kOk;
  std::string error_message_ ABSL_GUARDED_BY(mutex_);
  // Per output index: what the job gave when it was asked (nullopt: not asked yet).
  std::vector<std::optional<absl::Span<uint8_t>>> outputs_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_REQUEST_ROW_RANGES_H_
