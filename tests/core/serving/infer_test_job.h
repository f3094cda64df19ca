// Test doubles for core/serving: an InferenceJob that owns its buffers and records its outcome
// (TestJob), one that only a scheduler sees (SchedulerJob), one that ends its JobWithdrawal when
// it completes (WithdrawableJob), a Doorbell that counts rings, and
// the kinds of request the stress cases mix. Synchronization uses
// base/mutex.h only (TSAN cannot see Debian's absl::Mutex / absl::Notification).
#ifndef NEURON_SERVE_TESTS_CORE_SERVING_INFER_TEST_JOB_H_
#define NEURON_SERVE_TESTS_CORE_SERVING_INFER_TEST_JOB_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "base/mutex.h"
#include "core/serving/model/loaded_model.h"
#include "core/serving/model/request_outcome.h"
#include "core/serving/request/inference_job.h"
#include "core/serving/scheduling/doorbell.h"
#include "core/serving/scheduling/dynamic_batcher.h"
#include "core/serving/scheduling/job_withdrawal.h"
#include "gmock/gmock.h"

namespace neuronserve::testing {

// A batching policy of these variants' batch sizes and every other setting at its default.
inline BatchingPolicy BatchSizes(std::vector<uint32_t> sizes) {
  BatchingPolicy policy;
  policy.variant_batch_sizes = std::move(sizes);
  return policy;
}

// Counts rings; Ring() takes only its own (leaf) lock, as the Doorbell contract asks.
class CountingDoorbell : public Doorbell {
 public:
  void Ring() override {
    MutexLock lock(&mutex_);
    ++rings_;
    changed_.NotifyAll();
  }
  int rings() {
    MutexLock lock(&mutex_);
    return rings_;
  }
  // Waits until at least `count` rings were counted; false after `timeout`.
  bool WaitForRings(int count, absl::Duration timeout = absl::Seconds(20)) {
    MutexLock lock(&mutex_);
    return changed_.WaitWithTimeout(
        &mutex_, timeout, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return rings_ >= count; });
  }

 private:
  Mutex mutex_;
  CondVar changed_;
  int rings_ ABSL_GUARDED_BY(mutex_) = 0;
};

// A request only a scheduler and the test see (no model, no device): it records how often, and
// how, it completed, and how often it was asked for its output. Like the server's calls, Output
// is not thread-safe (ThreadSanitizer reports two workers asking at once).
class SchedulerJob : public InferenceJob {
 public:
  explicit SchedulerJob(int id, uint32_t row_count = 1) : id(id) { rows = row_count; }
  absl::Span<const uint8_t> Input(size_t) const override { return {}; }
  absl::Span<uint8_t> Output(size_t) override {
    ++output_calls;
    return absl::MakeSpan(output);
  }
  bool Cancelled() const override { return cancelled.load(std::memory_order_acquire); }
  void Complete(absl::Status status, const ExecutionTiming&) override {
    code.store(status.code());
    completions.fetch_add(1);
  }

  const int id;
  std::atomic<bool> cancelled{false};
  int output_calls = 0;
  uint8_t output[1] = {0};
  std::atomic<int> completions{0};
  std::atomic<absl::StatusCode> code{absl::StatusCode::kOk};
};

// A job that ends its withdrawal when it completes, as the server's calls do (JobWithdrawal's
// tests: a job on a scheduler, no model, no device).
class WithdrawableJob : public InferenceJob {
 public:
  explicit WithdrawableJob(uint64_t bytes = 0, uint32_t row_count = 1) {
    input_bytes = bytes;
    rows = row_count;
  }
  absl::Span<const uint8_t> Input(size_t) const override { return {}; }
  absl::Span<uint8_t> Output(size_t) override { return {}; }
  bool Cancelled() const override { return cancelled.load(std::memory_order_acquire); }
  void Complete(absl::Status status, const ExecutionTiming&) override {
    withdrawal.Ended();
    code.store(status.code());
    if (!status.ok()) {
      MutexLock lock(&mutex_);
      message_ = std::string(status.message());
    }
    completions.fetch_add(1);
  }
  std::string message() {
    MutexLock lock(&mutex_);
    return message_;
  }

