#include "tests/bench/load_generator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/notification.h"

namespace neuronserve::bench {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::system_clock::time_point DeadlineAfter(absl::Duration timeout) {
  return std::chrono::system_clock::now() + absl::ToChronoNanoseconds(timeout);
}

// One run of RunLoad. Slots are independent chains of calls: a slot's calls never overlap, so
// its counters need no lock; the main thread reads them only after every chain has ended
// (the counter orders those reads after the last writes).
template <typename Request, typename Response>
class LoadRun {
 public:
  LoadRun(const StartCallOf<Request, Response>& start, const Request& request,
          const CheckResponseOf<Response>& check, const LoadOptions& options)
      : start_(start),
        request_(request),
        check_(check),
        options_(options),
        slots_(static_cast<size_t>(options.concurrency)),
        running_(options.concurrency) {}

  LoadResult Run() {
    for (Slot& slot : slots_) Issue(&slot);

    const uint64_t min_calls = static_cast<uint64_t>(options_.min_calls_per_slot) *
                               static_cast<uint64_t>(options_.concurrency);
    WaitPhase(options_.warmup, warmup_calls_, min_calls, 0);
    const Clock::time_point window_start = Clock::now();
    phase_.store(kMeasure, std::memory_order_release);
    WaitPhase(options_.measure, measured_calls_, min_calls, options_.stop_after_calls);
    phase_.store(kStop, std::memory_order_release);
    const Clock::time_point window_end = Clock::now();

    running_.Wait();

    LoadResult result;
    result.seconds = std::chrono::duration<double>(window_end - window_start).count();
    for (Slot& slot : slots_) {
      result.latencies_ns.insert(result.latencies_ns.end(), slot.latencies_ns.begin(),
                                 slot.latencies_ns.end());
      result.failed += slot.failed;
      if (result.first_error.empty()) result.first_error = slot.first_error;
    }
    result.completed = result.latencies_ns.size();
    return result;
  }

 private:
  enum Phase { kWarmup, kMeasure, kStop };

  struct Slot {
    std::vector<int64_t> latencies_ns;  // of the calls that succeeded inside the window
    uint64_t failed = 0;
    std::string first_error;
  };

  // A ClientContext serves one call only, so every call gets its own, with its response.
  struct Call {
    grpc::ClientContext context;
    Response response;
    Clock::time_point started;
  };

  // Sleeps out `duration` (or until `stop_after` calls completed in this phase, when not 0),
  // then on until `min_calls` calls completed in it or `max_extra` more has passed.
  void WaitPhase(absl::Duration duration, const std::atomic<uint64_t>& calls, uint64_t min_calls,
                 uint64_t stop_after) {
    if (stop_after == 0) {
      absl::SleepFor(duration);
    } else {
      // Polled every millisecond: a count is reached between any two sleeps.
      const absl::Time end = absl::Now() + duration;
      while (calls.load(std::memory_order_relaxed) < stop_after && absl::Now() < end) {
        absl::SleepFor(std::min(absl::Milliseconds(1), end - absl::Now()));
      }
    }
    const absl::Time give_up = absl::Now() + options_.max_extra;
    while (calls.load(std::memory_order_relaxed) < min_calls && absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(5));
    }
  }

  void Issue(Slot* slot) {
    auto call = std::make_unique<Call>();
    call->context.set_deadline(DeadlineAfter(options_.call_timeout));
    call->started = Clock::now();
    Call* raw = call.release();
    start_(&raw->context, &request_, &raw->response,
           [this, slot, raw](grpc::Status status) { Completed(slot, raw, status); });
  }

  // Runs on a gRPC thread. Deleting the call's context here is safe: the callback machinery
  // holds its own reference to the underlying call until after this returns.
  void Completed(Slot* slot, Call* raw, const grpc::Status& status) {
    std::unique_ptr<Call> call(raw);
    const Clock::time_point ended = Clock::now();
    const int phase = phase_.load(std::memory_order_acquire);
    std::string error;
    if (!status.ok()) {
      error = "code " + std::to_string(status.error_code()) + ": " + status.error_message();
    } else {
      error = check_(call->response);
    }
    if (!error.empty()) {
      if (slot->failed++ == 0) slot->first_error = error;
    } else if (phase == kMeasure) {
      slot->latencies_ns.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(ended - call->started).count());
    }
    // Failures count as completions here too: a failing target must not keep a phase waiting
    // for successes that will not come.
    if (phase == kMeasure) measured_calls_.fetch_add(1, std::memory_order_relaxed);
    if (phase == kWarmup) warmup_calls_.fetch_add(1, std::memory_order_relaxed);
    call.reset();
    if (phase == kStop) {
      running_.DecrementCount();  // this slot's chain ends here
      return;
    }
    Issue(slot);
  }

  const StartCallOf<Request, Response>& start_;
  const Request& request_;
  const CheckResponseOf<Response>& check_;
  const LoadOptions options_;
  std::vector<Slot> slots_;

  std::atomic<int> phase_{kWarmup};
  std::atomic<uint64_t> warmup_calls_{0};
  std::atomic<uint64_t> measured_calls_{0};
  // Slots whose chain of calls has not ended yet. Safe to destroy once Wait returns.
  absl::BlockingCounter running_;
};

}  // namespace

neuronctl::LatencySummary LoadResult::Latency() const {
  neuronctl::LatencyStats stats;
  stats.Reserve(latencies_ns.size());
  for (int64_t latency : latencies_ns) stats.Add(latency);
  return stats.Summarize();
}

void LoadResult::Add(const LoadResult& other) {
  completed += other.completed;
  seconds += other.seconds;
  failed += other.failed;
  if (first_error.empty()) first_error = other.first_error;
  latencies_ns.insert(latencies_ns.end(), other.latencies_ns.begin(), other.latencies_ns.end());
}

template <typename Request, typename Response>
LoadResult RunLoad(const StartCallOf<Request, Response>& start, const Request& request,
                   const CheckResponseOf<Response>& check, const LoadOptions& options) {
  LoadRun<Request, Response> run(start, request, check, options);
  return run.Run();
}

template <typename Request, typename Response>
grpc::Status CallOnce(const StartCallOf<Request, Response>& start, const Request& request,
                      Response* response, absl::Duration timeout) {
  grpc::ClientContext context;
  context.set_deadline(DeadlineAfter(timeout));
  absl::Notification done;
  grpc::Status result;
  start(&context, &request, response, [&](grpc::Status status) {
    result = std::move(status);
    done.Notify();
  });
  done.WaitForNotification();
  return result;
}

// The two protocols the bench drives (the echo server speaks the native messages).
template LoadResult RunLoad(const StartCall&, const v1::InferRequest&, const CheckResponse&,
                            const LoadOptions&);
template LoadResult RunLoad(const V2StartCall&, const inference::ModelInferRequest&,
                            const V2CheckResponse&, const LoadOptions&);
template grpc::Status CallOnce(const StartCall&, const v1::InferRequest&, v1::InferResponse*,
                               absl::Duration);
template grpc::Status CallOnce(const V2StartCall&, const inference::ModelInferRequest&,
                               inference::ModelInferResponse*, absl::Duration);

}  // namespace neuronserve::bench
