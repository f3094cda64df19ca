#include "server/admission/drain_gate.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "base/mutex.h"

namespace neuronserve {
namespace {

TEST(DrainGateTest, EnterAndLeaveCountOpenCalls) {
  DrainGate gate;
  EXPECT_EQ(gate.open_calls(), 0);
  EXPECT_FALSE(gate.draining());
  ASSERT_TRUE(gate.TryEnter());
  ASSERT_TRUE(gate.TryEnter());
  ASSERT_TRUE(gate.TryEnter());
  EXPECT_EQ(gate.open_calls(), 3);
  gate.Leave();
  EXPECT_EQ(gate.open_calls(), 2);
  gate.Leave();
  gate.Leave();
  EXPECT_EQ(gate.open_calls(), 0);
}

TEST(DrainGateTest, TryEnterFailsAfterBeginDrainAndDoesNotCount) {
  DrainGate gate;
  ASSERT_TRUE(gate.TryEnter());
  gate.BeginDrain();
  EXPECT_TRUE(gate.draining());
  EXPECT_FALSE(gate.TryEnter());
  EXPECT_FALSE(gate.TryEnter());
  EXPECT_EQ(gate.open_calls(), 1);  // the call open before the drain stays open
  gate.Leave();
  EXPECT_EQ(gate.open_calls(), 0);
  EXPECT_FALSE(gate.TryEnter());
}

TEST(DrainGateTest, BeginDrainRunsEachStreamCallbackOnceOnItsThreadAndIsIdempotent) {
  DrainGate gate;
  int calls[3] = {0, 0, 0};
  std::thread::id ran_on[3];
  DrainGate::StreamId ids[3];
  for (int i = 0; i < 3; ++i) {
    ids[i] = gate.RegisterStream([&, i] {
      ++calls[i];
      ran_on[i] = std::this_thread::get_id();
    });
    EXPECT_NE(ids[i], 0u);
  }
  EXPECT_NE(ids[0], ids[1]);
  EXPECT_NE(ids[1], ids[2]);
  EXPECT_NE(ids[0], ids[2]);
  EXPECT_EQ(calls[0] + calls[1] + calls[2], 0);  // nothing runs before the drain

  gate.BeginDrain();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(calls[i], 1) << "stream " << i;
    EXPECT_EQ(ran_on[i], std::this_thread::get_id()) << "stream " << i;
  }
  gate.BeginDrain();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(calls[i], 1) << "stream " << i << " after a second drain";
  // Unregistering after the drain is harmless.
  for (DrainGate::StreamId id : ids) gate.UnregisterStream(id);
  EXPECT_TRUE(gate.draining());
}

TEST(DrainGateTest, RegisterStreamAfterDrainReturnsZeroAndKeepsNothing) {
  DrainGate gate;
  gate.BeginDrain();
  auto token = std::make_shared<int>(0);
  std::weak_ptr<int> watch = token;
  int calls = 0;
  const DrainGate::StreamId id = gate.RegisterStream([token, &calls] { ++calls; });
  token.reset();
  EXPECT_EQ(id, 0u);
  EXPECT_TRUE(watch.expired()) << "the gate kept the callback of a refused registration";
  gate.BeginDrain();
  EXPECT_EQ(calls, 0);
  gate.UnregisterStream(id);  // 0: ignored
}

TEST(DrainGateTest, UnregisterZeroIsANoOp) {
  DrainGate gate;
  int calls = 0;
  const DrainGate::StreamId id = gate.RegisterStream([&calls] { ++calls; });
  ASSERT_NE(id, 0u);
  gate.UnregisterStream(0);
  gate.BeginDrain();
  EXPECT_EQ(calls, 1) << "UnregisterStream(0) forgot a registered stream";
}

TEST(DrainGateTest, UnregisteredStreamCallbackNeverRuns) {
  DrainGate gate;
  int gone_calls = 0;
  int kept_calls = 0;
  const DrainGate::StreamId gone = gate.RegisterStream([&gone_calls] { ++gone_calls; });
  const DrainGate::StreamId kept = gate.RegisterStream([&kept_calls] { ++kept_calls; });
  ASSERT_NE(gone, 0u);
  ASSERT_NE(kept, 0u);
  gate.UnregisterStream(gone);
  gate.BeginDrain();
  EXPECT_EQ(gone_calls, 0);
  EXPECT_EQ(kept_calls, 1);
}

TEST(DrainGateTest, UnregisterWaitsWhileThatStreamsCallbackRuns) {
  DrainGate gate;
  Notification callback_entered;
  Notification release_callback;
  std::atomic<bool> callback_done{false};
  const DrainGate::StreamId id = gate.RegisterStream([&] {
    callback_entered.Notify();
    release_callback.WaitForNotification();
    callback_done.store(true);
  });
  ASSERT_NE(id, 0u);

  std::thread drainer([&] { gate.BeginDrain(); });
  ASSERT_TRUE(callback_entered.WaitForNotificationWithTimeout(absl::Seconds(5)));

  std::atomic<bool> unregistered{false};
  std::atomic<bool> callback_done_at_unregister{false};
  Notification unregistering;
  std::thread unregisterer([&] {
    unregistering.Notify();
    gate.UnregisterStream(id);
    callback_done_at_unregister.store(callback_done.load());
    unregistered.store(true);
  });
  EXPECT_TRUE(unregistering.WaitForNotificationWithTimeout(absl::Seconds(5)));
  // A negative check, so it needs a window: nothing observable says "blocked inside
  // UnregisterStream". 20 ms from the call on is far longer than a call that does not wait
  // takes to return; callback_done_at_unregister below checks the order however long it is.
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_FALSE(unregistered.load()) << "UnregisterStream returned while the callback ran";

  release_callback.Notify();
  drainer.join();
  unregisterer.join();
  EXPECT_TRUE(unregistered.load());
  EXPECT_TRUE(callback_done_at_unregister.load());
}

TEST(DrainGateTest, WaitUntilEmptyReturnsTrueAtOnceWhenNothingIsOpen) {
  DrainGate gate;
  gate.BeginDrain();
  const absl::Time start = absl::Now();
  EXPECT_TRUE(gate.WaitUntilEmpty(start + absl::Seconds(5), nullptr));
  EXPECT_LT(absl::Now() - start, absl::Milliseconds(500));
}

TEST(DrainGateTest, WaitUntilEmptyReturnsTrueOnceTheLastCallLeaves) {
  DrainGate gate;
  ASSERT_TRUE(gate.TryEnter());
  ASSERT_TRUE(gate.TryEnter());
  gate.BeginDrain();
  std::atomic<bool> left{false};
  std::thread leaver([&] {
    absl::SleepFor(absl::Milliseconds(20));
    gate.Leave();
    absl::SleepFor(absl::Milliseconds(40));
    left.store(true);
    gate.Leave();
  });
  int give_up_calls = 0;
  const absl::Time start = absl::Now();
  // A long poll: the wait must end on the last Leave, not on a poll.
  const bool empty = gate.WaitUntilEmpty(
      start + absl::Seconds(10),
      [&] {
        ++give_up_calls;
        return false;
      },
      absl::Seconds(5));
  const absl::Duration waited = absl::Now() - start;
  leaver.join();
  EXPECT_TRUE(empty);
  EXPECT_TRUE(left.load()) << "returned before the last call left";
  EXPECT_EQ(gate.open_calls(), 0);
  EXPECT_LT(waited, absl::Seconds(2));
  EXPECT_EQ(give_up_calls, 0);
}

TEST(DrainGateTest, WaitUntilEmptyReturnsFalseAtTheDeadlineWithCallsOpen) {
  DrainGate gate;
  ASSERT_TRUE(gate.TryEnter());
  gate.BeginDrain();
  int give_up_calls = 0;
  const absl::Time start = absl::Now();
  const absl::Time deadline = start + absl::Milliseconds(100);
  EXPECT_FALSE(gate.WaitUntilEmpty(
      deadline,
      [&] {
        ++give_up_calls;
        return false;
      },
      absl::Milliseconds(10)));
  const absl::Time end = absl::Now();
  EXPECT_GE(end, deadline);
  EXPECT_LT(end - start, absl::Seconds(1));
  EXPECT_GE(give_up_calls, 2);  // polled along the way
  EXPECT_EQ(gate.open_calls(), 1);
  gate.Leave();
}

TEST(DrainGateTest, WaitUntilEmptyReturnsFalsePromptlyWhenGiveUpSaysSo) {
  DrainGate gate;
  ASSERT_TRUE(gate.TryEnter());
  gate.BeginDrain();
  int give_up_calls = 0;
  const absl::Time start = absl::Now();
  EXPECT_FALSE(gate.WaitUntilEmpty(
      start + absl::Seconds(30),
      [&] { return ++give_up_calls >= 3; },  // a second signal, on the third poll
      absl::Milliseconds(10)));
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  EXPECT_EQ(give_up_calls, 3);
  EXPECT_EQ(gate.open_calls(), 1);
  gate.Leave();
}

// Many threads enter, register, unregister and leave while another drains.
TEST(DrainGateTest, ConcurrentEntriesAndStreamsDuringBeginDrain) {
  struct Stream {
    std::atomic<int> callbacks{0};
    std::atomic<bool> unregistered{false};  // set once UnregisterStream returned
    std::atomic<bool> callback_after_unregister{false};
    DrainGate::StreamId id = 0;
  };
  constexpr int kThreads = 6;

  DrainGate gate;
  std::atomic<bool> drain_returned{false};
  std::atomic<int> entries_after_drain_seen{0};
  std::atomic<int> entries_after_drain_returned{0};
  std::vector<std::vector<std::unique_ptr<Stream>>> streams(kThreads);
  std::atomic<int> started{0};

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      unsigned step = static_cast<unsigned>(t);
      int refusals = 0;
      for (;;) {
        const bool returned_before = drain_returned.load();
        const bool seen_before = gate.draining();
        if (!gate.TryEnter()) {
          if (++refusals >= 50) break;  // refused for good: done
          continue;
        }
        if (seen_before) entries_after_drain_seen.fetch_add(1);
        if (returned_before) entries_after_drain_returned.fetch_add(1);
        auto stream = std::make_unique<Stream>();
        Stream* s = stream.get();
        s->id = gate.RegisterStream([s] {
          if (s->unregistered.load()) s->callback_after_unregister.store(true);
          s->callbacks.fetch_add(1);
        });
        // Most streams end at once (unregister and leave); one in five stays open through the
        // drain.
        if (++step % 5 != 0) {
          gate.UnregisterStream(s->id);
          s->unregistered.store(true);
          gate.Leave();
        }
        streams[t].push_back(std::move(stream));
        if (streams[t].size() == 100) started.fetch_add(1);
      }
    });
  }
  while (started.load() < kThreads) std::this_thread::yield();
  gate.BeginDrain();
  drain_returned.store(true);
  for (std::thread& thread : threads) thread.join();

  int registered = 0, refused = 0, kept_open = 0;
  for (const auto& per_thread : streams) {
    for (const auto& s : per_thread) {
      const int callbacks = s->callbacks.load();
      EXPECT_LE(callbacks, 1) << "stream " << s->id << " told to drain twice";
      EXPECT_FALSE(s->callback_after_unregister.load())
          << "stream " << s->id << " called back after UnregisterStream returned";
      if (!s->unregistered.load()) gate.Leave();  // it stayed open: it ends now
      if (s->id == 0) {
        ++refused;
        EXPECT_EQ(callbacks, 0) << "a refused registration was called back";
        continue;
      }
      ++registered;
      if (!s->unregistered.load()) {
        ++kept_open;
        EXPECT_EQ(callbacks, 1) << "stream " << s->id
                                << " registered through the drain was never told";
      }
    }
  }
  EXPECT_EQ(entries_after_drain_seen.load(), 0) << "entered after draining() was true";
  EXPECT_EQ(entries_after_drain_returned.load(), 0) << "entered after BeginDrain returned";
  EXPECT_EQ(gate.open_calls(), 0);
  EXPECT_GE(registered, 6 * 100);
  EXPECT_GT(kept_open, 0);
  EXPECT_FALSE(gate.TryEnter());
  RecordProperty("registered", registered);
  RecordProperty("refused_registrations", refused);
}

}  // namespace
}  // namespace neuronserve