  JobWithdrawal withdrawal;
  std::atomic<bool> cancelled{false};
  std::atomic<int> completions{0};
  std::atomic<absl::StatusCode> code{absl::StatusCode::kOk};

 private:
  Mutex mutex_;
  std::string message_ ABSL_GUARDED_BY(mutex_);
};

// One request: holds a lease on the model (released in Complete, as the server's call does),
// owns the input bytes and the output buffers, and records the outcome. Like the server's call,
// it counts its outcome in the model (RecordRequestOutcome, the one recorder) in Complete,
// before it lets the lease go: core does not count. The outcome is kept as code and text, not
// as an absl::Status: a Status shared across threads counts references inside Debian's
// uninstrumented libabsl, where TSAN cannot follow them.
class TestJob : public InferenceJob {
 public:
  static constexpr float kSentinel = -12345.0f;

  // `inputs[i]`: the floats of the model's input i. `output_floats[j]`: the size in floats of
  // the model's output j, or 0 when the caller does not want it (Output(j) is then empty).
  TestJob(LoadedModel::Lease lease, std::vector<std::vector<float>> inputs,
          std::vector<size_t> output_floats)
      : lease_(std::move(lease)), inputs_(std::move(inputs)), output_calls_(output_floats.size()) {
    for (size_t floats : output_floats) outputs_.emplace_back(floats, kSentinel);
  }

  absl::Span<const uint8_t> Input(size_t index) const override {
    if (index == 0) {
      MutexLock lock(&mutex_);
      executed_on_ = std::this_thread::get_id();
    }
    started_.Notify();  // a worker is writing the inputs: the job is on the device
    // Holds the worker here (before nrt_execute, with no lock held) until the test opens the
    // gate: "executing" becomes a state the test controls rather than a race it has to win.
    if (index == 0 && input_gate_ != nullptr) input_gate_->WaitForNotification();
    const std::vector<float>& values = inputs_.at(index);
    return {reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(float)};
  }
  absl::Span<uint8_t> Output(size_t index) override {
    output_calls_.at(index).fetch_add(1);
    std::vector<float>& values = outputs_.at(index);
    return {reinterpret_cast<uint8_t*>(values.data()), values.size() * sizeof(float)};
  }
  bool Cancelled() const override { return cancelled_.load(std::memory_order_acquire); }
  void Complete(absl::Status status, const ExecutionTiming& timing) override {
    if (lease_) {
      RecordRequestOutcome(&*lease_, lease_->request_metrics(), status.code(),
                           {timing.queued + timing.device, timing.queued, timing.device});
    }
    Answer(status, timing);
  }
  // Answers a job the scheduler refused without counting it in the model: the tests' counts are
  // those of the jobs core answered (the server counts a refused push as a failure).
  void Refuse(const absl::Status& status) { Answer(status, ExecutionTiming{}); }

  void Cancel() { cancelled_.store(true, std::memory_order_release); }
  // The model's scheduler, through the job's lease: valid until Complete (submit with it).
  Scheduler* scheduler() const { return lease_->scheduler(); }
  // Set before the job is pushed.
  void set_input_gate(Notification* gate) { input_gate_ = gate; }
  bool WaitDone(absl::Duration timeout = absl::Seconds(20)) {
    return done_.WaitForNotificationWithTimeout(timeout);
  }
  bool done() { return done_.HasBeenNotified(); }
  // True once a worker began writing this job's inputs (it passed the cancel/deadline checks).
  bool WaitStarted(absl::Duration timeout = absl::Seconds(20)) {
    return started_.WaitForNotificationWithTimeout(timeout);
  }
  bool started() const { return started_.HasBeenNotified(); }

  // The threads that wrote the job's inputs (its core's worker) and completed it; read after
  // WaitDone.
  std::thread::id executed_on() const {
    MutexLock lock(&mutex_);
    return executed_on_;
  }
  std::thread::id completed_on() const {
    MutexLock lock(&mutex_);
    return completed_on_;
  }

