#include "client/neuronctl/bench/bench_level_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "client/neuronctl/bench/latency_stats.h"

namespace neuronserve::neuronctl {
namespace {

// Monotonic, unlike absl::Now(): a clock step must not turn into a latency.
using Clock = std::chrono::steady_clock;

// Samples a worker expects to record, reserved up front; more only costs a reallocation.
constexpr size_t kReservedSamples = 4096;

// What one worker counted, touched only by its own thread until the level ends. Aligned to a
// cache line so that neighbouring workers do not slow each other down by false sharing.
struct alignas(64) WorkerTally {
  LatencyStats latency;
  int64_t queue_ns = 0;
  int64_t device_ns = 0;
  uint64_t batch_rows = 0;  // summed over the answers that reported their batch
  uint64_t batch_reports = 0;
  std::map<absl::StatusCode, uint64_t> errors;
  std::string first_error;
  Clock::time_point last_counted_end{};
};

// What the workers share: fixed times, and counters for the progress line and --requests.
struct LevelClock {
  Clock::time_point measure_start;
  Clock::time_point measure_end;  // with a request count: never reached
  uint64_t requests = 0;
  std::atomic<uint64_t> tickets{0};   // --requests: claimed by each counted request
  std::atomic<uint64_t> answered{0};  // every answer, warmup included
  std::atomic<uint64_t> measured{0};  // counted answers
  std::atomic<uint32_t> running_workers{0};
  absl::Notification all_done;
};

std::string CodeName(absl::StatusCode code) {
  std::string name = absl::StatusCodeToString(code);
  return name.empty() ? absl::StrCat("CODE_", static_cast<int>(code)) : name;
}

void RunWorker(LevelClock& clock, const IssuerFactory& make_issuer, WorkerTally& tally) {
  tally.latency.Reserve(kReservedSamples);
  {
    // Destroyed (its stream finished) before the level counts this worker as done.
    const std::unique_ptr<RequestIssuer> issuer = make_issuer();
    while (true) {
      const Clock::time_point start = Clock::now();
      bool ticketed = false;
      if (start >= clock.measure_start) {
        if (clock.requests > 0) {
          if (clock.tickets.fetch_add(1, std::memory_order_relaxed) >= clock.requests) break;
          ticketed = true;
        } else if (start >= clock.measure_end) {
          break;
        }
      }
      absl::StatusOr<ServerTimes> outcome = issuer->Issue();
      const Clock::time_point end = Clock::now();
      clock.answered.fetch_add(1, std::memory_order_relaxed);
      const bool counted =
          clock.requests > 0 ? ticketed : end >= clock.measure_start && end < clock.measure_end;
      if (!counted) continue;
      clock.measured.fetch_add(1, std::memory_order_relaxed);
      tally.last_counted_end = end;
      if (outcome.ok()) {
        tally.latency.Add(
            std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
        tally.queue_ns += absl::ToInt64Nanoseconds(outcome->queue_time);
        tally.device_ns += absl::ToInt64Nanoseconds(outcome->device_time);
        if (outcome->batch_rows > 0) {
          tally.batch_rows += outcome->batch_rows;
          ++tally.batch_reports;
        }
      } else {
        ++tally.errors[outcome.status().code()];
        if (tally.first_error.empty()) tally.first_error = outcome.status().ToString();
      }
    }
  }
  if (clock.running_workers.fetch_sub(1) == 1) clock.all_done.Notify();
}

LevelProgress Snapshot(const LevelOptions& options, const LevelClock& clock,
                       Clock::time_point level_start, Clock::time_point now) {
  LevelProgress progress;
  progress.target_requests = options.requests;
  progress.requests = clock.measured.load(std::memory_order_relaxed);
  progress.warming_up = now < clock.measure_start;
  if (progress.warming_up) {
    progress.elapsed = absl::FromChrono(now - level_start);
    progress.total = options.warmup;
  } else {
    progress.elapsed = absl::FromChrono(now - clock.measure_start);
    if (options.requests == 0) {
      progress.total = options.duration;
      progress.elapsed = std::min(progress.elapsed, progress.total);
    }
  }
  return progress;
}

LevelResult Collect(const LevelOptions& options, const LevelClock& clock,
                    std::vector<WorkerTally>& tallies) {
  LevelResult result;
  result.concurrency = options.concurrency;
  LatencyStats latency;
  int64_t queue_ns = 0;
  int64_t device_ns = 0;
  uint64_t batch_rows = 0;
  uint64_t batch_reports = 0;
  Clock::time_point last_end = clock.measure_start;
  for (WorkerTally& tally : tallies) {
    latency.Merge(std::move(tally.latency));
    queue_ns += tally.queue_ns;
    device_ns += tally.device_ns;
    batch_rows += tally.batch_rows;
    batch_reports += tally.batch_reports;
    for (const auto& [code, count] : tally.errors) result.errors[CodeName(code)] += count;
    if (result.first_error.empty()) result.first_error = tally.first_error;
    last_end = std::max(last_end, tally.last_counted_end);
  }
  result.requests = latency.count();
  result.measured =
      options.requests > 0 ? absl::FromChrono(last_end - clock.measure_start) : options.duration;
  result.latency = latency.Summarize();
  if (result.requests > 0) {
    result.mean_queue_ns = queue_ns / static_cast<int64_t>(result.requests);
    result.mean_device_ns = device_ns / static_cast<int64_t>(result.requests);
  }
  if (batch_reports > 0) {
    result.mean_batch_rows = static_cast<double>(batch_rows) / static_cast<double>(batch_reports);
  }
  return result;
}

}  // namespace

LevelResult RunLevel(const LevelOptions& options, const IssuerFactory& make_issuer,
                     const ProgressCallback& on_progress, absl::Duration progress_interval) {
  if (options.concurrency == 0) return LevelResult{};  // no worker would ever say it is done
  LevelClock clock;
  const Clock::time_point level_start = Clock::now();
  clock.measure_start = level_start + absl::ToChronoNanoseconds(options.warmup);
  clock.measure_end = options.requests > 0
                          ? Clock::time_point::max()
                          : clock.measure_start + absl::ToChronoNanoseconds(options.duration);
  clock.requests = options.requests;
  clock.running_workers.store(options.concurrency);

  std::vector<WorkerTally> tallies(options.concurrency);
  {
    std::vector<std::jthread> workers;
    workers.reserve(options.concurrency);
    for (WorkerTally& tally : tallies) {
      workers.emplace_back(RunWorker, std::ref(clock), std::cref(make_issuer), std::ref(tally));
    }
    uint64_t previous_answered = 0;
    Clock::time_point previous_time = level_start;
    while (!clock.all_done.WaitForNotificationWithTimeout(progress_interval)) {
      if (!on_progress) continue;
      const Clock::time_point now = Clock::now();
      LevelProgress progress = Snapshot(options, clock, level_start, now);
      const uint64_t answered = clock.answered.load(std::memory_order_relaxed);
      const double seconds = std::chrono::duration<double>(now - previous_time).count();
      progress.current_rate =
          seconds > 0 ? static_cast<double>(answered - previous_answered) / seconds : 0.0;
      previous_answered = answered;
      previous_time = now;
      on_progress(progress);
    }
  }  // joins the workers
  return Collect(options, clock, tallies);
}

}  // namespace neuronserve::neuronctl
