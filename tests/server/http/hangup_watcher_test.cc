// HangupWatcher alone, on connected pairs of sockets (AF_UNIX socketpairs and loopback TCP): a
// peer that closes is reported once, bytes are not a hang-up, Unwatch before the close (or from
// inside the callback) keeps the callback from running, a descriptor number the kernel reuses
// is not reported for the old watch, and watches, unwatches and closes racing from several
// threads keep those promises (this file runs under ThreadSanitizer too).
#include "server/http/hangup_watcher.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/http/polling.h"

namespace neuronserve {
namespace hangup_watcher_test {

using http_polling::PollUntil;
// The absence of a callback is checked over this long.
bool StaysTrueFor(const std::function<bool()>& holds,
                  absl::Duration period = absl::Milliseconds(200)) {
  return http_polling::StaysTrueFor(holds, period);
}

enum class Transport { kUnixSocketpair, kLoopbackTcp };

// Two connected stream sockets: `mine` is watched, `peer` plays the client.
struct SocketPair {
  int mine = -1;
  int peer = -1;
  void CloseMine() {
    if (mine >= 0) close(mine);
    mine = -1;
  }
  void ClosePeer() {
    if (peer >= 0) close(peer);
    peer = -1;
  }
  ~SocketPair() {
    CloseMine();
    ClosePeer();
  }
};

// A loopback listener shared by the TCP pairs of one test.
class Listener {
 public:
  Listener() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 || listen(fd_, 128) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      close(fd_);
      fd_ = -1;
    }
    address_ = address;
  }
  ~Listener() {
    if (fd_ >= 0) close(fd_);
  }
  // Connects a client and accepts it: false when the loopback is not usable. One at a time, so
  // that the accepted socket is this client's.
  bool Connect(SocketPair& pair) {
    MutexLock lock(&mutex_);
    if (fd_ < 0) return false;
    pair.peer = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (connect(pair.peer, reinterpret_cast<const sockaddr*>(&address_), sizeof(address_)) != 0) {
      return false;
    }
    pair.mine = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    return pair.mine >= 0;
  }

 private:
  Mutex mutex_;
  int fd_ = -1;
  sockaddr_in address_{};
};

bool MakePair(Transport transport, Listener& listener, SocketPair& pair) {
  if (transport == Transport::kLoopbackTcp) return listener.Connect(pair);
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return false;
  pair.mine = fds[0];
  pair.peer = fds[1];
  return true;
}

class HangupWatcherTest : public ::testing::TestWithParam<Transport> {
 protected:
  void NewPair(SocketPair& pair) { ASSERT_TRUE(MakePair(GetParam(), listener_, pair)); }

  Listener listener_;
  HangupWatcher watcher_;
};

TEST_P(HangupWatcherTest, APeerThatClosesIsReportedOnce) {
  SocketPair pair;
  NewPair(pair);
  auto calls = std::make_shared<std::atomic<int>>(0);
  absl::StatusOr<HangupWatcher::Id> id = watcher_.Watch(pair.mine, [calls] { ++*calls; });
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_NE(*id, 0u);
  EXPECT_TRUE(StaysTrueFor([&] { return *calls == 0; })) << "reported before the peer left";
  pair.ClosePeer();
  ASSERT_TRUE(PollUntil([&] { return *calls >= 1; }));
  // Level-triggered, yet once: the hang-up stays pending on the socket.
  EXPECT_TRUE(StaysTrueFor([&] { return *calls == 1; }));
  EXPECT_TRUE(watcher_.Unwatch(*id));
  EXPECT_FALSE(watcher_.Unwatch(*id)) << "a second Unwatch is a no-op";
}

TEST_P(HangupWatcherTest, BytesFromThePeerAreNotAHangUp) {
  SocketPair pair;
  NewPair(pair);
  auto calls = std::make_shared<std::atomic<int>>(0);
  absl::StatusOr<HangupWatcher::Id> id = watcher_.Watch(pair.mine, [calls] { ++*calls; });
  ASSERT_TRUE(id.ok()) << id.status();
  const std::string next = "GET /next HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(write(pair.peer, next.data(), next.size()), static_cast<ssize_t>(next.size()));
  EXPECT_TRUE(StaysTrueFor([&] { return *calls == 0; }));
  // The bytes were not read by the watcher.
  char buffer[64];
  EXPECT_EQ(read(pair.mine, buffer, sizeof(buffer)), static_cast<ssize_t>(next.size()));
  pair.ClosePeer();
  EXPECT_TRUE(PollUntil([&] { return *calls == 1; }));
  watcher_.Unwatch(*id);
}

TEST_P(HangupWatcherTest, APeerThatLeftBeforeWatchIsReported) {
  SocketPair pair;
  NewPair(pair);
  pair.ClosePeer();
  auto calls = std::make_shared<std::atomic<int>>(0);
  absl::StatusOr<HangupWatcher::Id> id = watcher_.Watch(pair.mine, [calls] { ++*calls; });
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_TRUE(PollUntil([&] { return *calls == 1; }));
  EXPECT_TRUE(watcher_.Unwatch(*id));
}