  // The outcome; read after WaitDone.
  int completions() {
    MutexLock lock(&mutex_);
    return completions_;
  }
  absl::StatusCode code() {
    MutexLock lock(&mutex_);
    return code_;
  }
  std::string message() {
    MutexLock lock(&mutex_);
    return message_;
  }
  ExecutionTiming timing() {
    MutexLock lock(&mutex_);
    return timing_;
  }
  const std::vector<float>& input(size_t index) const { return inputs_.at(index); }
  const std::vector<float>& output(size_t index) const { return outputs_.at(index); }
  int output_calls(size_t index) const { return output_calls_.at(index).load(); }
  bool holds_lease() const { return static_cast<bool>(lease_); }

 private:
  void Answer(const absl::Status& status, const ExecutionTiming& timing) {
    {
      MutexLock lock(&mutex_);
      ++completions_;
      completed_on_ = std::this_thread::get_id();
      code_ = status.code();
      message_ = std::string(status.message());
      timing_ = timing;
    }
    // Released before telling anyone: the model may be unloaded from here on.
    lease_ = LoadedModel::Lease();
    done_.Notify();
  }

  LoadedModel::Lease lease_;
  const std::vector<std::vector<float>> inputs_;
  std::vector<std::vector<float>> outputs_;
  std::vector<std::atomic<int>> output_calls_;
  std::atomic<bool> cancelled_{false};
  Notification* input_gate_ = nullptr;
  mutable Notification started_;
  Notification done_;

  mutable Mutex mutex_;
  mutable std::thread::id executed_on_ ABSL_GUARDED_BY(mutex_);  // set in the const Input
  std::thread::id completed_on_ ABSL_GUARDED_BY(mutex_);
  int completions_ ABSL_GUARDED_BY(mutex_) = 0;
  absl::StatusCode code_ ABSL_GUARDED_BY(mutex_) = absl::StatusCode::kUnknown;
  std::string message_ ABSL_GUARDED_BY(mutex_);
  ExecutionTiming timing_ ABSL_GUARDED_BY(mutex_);
};

// How a stress case's request behaves around its submit.
enum class StressKind { kPlain, kCancelledBefore, kCancelledAfter, kExpired, kShortDeadline };

// One in ten cancelled before its submit, one in ten after it, one in ten already expired, two
// in ten with a deadline within 3 ms, the rest plain.
inline StressKind DrawStressKind(std::mt19937& random) {
  const int draw = static_cast<int>(random() % 10);
  return draw == 0   ? StressKind::kCancelledBefore
         : draw == 1 ? StressKind::kCancelledAfter
         : draw == 2 ? StressKind::kExpired
         : draw <= 4 ? StressKind::kShortDeadline
                     : StressKind::kPlain;
}

// What `kind` does before the submit: cancel, or set the deadline.
inline void PrepareForSubmit(TestJob& job, StressKind kind, std::mt19937& random) {
  if (kind == StressKind::kCancelledBefore) job.Cancel();
  if (kind == StressKind::kExpired) job.deadline = absl::Now() - absl::Milliseconds(1);
  if (kind == StressKind::kShortDeadline) {
    job.deadline = absl::Now() + absl::Microseconds(random() % 3000);
  }
}

// The outcomes a request of `kind` may end with, when a model may also stop serving it
// (UNAVAILABLE: a full queue, a lost replica, an unload).
inline ::testing::Matcher<absl::StatusCode> OutcomesOf(StressKind kind) {
  using C = absl::StatusCode;
  switch (kind) {
    case StressKind::kCancelledBefore:
      return ::testing::AnyOf(C::kCancelled, C::kUnavailable);
    case StressKind::kCancelledAfter:
      return ::testing::AnyOf(C::kOk, C::kCancelled, C::kUnavailable);
    case StressKind::kExpired:
      return ::testing::AnyOf(C::kDeadlineExceeded, C::kUnavailable);
    case StressKind::kShortDeadline:
      return ::testing::AnyOf(C::kOk, C::kDeadlineExceeded, C::kUnavailable);
    case StressKind::kPlain:
      break;
  }
  return ::testing::AnyOf(C::kOk, C::kUnavailable);
}

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_CORE_SERVING_INFER_TEST_JOB_H_
