// CoreRange: a contiguous run of NeuronCores, the unit a replica of a model occupies, and the one
// text form of cores and core lists that every message uses. The allocator (core/lifecycle)
// hands ranges out; the serving layer runs on them.
//
// Plain values and pure functions: thread-safe.
#ifndef NEURON_SERVE_CORE_SERVING_EXECUTION_CORE_RANGE_H_
#define NEURON_SERVE_CORE_SERVING_EXECUTION_CORE_RANGE_H_

#include <cstdint>
#include <string>

#include "absl/types/span.h"

namespace neuronserve {

// Contiguous cores [start, start + count).
struct CoreRange {
  uint32_t start = 0;
  uint32_t count = 0;
};

// "3" for one core, "1-2" for more.
std::string FormatCoreRange(const CoreRange& range);

// "core 3", "cores 1-2": a range named in a sentence.
std::string NameCoreRange(const CoreRange& range);

// "0-1, 2-3": each range as FormatCoreRange writes it, in the order given (adjacent ranges stay
// apart: they are different replicas).
std::string FormatCoreRanges(absl::Span<const CoreRange> ranges);

// "0-3, 5", "0, 2-4": a sorted list of cores, with each run of consecutive cores as one range.
std::string FormatCoreList(absl::Span<const uint32_t> cores);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_EXECUTION_CORE_RANGE_H_
