// The soak: a daemon on the simulator under every kind of traffic at once, for minutes to hours,
// then a reckoning. What it mixes, on 4 KiB identity models (output = input, so every answer can
// be checked byte for byte):
//   - unary Infer, ModelInfer and REST /infer requests, a tenth with a 1 ms deadline;
//   - native and Open Inference Protocol streams of 8 requests, a tenth cancelled midway;
//   - requests whose tensors travel through client shared memory, on both protocols;
//   - calls cancelled 0-2 ms after they start, and REST clients that hang up before the answer;
//   - requests of 1 to 4 rows to a batched model (variants of 1 and 4 rows, a 2 ms delay);
//   - two models loaded, replaced under new version labels and unloaded over and over;
//   - execution faults: every few hundred milliseconds the driver rewrites the simulator's
//     NRTSIM_FAULTS_FILE so that a few executions fail with a transient status.
// At the end, with the traffic stopped: every request answered exactly once (no call without an
// answer by its 30 s deadline, no stream answer missing or repeated, the daemon counting no more
// answers than were sent), every OK answer correct, no error the traffic cannot cause, no model
// ever FAILED without a message, each core's device memory equal to what the loaded models
// hold (and 0 once they are unloaded), the queues and the queued-bytes gauge back to 0, the
// daemon's RSS after warm-up within a bound, and the daemon exiting 0 on SIGTERM.
//
// Thread safety: RunSoak runs its own threads (one per client, a fault writer and a monitor)
// and returns once all have ended.
#ifndef NEURON_SERVE_TESTS_BENCH_SOAK_RUN_H_
#define NEURON_SERVE_TESTS_BENCH_SOAK_RUN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace neuronserve::bench {

struct SoakOptions {
  std::string daemon;       // the neuron-serve binary
  std::string nrt_library;  // libnrtsim.so
  std::vector<std::string> daemon_args;
  absl::Duration duration = absl::Minutes(10);
  // Clients, each a thread with one request (or stream, or lifecycle operation) at a time; the
  // mix repeats every 16, so at least 16.
  int clients = 32;
  uint32_t seed = 1;
  // The statuses the injected execution faults return, in turn at random. Transient ones by
  // default: a hardware status takes its core out of rotation for good (the fault matrix tests
  // that), and soon there is nothing left to soak.
  std::vector<std::string> fault_statuses = {"NRT_FAILURE", "NRT_RESOURCE"};
  // /metrics is scraped at the start and at the end, and every `scrape_every` in between when
  // it is not zero. Without scrapes between, each replaced version's series wait for the end
  // (at most --max-retired-metric-versions of them): what a user who scrapes rarely has.
  absl::Duration scrape_every = absl::ZeroDuration();
  // Replacements take version labels from a small set (v1 to v4) instead of a new one each time,
  // the baseline for what new labels cost.
  bool reuse_labels = false;
  // The RSS is sampled once `warm_rss_at` has passed (or half the run, if shorter); at the end
  // of the traffic, with every model still loaded, it may be at most rss_growth_bytes more once
  // the daemon's next malloc trim has handed back what the last bursts freed (polled for up to
  // 15 s; the highest sample in between is printed: a burst of queued requests may pass it). Memory must be bounded by
  // what is loaded, not by the versions that came and went: a leak of a few kB per replaced
  // version (8 a second here) crosses 4 MiB within minutes. The free memory malloc's arenas keep
  // is handed back every --malloc-trim-interval (util/malloc_tuning.h), so the RSS follows what
  // is in use.
  absl::Duration warm_rss_at = absl::Seconds(10);
  uint64_t rss_growth_bytes = uint64_t{4} << 20;
  // Off under AddressSanitizer, whose quarantine holds freed memory on purpose (up to 256 MiB):
  // the RSS is still printed.
  bool check_rss = true;
};

// Prints the mix, progress every 10 s and the reckoning; 0 when every check held.
int RunSoak(const SoakOptions& options);

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_SOAK_RUN_H_
