#include "server/admission/stream_flow.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "base/mutex.h"

namespace neuronserve {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

struct Response {
  int id = 0;
};
using Flow = StreamFlow<Response>;
using Actions = Flow::Actions;

// Nothing to do at all.
void ExpectIdle(const Actions& actions) {
  EXPECT_FALSE(actions.read);
  EXPECT_EQ(actions.write, nullptr);
  EXPECT_THAT(actions.drop, IsEmpty());
  EXPECT_FALSE(actions.finish);
  EXPECT_FALSE(actions.drained);
  EXPECT_FALSE(actions.discard_read);
}

TEST(StreamFlowTest, StartAsksToRead) {
  Flow flow(4);
  const Actions actions = flow.Start();
  EXPECT_TRUE(actions.read);
  EXPECT_EQ(actions.write, nullptr);
  EXPECT_THAT(actions.drop, IsEmpty());
  EXPECT_FALSE(actions.finish);
  EXPECT_EQ(flow.in_flight(), 0u);
}

TEST(StreamFlowTest, ReadsUpToMaxInFlightThenWaitsForARespondToFreeASlot) {
  Flow flow(3);
  ASSERT_TRUE(flow.Start().read);
  Actions a = flow.ReadDone(true);
  EXPECT_TRUE(a.read);
  EXPECT_FALSE(a.discard_read);
  EXPECT_EQ(flow.in_flight(), 1u);
  EXPECT_TRUE(flow.ReadDone(true).read);
  EXPECT_EQ(flow.in_flight(), 2u);
  a = flow.ReadDone(true);  // the third: the limit
  EXPECT_FALSE(a.read);
  EXPECT_FALSE(a.finish);
  EXPECT_EQ(flow.in_flight(), 3u);

  Response r1{1}, r2{2};
  a = flow.Respond(&r1);
  EXPECT_EQ(a.write, &r1);
  EXPECT_TRUE(a.read) << "a slot was freed: reading resumes";
  EXPECT_EQ(flow.in_flight(), 2u);
  // The read is outstanding: another answer asks for no second read.
  a = flow.Respond(&r2);
  EXPECT_FALSE(a.read);
  EXPECT_EQ(a.write, nullptr);  // queued behind r1
  EXPECT_EQ(flow.in_flight(), 1u);
}

TEST(StreamFlowTest, MaxInFlightZeroMeansOne) {
  Flow flow(0);
  ASSERT_TRUE(flow.Start().read);
  const Actions a = flow.ReadDone(true);
  EXPECT_FALSE(a.read);
  EXPECT_EQ(flow.in_flight(), 1u);
  Response r{1};
  EXPECT_TRUE(flow.Respond(&r).read);
}

TEST(StreamFlowTest, WritesOneAtATimeInCompletionOrder) {
  Flow flow(8);
  flow.Start();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(flow.ReadDone(true).read);
  Response r0{0}, r1{1}, r2{2};
  EXPECT_EQ(flow.Respond(&r2).write, &r2);  // completes first, written first
  EXPECT_EQ(flow.Respond(&r0).write, nullptr);
  EXPECT_EQ(flow.Respond(&r1).write, nullptr);
  EXPECT_EQ(flow.in_flight(), 0u);
  Actions a = flow.WriteDone(true);
  EXPECT_EQ(a.write, &r0);
  EXPECT_FALSE(a.finish);
  a = flow.WriteDone(true);
  EXPECT_EQ(a.write, &r1);
  EXPECT_FALSE(a.finish);
  a = flow.WriteDone(true);
  EXPECT_EQ(a.write, nullptr);
  // The client has not half-closed and a read is outstanding: the stream stays open.
  EXPECT_FALSE(a.finish);
  EXPECT_FALSE(a.read);
}

TEST(StreamFlowTest, HalfCloseWithNothingInFlightFinishesAtOnce) {
  Flow flow(4);
  flow.Start();
  const Actions a = flow.ReadDone(false);
  EXPECT_TRUE(a.finish);
  EXPECT_FALSE(a.drained);
  EXPECT_FALSE(a.read);
}

TEST(StreamFlowTest, HalfCloseFinishesOnlyAfterEveryRequestIsAnsweredAndWritten) {
  Flow flow(4);
  flow.Start();
  flow.ReadDone(true);
  flow.ReadDone(true);
  Actions a = flow.ReadDone(false);
  EXPECT_FALSE(a.finish);
  EXPECT_FALSE(a.read);
  Response r0{0}, r1{1};
  a = flow.Respond(&r0);
  EXPECT_EQ(a.write, &r0);
  EXPECT_FALSE(a.read) << "the client half-closed: no more reads";
  EXPECT_FALSE(a.finish);
  a = flow.Respond(&r1);
  EXPECT_FALSE(a.finish) << "r0 is still being written and r1 waits";
  a = flow.WriteDone(true);
  EXPECT_EQ(a.write, &r1);
  EXPECT_FALSE(a.finish);
  a = flow.WriteDone(true);
  EXPECT_TRUE(a.finish);
  EXPECT_FALSE(a.drained);
  EXPECT_EQ(a.write, nullptr);
}

TEST(StreamFlowTest, WriteFailureDropsPendingAndFinishesWhenInFlightReachesZero) {
  Flow flow(8);
  flow.Start();
  for (int i = 0; i < 4; ++i) flow.ReadDone(true);  // four in flight, a read outstanding
  Response r0{0}, r1{1}, r2{2}, r3{3};
  EXPECT_EQ(flow.Respond(&r0).write, &r0);
  EXPECT_EQ(flow.Respond(&r1).write, nullptr);
  EXPECT_EQ(flow.Respond(&r2).write, nullptr);
  Actions a = flow.WriteDone(false);
  EXPECT_THAT(a.drop, ElementsAre(&r1, &r2));
  EXPECT_EQ(a.write, nullptr);
  EXPECT_FALSE(a.read);
  EXPECT_FALSE(a.finish) << "r3 is still in flight";
  // The client is gone: gRPC fails the outstanding read too.
  a = flow.ReadDone(false);
  EXPECT_FALSE(a.finish) << "r3 is still in flight";
  EXPECT_FALSE(a.read);
  a = flow.Respond(&r3);
  EXPECT_THAT(a.drop, ElementsAre(&r3));
  EXPECT_EQ(a.write, nullptr);
  EXPECT_FALSE(a.read) << "no reading on a broken stream";
  EXPECT_TRUE(a.finish);
  EXPECT_FALSE(a.drained);
  EXPECT_EQ(flow.in_flight(), 0u);
}

// What the code does: on a broken stream with a read outstanding, the finish waits for that
// read to complete (gRPC completes it, not ok).
TEST(StreamFlowTest, WriteFailureWithAReadOutstandingFinishesWhenTheReadCompletes) {
  Flow flow(8);
  flow.Start();
  flow.ReadDone(true);  // a read is outstanding again
  Response r0{0};
  EXPECT_EQ(flow.Respond(&r0).write, &r0);
  Actions a = flow.WriteDone(false);
  EXPECT_THAT(a.drop, IsEmpty());
  EXPECT_FALSE(a.finish);
  a = flow.ReadDone(false);
  EXPECT_TRUE(a.finish);
  EXPECT_FALSE(a.drained);
}

TEST(StreamFlowTest, DrainWhenIdleWithAReadOutstandingFinishesAtOnce) {
  Flow flow(4);
  ASSERT_TRUE(flow.Start().read);
  Actions a = flow.Drain();
  EXPECT_TRUE(a.finish);
  EXPECT_TRUE(a.drained);
  EXPECT_FALSE(a.read);
  // gRPC then completes the outstanding read, not ok: nothing more to do.
  ExpectIdle(flow.ReadDone(false));
}

TEST(StreamFlowTest, DrainWithRequestsInFlightFinishesAfterAllAreAnsweredAndWritten) {
  Flow flow(8);
  flow.Start();
  flow.ReadDone(true);
  flow.ReadDone(true);  // two in flight, a read outstanding
  Actions a = flow.Drain();
  EXPECT_FALSE(a.finish);
  EXPECT_FALSE(a.read);

  Response r0{0}, r1{1}, r2{2};
  a = flow.Respond(&r0);
  EXPECT_EQ(a.write, &r0);
  EXPECT_FALSE(a.read) << "read again while draining";
  EXPECT_FALSE(a.finish);
  // The outstanding read still delivers a request: it is in flight like any other.
  a = flow.ReadDone(true);
  EXPECT_FALSE(a.discard_read);
  EXPECT_FALSE(a.read) << "read again while draining";
  EXPECT_EQ(flow.in_flight(), 2u);
  a = flow.Respond(&r1);
  EXPECT_FALSE(a.read);
  EXPECT_FALSE(a.finish);
  a = flow.WriteDone(true);
  EXPECT_EQ(a.write, &r1);
  EXPECT_FALSE(a.finish);
  a = flow.Respond(&r2);
  EXPECT_FALSE(a.read);
  EXPECT_FALSE(a.finish) << "r1 is still being written";
  a = flow.WriteDone(true);
  EXPECT_EQ(a.write, &r2);
  EXPECT_FALSE(a.finish);
  a = flow.WriteDone(true);
  EXPECT_FALSE(a.read);
  EXPECT_TRUE(a.finish);
  EXPECT_TRUE(a.drained);
  EXPECT_EQ(flow.in_flight(), 0u);
}

TEST(StreamFlowTest, DrainWhilePausedAtTheLimitNeverResumesReading) {
  Flow flow(2);
  flow.Start();
  flow.ReadDone(true);
  EXPECT_FALSE(flow.ReadDone(true).read);  // paused at the limit
  EXPECT_FALSE(flow.Drain().finish);
  Response r0{0}, r1{1};
  Actions a = flow.Respond(&r0);
  EXPECT_FALSE(a.read);
  a = flow.Respond(&r1);
  EXPECT_FALSE(a.read);
  EXPECT_EQ(flow.WriteDone(true).write, &r1);
  a = flow.WriteDone(true);
  EXPECT_TRUE(a.finish);
  EXPECT_TRUE(a.drained);
  EXPECT_FALSE(a.read);
}

TEST(StreamFlowTest, ReadAfterDrainedFinishIsDiscardedAndNotCounted) {
  Flow flow(4);
  flow.Start();
  ASSERT_TRUE(flow.Drain().finish);
  const Actions a = flow.ReadDone(true);
  EXPECT_TRUE(a.discard_read);
  EXPECT_FALSE(a.read);
  EXPECT_FALSE(a.finish);
  EXPECT_EQ(a.write, nullptr);
  EXPECT_EQ(flow.in_flight(), 0u);
}

TEST(StreamFlowTest, DrainAfterHalfCloseWithRequestsInFlightFinishesNormally) {
  Flow flow(4);
  flow.Start();
  flow.ReadDone(true);
  EXPECT_FALSE(flow.ReadDone(false).finish);
  EXPECT_FALSE(flow.Drain().finish);
  Response r0{0};
  Actions a = flow.Respond(&r0);
  EXPECT_EQ(a.write, &r0);
  EXPECT_FALSE(a.finish);
  a = flow.WriteDone(true);
  EXPECT_TRUE(a.finish);
  EXPECT_FALSE(a.drained) << "the client had finished sending: this is a normal finish";
}

TEST(StreamFlowTest, DrainAfterHalfCloseAndEverythingAnsweredDoesNothing) {
  Flow flow(4);
  flow.Start();
  flow.ReadDone(true);
  flow.ReadDone(false);
  Response r0{0};
  flow.Respond(&r0);
  Actions a = flow.WriteDone(true);
  ASSERT_TRUE(a.finish);
  EXPECT_FALSE(a.drained);
  // The stream already finished normally: the drain neither finishes it again nor turns it
  // into a drained finish.
  ExpectIdle(flow.Drain());
}

TEST(StreamFlowTest, FinishHappensExactlyOnce) {
  Flow flow(4);
  int finishes = 0;
  auto count = [&finishes](const Actions& a) {
    if (a.finish) ++finishes;
    return a;
  };
  count(flow.Start());
  count(flow.ReadDone(true));
  Response r0{0};
  const Actions written = count(flow.Respond(&r0));
  EXPECT_EQ(written.write, &r0);
  count(flow.Drain());
  EXPECT_EQ(finishes, 0);
  count(flow.WriteDone(true));
  EXPECT_EQ(finishes, 1);
  // Everything that can still arrive afterwards.
  count(flow.Drain());
  count(flow.ReadDone(true));
  count(flow.ReadDone(false));
  count(flow.Drain());
  EXPECT_EQ(finishes, 1);
}

// Several threads answer at once; another thread completes the writes, as gRPC would.
TEST(StreamFlowTest, ConcurrentRespondsAreEachWrittenOnceAndTheStreamFinishesOnce) {
  constexpr int kResponders = 4;
  constexpr int kPerResponder = 250;
  constexpr int kRequests = kResponders * kPerResponder;
  Flow flow(kRequests + 1);  // never paused: every request is read first

  flow.Start();
  for (int i = 0; i < kRequests; ++i) ASSERT_TRUE(flow.ReadDone(true).read);
  ASSERT_FALSE(flow.ReadDone(false).finish);  // the client half-closes
  ASSERT_EQ(flow.in_flight(), static_cast<size_t>(kRequests));

  std::vector<Response> responses(kRequests);
  for (int i = 0; i < kRequests; ++i) responses[i].id = i;

  Mutex mutex;
  CondVar changed;
  std::deque<Response*> to_write;  // at most one, if the flow is right
  int finishes = 0;
  int outstanding_writes = 0;
  int max_outstanding_writes = 0;
  std::vector<Response*> dropped;
  auto handle = [&](Actions a) {
    MutexLock lock(&mutex);
    if (a.write != nullptr) {
      to_write.push_back(a.write);
      max_outstanding_writes = std::max(max_outstanding_writes, ++outstanding_writes);
    }
    if (a.finish) ++finishes;
    if (a.read) ADD_FAILURE() << "read after the half-close";
    dropped.insert(dropped.end(), a.drop.begin(), a.drop.end());
    changed.NotifyAll();
  };

  std::vector<int> written(kRequests, 0);
  std::thread writer([&] {
    const absl::Time give_up = absl::Now() + absl::Seconds(10);
    for (;;) {
      Response* response;
      {
        MutexLock lock(&mutex);
        changed.WaitWithTimeout(&mutex, give_up - absl::Now(),
                                [&] { return !to_write.empty() || finishes > 0; });
        if (to_write.empty()) return;  // finished (or stuck: the checks below fail)
        response = to_write.front();
        to_write.pop_front();
        --outstanding_writes;
      }
      ++written[response->id];
      handle(flow.WriteDone(true));
    }
  });
  std::vector<std::thread> responders;
  for (int t = 0; t < kResponders; ++t) {
    responders.emplace_back([&, t] {
      for (int i = 0; i < kPerResponder; ++i) {
        handle(flow.Respond(&responses[t + i * kResponders]));
      }
    });
  }
  for (std::thread& thread : responders) thread.join();
  writer.join();

  MutexLock lock(&mutex);
  EXPECT_EQ(finishes, 1);
  EXPECT_EQ(max_outstanding_writes, 1) << "two writes outstanding at once";
  EXPECT_THAT(dropped, IsEmpty());
  EXPECT_TRUE(to_write.empty());
  for (int i = 0; i < kRequests; ++i) EXPECT_EQ(written[i], 1) << "response " << i;
  EXPECT_EQ(flow.in_flight(), 0u);
}

// A whole stream under concurrency: a reader completing reads (as gRPC does), workers
// answering, a writer completing writes, and a drain from the test thread in the middle.
TEST(StreamFlowTest, ConcurrentDrainAnswersEveryRequestReadAndFinishesOnceDrained) {
  constexpr int kWorkers = 3;
  Flow flow(4);

  Mutex mutex;
  CondVar changed;
  int reads_outstanding = 0;
  int max_reads_outstanding = 0;
  std::deque<int> work;  // requests read, not yet answered
  std::deque<Response*> to_write;
  int finishes = 0;
  bool drained = false;
  int reads_after_drain = 0;  // reads asked for by calls made after Drain() returned
  int writes_after_finish = 0;
  int dropped = 0;
  std::atomic<bool> drain_returned{false};
  auto finished = [&] { return finishes > 0; };  // called with `mutex` held
  // `after_drain`: the call that returned `a` started after Drain() had returned.
  auto handle = [&](Actions a, bool after_drain) {
    MutexLock lock(&mutex);
    if (a.read) {
      max_reads_outstanding = std::max(max_reads_outstanding, ++reads_outstanding);
      if (after_drain) ++reads_after_drain;
    }
    if (a.write != nullptr) {
      if (finishes > 0) ++writes_after_finish;
      to_write.push_back(a.write);
    }
    dropped += static_cast<int>(a.drop.size());
    for (Response* r : a.drop) delete r;
    if (a.finish) {
      ++finishes;
      drained = a.drained;
    }
    changed.NotifyAll();
  };
  const absl::Time give_up = absl::Now() + absl::Seconds(10);

  std::atomic<int> requests_read{0};
  std::vector<int> read_ids;       // counted in flight (reader thread only)
  std::vector<int> discarded_ids;  // came after the finish (reader thread only)
  std::thread reader([&] {
    for (int next_id = 0;; ++next_id) {
      {
        MutexLock lock(&mutex);
        changed.WaitWithTimeout(&mutex, give_up - absl::Now(),
                                [&] { return reads_outstanding > 0 || finished(); });
        if (reads_outstanding == 0) return;
        --reads_outstanding;
      }
      // The client never half-closes: every read delivers a request.
      const bool after_drain = drain_returned.load();
      Actions a = flow.ReadDone(true);
      if (a.discard_read) {
        discarded_ids.push_back(next_id);
      } else {
        read_ids.push_back(next_id);
        requests_read.fetch_add(1);
        MutexLock lock(&mutex);
        work.push_back(next_id);
      }
      handle(std::move(a), after_drain);
    }
  });
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      for (;;) {
        int id;
        {
          MutexLock lock(&mutex);
          changed.WaitWithTimeout(&mutex, give_up - absl::Now(),
                                  [&] { return !work.empty() || finished(); });
          if (work.empty()) return;
          id = work.front();
          work.pop_front();
        }
        const bool after_drain = drain_returned.load();
        handle(flow.Respond(new Response{id}), after_drain);
      }
    });
  }
  std::vector<int> written;  // writer thread only
  std::thread writer([&] {
    for (;;) {
      Response* response;
      {
        MutexLock lock(&mutex);
        changed.WaitWithTimeout(&mutex, give_up - absl::Now(),
                                [&] { return !to_write.empty() || finished(); });
        if (to_write.empty()) return;
        response = to_write.front();
        to_write.pop_front();
      }
      written.push_back(response->id);
      delete response;
      const bool after_drain = drain_returned.load();
      handle(flow.WriteDone(true), after_drain);
    }
  });

  handle(flow.Start(), false);
  while (requests_read.load() < 200 && absl::Now() < give_up) std::this_thread::yield();
  Actions drain_actions = flow.Drain();
  drain_returned.store(true);
  EXPECT_FALSE(drain_actions.read);
  handle(std::move(drain_actions), true);
  reader.join();
  for (std::thread& thread : workers) thread.join();
  writer.join();

  MutexLock lock(&mutex);
  EXPECT_EQ(finishes, 1);
  EXPECT_TRUE(drained);
  EXPECT_EQ(reads_after_drain, 0);
  EXPECT_EQ(writes_after_finish, 0);
  EXPECT_LE(max_reads_outstanding, 1) << "two reads outstanding at once";
  EXPECT_EQ(dropped, 0);
  EXPECT_TRUE(work.empty());
  EXPECT_TRUE(to_write.empty());
  EXPECT_GE(read_ids.size(), 200u);
  EXPECT_LE(discarded_ids.size(), 1u);  // only the read outstanding at the finish
  std::sort(written.begin(), written.end());
  EXPECT_EQ(written, read_ids) << "every request counted in flight is written exactly once";
  EXPECT_EQ(flow.in_flight(), 0u);
}

}  // namespace
}  // namespace neuronserve