TEST_P(HangupWatcherTest, APeerThatShutsDownItsSendingSideCountsAsGone) {
  SocketPair pair;
  NewPair(pair);
  auto calls = std::make_shared<std::atomic<int>>(0);
  absl::StatusOr<HangupWatcher::Id> id = watcher_.Watch(pair.mine, [calls] { ++*calls; });
  ASSERT_TRUE(id.ok()) << id.status();
  ASSERT_EQ(shutdown(pair.peer, SHUT_WR), 0);
  EXPECT_TRUE(PollUntil([&] { return *calls == 1; }));
  watcher_.Unwatch(*id);
}

TEST_P(HangupWatcherTest, UnwatchBeforeTheCloseMeansNoCall) {
  SocketPair pair;
  NewPair(pair);
  auto calls = std::make_shared<std::atomic<int>>(0);
  absl::StatusOr<HangupWatcher::Id> id = watcher_.Watch(pair.mine, [calls] { ++*calls; });
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_FALSE(watcher_.Unwatch(*id));
  pair.ClosePeer();
  // A second watch closed after the first shows the watcher is awake and reporting.
  SocketPair witness;
  NewPair(witness);
  auto witnessed = std::make_shared<std::atomic<int>>(0);
  absl::StatusOr<HangupWatcher::Id> witness_id =
      watcher_.Watch(witness.mine, [witnessed] { ++*witnessed; });
  ASSERT_TRUE(witness_id.ok()) << witness_id.status();
  witness.ClosePeer();
  EXPECT_TRUE(PollUntil([&] { return *witnessed == 1; }));
  EXPECT_TRUE(StaysTrueFor([&] { return *calls == 0; }));
  watcher_.Unwatch(*witness_id);
}

TEST_P(HangupWatcherTest, UnwatchFromInsideTheCallbackReturnsAtOnce) {
  SocketPair pair;
  NewPair(pair);
  auto id = std::make_shared<std::atomic<HangupWatcher::Id>>(0);
  auto inside = std::make_shared<std::atomic<int>>(-1);  // Unwatch's answer inside: 1 true
  // The callback may run as soon as Watch returns: it waits for the id.
  absl::StatusOr<HangupWatcher::Id> watched = watcher_.Watch(pair.mine, [this, id, inside] {
    PollUntil([&] { return id->load() != 0; });
    *inside = watcher_.Unwatch(*id) ? 1 : 0;
  });
  ASSERT_TRUE(watched.ok()) << watched.status();
  *id = *watched;
  pair.ClosePeer();
  ASSERT_TRUE(PollUntil([&] { return *inside != -1; }));
  EXPECT_EQ(*inside, 1);
  EXPECT_FALSE(watcher_.Unwatch(*watched)) << "already unwatched inside";
}

TEST_P(HangupWatcherTest, UnwatchWaitsForTheCallbackRunningOnTheWatchersThread) {
  SocketPair pair;
  NewPair(pair);
  auto started = std::make_shared<std::atomic<bool>>(false);
  auto release = std::make_shared<std::atomic<bool>>(false);
  auto finished = std::make_shared<std::atomic<bool>>(false);
  absl::StatusOr<HangupWatcher::Id> id = watcher_.Watch(pair.mine, [=] {
    *started = true;
    PollUntil([&] { return release->load(); }, absl::Seconds(10));
    *finished = true;
  });
  ASSERT_TRUE(id.ok()) << id.status();
  pair.ClosePeer();
  ASSERT_TRUE(PollUntil([&] { return started->load(); }));
  std::atomic<bool> unwatched{false};
  std::atomic<bool> finished_at_return{false};
  std::thread other([&] {
    EXPECT_TRUE(watcher_.Unwatch(*id));
    finished_at_return = finished->load();
    unwatched = true;
  });
  EXPECT_TRUE(StaysTrueFor([&] { return !unwatched.load(); })) << "Unwatch did not wait";
  *release = true;
  other.join();
  EXPECT_TRUE(finished_at_return.load());
}

// After Unwatch and close, the kernel gives the number to the next socket: its hang-up is not
// the old watch's.
TEST_P(HangupWatcherTest, AReusedDescriptorNumberIsNotReportedForTheOldWatch) {
  SocketPair first;
  NewPair(first);
  auto old_calls = std::make_shared<std::atomic<int>>(0);
  absl::StatusOr<HangupWatcher::Id> old_id =
      watcher_.Watch(first.mine, [old_calls] { ++*old_calls; });
  ASSERT_TRUE(old_id.ok()) << old_id.status();
  const int number = first.mine;
  EXPECT_FALSE(watcher_.Unwatch(*old_id));
  first.CloseMine();
  // The lowest free number comes next; the peer of `first` is still open, so `number` is the
  // only one freed. Either end of the new pair may get it (a TCP client's socket is made
  // before the accepted one): that end is the one watched.
  SocketPair second;
  NewPair(second);
  if (second.peer == number) std::swap(second.mine, second.peer);
  ASSERT_EQ(second.mine, number) << "the kernel did not reuse the number";
  first.ClosePeer();
  second.ClosePeer();  // the new socket's peer leaves: nobody watches it
  // Watched anew, it is reported to the new watch only.
  auto new_calls = std::make_shared<std::atomic<int>>(0);
  absl::StatusOr<HangupWatcher::Id> new_id =
      watcher_.Watch(second.mine, [new_calls] { ++*new_calls; });
  ASSERT_TRUE(new_id.ok()) << new_id.status();
  EXPECT_NE(*new_id, *old_id);
  EXPECT_TRUE(PollUntil([&] { return *new_calls == 1; }));
  EXPECT_TRUE(StaysTrueFor([&] { return *old_calls == 0 && *new_calls == 1; }));
  EXPECT_TRUE(watcher_.Unwatch(*new_id));
}

