// The levels of `neuronctl bench --concurrency-range=START:END:STEP`: how many requests to keep
// in flight at each step of the run.
//
// STEP is either "N" (add N each level, as in Triton's perf_analyzer) or "xF" (multiply by F).
// Levels are START and every later value up to END; END itself is a level only when the steps
// land on it (1:10:x2 is 1,2,4,8). "START" alone is one level, "START:END" steps by 1.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_BENCH_CONCURRENCY_RANGE_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_BENCH_CONCURRENCY_RANGE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace neuronserve::neuronctl {

// Each level is a worker thread per request in flight, so a level above this is refused as a
// likely typo rather than left to exhaust the machine's threads.
inline constexpr uint32_t kMaxConcurrency = 1024;

// The levels `value` describes, in increasing order. A usage error naming
// --concurrency-range and quoting `value` when it is malformed, START is 0, END < START, a level
// passes kMaxConcurrency, or STEP is 0 (x0 or x1 for a multiplier).
absl::StatusOr<std::vector<uint32_t>> ParseConcurrencyRange(absl::string_view value);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_BENCH_CONCURRENCY_RANGE_H_
