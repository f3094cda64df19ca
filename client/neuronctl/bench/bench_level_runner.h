// One level of `neuronctl bench`: N worker threads, each keeping one request in flight (send,
// wait for the answer, send again), first for the warmup and then for the measurement.
//
// What is counted: with a duration, every request that completes inside the measurement window
// [warmup end, warmup end + duration), so that requests straddling either edge balance out and
// throughput is unbiased; with a request count, exactly that many requests sent after the
// warmup, the window running from the warmup's end to the last answer.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_LEVEL_RUNNER_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_LEVEL_RUNNER_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/time/time.h"
#include "client/neuronctl/bench/bench_result.h"
#include "client/neuronctl/bench/request_issuer.h"

namespace neuronserve::neuronctl {

struct LevelOptions {
  uint32_t concurrency = 1;
  absl::Duration warmup = absl::ZeroDuration();  // zero: measure from the first request
  absl::Duration duration = absl::Seconds(5);    // used when `requests` is 0
  uint64_t requests = 0;                         // > 0: exactly this many, whatever the time
};

// A snapshot for the progress line, taken a few times a second.
struct LevelProgress {
  bool warming_up = false;
  absl::Duration elapsed;        // into the current phase
  absl::Duration total;          // of the current phase; zero in the measurement of a request count
  uint64_t requests = 0;         // answered (successfully or not) in the measurement so far
  uint64_t target_requests = 0;  // LevelOptions.requests
  double current_rate = 0;       // answers per second since the previous snapshot, warmup too
};

// Makes the issuer of one worker; called on that worker's thread.
using IssuerFactory = std::function<std::unique_ptr<RequestIssuer>()>;
using ProgressCallback = std::function<void(const LevelProgress&)>;

// Runs the level to the end and returns what it measured. `on_progress` (may be empty) is
// called on the calling thread about every `progress_interval` while the level runs.
LevelResult RunLevel(const LevelOptions& options, const IssuerFactory& make_issuer,
                     const ProgressCallback& on_progress,
                     absl::Duration progress_interval = absl::Milliseconds(250));

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_LEVEL_RUNNER_H_
