// Responder: every posted completion runs exactly once, off the posting thread, in order within
// one post; what is pending when it is destroyed still runs; many posters at once (run under
// ThreadSanitizer in CI).
#include "core/serving/execution/responder.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "gtest/gtest.h"
#include "tests/core/serving/infer_test_job.h"

namespace neuronserve {
namespace {

using testing::SchedulerJob;

// Records the order in which jobs completed, and on which threads.
struct CompletionLog {
  Mutex mutex;
  std::vector<int> order ABSL_GUARDED_BY(mutex);
  std::vector<std::thread::id> threads ABSL_GUARDED_BY(mutex);
};

class LoggedJob : public SchedulerJob {
 public:
  LoggedJob(int id, CompletionLog* log) : SchedulerJob(id), log_(log) {}
  void Complete(absl::Status status, const ExecutionTiming& timing) override {
    {
      MutexLock lock(&log_->mutex);
      log_->order.push_back(id);
      log_->threads.push_back(std::this_thread::get_id());
    }
    SchedulerJob::Complete(std::move(status), timing);
  }

 private:
  CompletionLog* const log_;
};

TEST(ResponderTest, APostRunsInOrderOffThePostingThreadAndLeavesTheBatchEmpty) {
  CompletionLog log;
  std::vector<std::unique_ptr<LoggedJob>> jobs;
  std::vector<Completion> batch;
  for (int i = 0; i < 5; ++i) {
    jobs.push_back(std::make_unique<LoggedJob>(i, &log));
    batch.push_back(Completion{jobs.back().get(), absl::InternalError("e"), {}});
  }
  {
    Responder responder(1);
    EXPECT_EQ(responder.threads(), 1u);
    responder.Post(batch);
    EXPECT_TRUE(batch.empty());
  }  // the destructor waits for what was posted
  MutexLock lock(&log.mutex);
  EXPECT_EQ(log.order, (std::vector<int>{0, 1, 2, 3, 4}));
  for (const std::thread::id& thread : log.threads) EXPECT_NE(thread, std::this_thread::get_id());
  for (const auto& job : jobs) {
    EXPECT_EQ(job->completions.load(), 1);
    EXPECT_EQ(job->code.load(), absl::StatusCode::kInternal);
  }
}

TEST(ResponderTest, ManyPostersAtOnceCompleteEveryJobExactlyOnce) {
  constexpr int kPosters = 6;
  constexpr int kPosts = 300;
  constexpr int kPerPost = 3;
  std::vector<std::unique_ptr<SchedulerJob>> jobs;
  for (int i = 0; i < kPosters * kPosts * kPerPost; ++i) {
    jobs.push_back(std::make_unique<SchedulerJob>(i));
  }
  {
    Responder responder(3);
    std::vector<std::thread> posters;
    for (int p = 0; p < kPosters; ++p) {
      posters.emplace_back([&, p] {
        std::vector<Completion> batch;
        for (int post = 0; post < kPosts; ++post) {
          for (int k = 0; k < kPerPost; ++k) {
            SchedulerJob* job = jobs[(p * kPosts + post) * kPerPost + k].get();
            batch.push_back(Completion{job, absl::OkStatus(), {}});
          }
          responder.Post(batch);
          ASSERT_TRUE(batch.empty());
          if (post % 50 == 0) std::this_thread::yield();  // let the responder threads sleep
        }
      });
    }
    for (std::thread& poster : posters) poster.join();
  }  // destroyed at once: whatever is still pending runs before it returns
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i]->completions.load(), 1) << "job " << i;
  }
}

}  // namespace
}  // namespace neuronserve