// Threads watch their own sockets; the peers close from yet other threads at random moments,
// before, during or after Unwatch. A callback never runs after its Unwatch returned, runs at
// most once, and Unwatch says whether it ran.
TEST_P(HangupWatcherTest, WatchesUnwatchesAndClosesRaceFromSeveralThreads) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 150;
  struct Round {
    std::atomic<int> calls{0};
    std::atomic<bool> unwatched{false};
    std::atomic<bool> late{false};
  };
  std::atomic<int> failures{0};
  std::atomic<int> reported{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(1234 + t);
      for (int i = 0; i < kRounds; ++i) {
        SocketPair pair;
        if (!MakePair(GetParam(), listener_, pair)) {
          ++failures;
          return;
        }
        auto round = std::make_shared<Round>();
        // Some callbacks take a while, so that Unwatch finds them running.
        const bool slow = random() % 3 == 0;
        absl::StatusOr<HangupWatcher::Id> id = watcher_.Watch(pair.mine, [round, slow] {
          if (round->unwatched.load()) round->late = true;
          if (slow) absl::SleepFor(absl::Microseconds(200));
          if (round->unwatched.load()) round->late = true;
          ++round->calls;
        });
        if (!id.ok()) {
          ++failures;
          return;
        }
        std::thread closer;
        switch (random() % 4) {
          case 0:  // the peer leaves first, and Unwatch may find the callback running
            pair.ClosePeer();
            break;
          case 1:  // from another thread, racing Unwatch
            closer = std::thread([peer = pair.peer] { close(peer); });
            pair.peer = -1;
            break;
          case 2:  // after Unwatch (below)
            break;
          case 3:  // reported before Unwatch
            pair.ClosePeer();
            PollUntil([&] { return round->calls.load() == 1; });
            break;
        }
        if (random() % 2 == 0) std::this_thread::yield();
        const bool ran = watcher_.Unwatch(*id);
        round->unwatched = true;
        if (closer.joinable()) closer.join();
        pair.ClosePeer();
        if (ran != (round->calls.load() == 1)) ++failures;
        if (ran) ++reported;
        pair.CloseMine();  // the number goes back to the kernel for the next round
        if (round->calls.load() > 1 || round->late.load()) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  // At least the rounds that waited for their report were reported.
  EXPECT_GT(reported.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Sockets, HangupWatcherTest,
                         ::testing::Values(Transport::kUnixSocketpair, Transport::kLoopbackTcp),
                         [](const ::testing::TestParamInfo<Transport>& info) {
                           return info.param == Transport::kUnixSocketpair ? "UnixSocketpair"
                                                                           : "LoopbackTcp";
                         });

TEST(HangupWatcherErrorsTest, WhatCannotBeWatchedIsAnErrorAndNeverCalledBack) {
  HangupWatcher watcher;
  absl::StatusOr<HangupWatcher::Id> negative = watcher.Watch(-1, [] {});
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  // A number that is no descriptor.
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  close(fds[0]);
  absl::StatusOr<HangupWatcher::Id> closed = watcher.Watch(fds[0], [] {});
  EXPECT_FALSE(closed.ok());
  EXPECT_THAT(closed.status().message(), ::testing::HasSubstr(absl::StrCat("descriptor ", fds[0])));
  // The same socket twice.
  absl::StatusOr<HangupWatcher::Id> first = watcher.Watch(fds[1], [] {});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(watcher.Watch(fds[1], [] {}).ok());
  watcher.Unwatch(*first);
  close(fds[1]);
}

TEST(HangupWatcherErrorsTest, AfterStopNothingIsWatchedOrCalled) {
  HangupWatcher watcher;
  SocketPair pair;
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  pair.mine = fds[0];
  pair.peer = fds[1];
  auto calls = std::make_shared<std::atomic<int>>(0);
  absl::StatusOr<HangupWatcher::Id> id = watcher.Watch(pair.mine, [calls] { ++*calls; });
  ASSERT_TRUE(id.ok()) << id.status();
  watcher.Stop();
  watcher.Stop();  // idempotent
  pair.ClosePeer();
  EXPECT_TRUE(StaysTrueFor([&] { return *calls == 0; }));
  EXPECT_EQ(watcher.Watch(pair.mine, [] {}).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(watcher.Unwatch(*id));
}

}  // namespace hangup_watcher_test
}  // namespace neuronserve
