// HangupWatcher (hangup_watcher.h): the epoll instance, its thread, and the table of watches
// that validates every event it reports.
#include "server/http/hangup_watcher.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/thread_name.h"
#include "util/posix_file.h"

namespace neuronserve {
namespace {

absl::Status WatchError(int error, int fd) {
  return ErrnoError(error, "watch for a hang-up on descriptor", std::to_string(fd));
}

}  // namespace

HangupWatcher::HangupWatcher()
    : epoll_(epoll_create1(EPOLL_CLOEXEC)), wake_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (epoll_.get() < 0 || wake_.get() < 0) {
    epoll_errno_ = errno;
    epoll_.Close();
    return;
  }
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = kWakeId;
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, wake_.get(), &event) != 0) {
    epoll_errno_ = errno;
    epoll_.Close();
  }
}

HangupWatcher::~HangupWatcher() { Stop(); }

absl::StatusOr<HangupWatcher::Id> HangupWatcher::Watch(int fd, std::function<void()> on_gone) {
  if (fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot watch for a hang-up on descriptor ", fd));
  }
  MutexLock lock(&mutex_);
  if (stopping_) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot watch for a hang-up on descriptor ", fd, ": the watcher stopped"));
  }
  if (epoll_.get() < 0) return WatchError(epoll_errno_, fd);
  if (!thread_.joinable()) {
    try {
      thread_ = std::thread([this] { Run(); });
    } catch (const std::system_error& error) {  // out of threads: the next Watch tries again
      return absl::ResourceExhaustedError(
          absl::StrCat("cannot start the hang-up watcher's thread: ", error.what()));
    }
    thread_id_ = thread_.get_id();
  }
  const Id id = next_id_++;
  epoll_event event{};
  // Not EPOLLIN (see the header). One-shot: once reported, the descriptor stays quiet until
  // Unwatch removes it, however long the level holds.
  event.events = EPOLLRDHUP | EPOLLONESHOT;
  event.data.u64 = id;
  // Added under the lock, so an event the thread sees at once waits for the entry below.
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &event) != 0) return WatchError(errno, fd);
  watches_.emplace(id, Entry{fd, std::move(on_gone), false});
  return id;
}

bool HangupWatcher::Unwatch(Id id) {
  if (id == 0) return false;
  std::function<void()> dropped;  // destroyed after the lock is released
  MutexLock lock(&mutex_);
  auto it = watches_.find(id);
  if (it == watches_.end()) return false;
  // The descriptor is still the watched socket (the owner closes it only after this), so the
  // registration removed is this watch's. It may already be gone with a failed epoll instance.
  epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, it->second.fd, nullptr);
  const bool fired = it->second.fired;
  dropped = std::move(it->second.on_gone);
  watches_.erase(it);
  if (running_ == id && std::this_thread::get_id() != thread_id_) {
    callback_done_.Wait(
        &mutex_, [this, id]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return running_ != id; });
  }
  return fired;
}

void HangupWatcher::Stop() {
  std::thread thread;
  {
    MutexLock lock(&mutex_);
    stopping_ = true;
    if (!thread_.joinable()) return;
    thread = std::move(thread_);
    // The eventfd stays readable from now on: the thread wakes and sees stopping_.
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t written = write(wake_.get(), &one, sizeof(one));
  }
  thread.join();
}

void HangupWatcher::Run() {
  NameThisThread("http-hangups");
  constexpr int kBatch = 32;
  epoll_event events[kBatch];
  while (true) {
    const int count = epoll_wait(epoll_.get(), events, kBatch, -1);
    if (count < 0 && errno != EINTR) return;  // cannot happen with a valid epoll descriptor
    for (int i = 0; i < count; ++i) {
      if (events[i].data.u64 != kWakeId) Fire(events[i].data.u64);
    }
    MutexLock lock(&mutex_);
    if (stopping_) return;
  }
}

void HangupWatcher::Fire(Id id) {
  std::function<void()> on_gone;
  {
    MutexLock lock(&mutex_);
    if (stopping_) return;
    // An event of a watch Unwatched since epoll_wait returned is stale: the id says so, never a
    // pointer.
    auto it = watches_.find(id);
    if (it == watches_.end() || it->second.fired) return;
    on_gone = std::move(it->second.on_gone);
    it->second.on_gone = nullptr;
    it->second.fired = true;
    running_ = id;
  }
  if (on_gone) on_gone();
  on_gone = nullptr;  // what it holds goes before Unwatch may return
  MutexLock lock(&mutex_);
  running_ = 0;
  callback_done_.NotifyAll();
}

}  // namespace neuronserve
