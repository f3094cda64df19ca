#include "util/file_watcher.h"

#include <sys/stat.h>

#include <utility>

namespace neuronserve {

FileWatcher::FileWatcher(absl::Duration interval) : interval_(interval) {}

FileWatcher::~FileWatcher() {
  std::thread thread;
  {
    MutexLock lock(&mutex_);
    stopping_ = true;
    wake_.NotifyAll();
    thread = std::move(thread_);
  }
  if (thread.joinable()) thread.join();  // not under mutex_: the thread takes it to stop
}

FileWatcher::FileState FileWatcher::StateOf(const std::string& path) {
  struct stat info {};
  FileState state;
  if (stat(path.c_str(), &info) != 0) return state;
  state.exists = true;
  state.device = info.st_dev;
  state.inode = info.st_ino;
  state.size = info.st_size;
  state.modified_ns = int64_t{info.st_mtim.tv_sec} * 1'000'000'000 + info.st_mtim.tv_nsec;
  state.changed_ns = int64_t{info.st_ctim.tv_sec} * 1'000'000'000 + info.st_ctim.tv_nsec;
  return state;
}

void FileWatcher::Watch(std::vector<std::string> paths, std::function<void()> on_change) {
  auto entry = std::make_shared<Entry>();
  for (const std::string& path : paths) entry->states.push_back(StateOf(path));
  entry->paths = std::move(paths);
  entry->on_change = std::move(on_change);
  MutexLock lock(&mutex_);
  entries_.push_back(std::move(entry));
  if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
}

void FileWatcher::ReloadAll() {
  MutexLock lock(&mutex_);
  if (!thread_.joinable()) return;  // nothing watched
  const uint64_t ticket = ++reloads_requested_;
  wake_.NotifyAll();
  wake_.Wait(&mutex_, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return reloads_done_ >= ticket || stopping_;
  });
}

std::vector<std::function<void()>> FileWatcher::CollectChanged(bool force) {
  std::vector<std::shared_ptr<Entry>> entries;
  {
    MutexLock lock(&mutex_);
    entries = entries_;
  }
  // Only this thread reads or writes an entry's states after Watch, so no lock is needed here
  // (and none is held while stat waits on a slow file system).
  std::vector<std::function<void()>> changed;
  for (const std::shared_ptr<Entry>& entry : entries) {
    bool differs = false;
    for (size_t i = 0; i < entry->paths.size(); ++i) {
      FileState now = StateOf(entry->paths[i]);
      if (!(now == entry->states[i])) {
        entry->states[i] = now;
        differs = true;
      }
    }
    if (differs || force) changed.push_back(entry->on_change);
  }
  return changed;
}

void FileWatcher::Run() {
  while (true) {
    uint64_t serving = 0;  // the ReloadAll requests this pass answers
    bool force = false;
    {
      MutexLock lock(&mutex_);
      wake_.WaitWithTimeout(&mutex_, interval_, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
        return stopping_ || reloads_requested_ > reloads_done_;
      });
      if (stopping_) return;
      serving = reloads_requested_;
      force = serving > reloads_done_;
    }
    for (const std::function<void()>& callback : CollectChanged(force)) callback();
    if (force) {
      MutexLock lock(&mutex_);
      reloads_done_ = serving;
      wake_.NotifyAll();
    }
  }
}

}  // namespace neuronserve
