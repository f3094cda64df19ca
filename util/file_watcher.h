// FileWatcher: calls back when a watched file changes, and on demand (SIGHUP).
//
// Credentials that live in files (TLS certificates and keys, token files) change under a
// running daemon: Kubernetes updates a mounted Secret by swapping a symlink, an operator
// replaces a file or sends SIGHUP. The watcher polls, because inotify misses a change made by
// swapping a symlink in a parent folder: every `interval` it stats each watched path
// (following symlinks) and compares what identifies a file's content (device, inode, size,
// modification and change time). A change to any path of a watch runs that watch's callback
// once; a path that cannot be stat'ed is a state too, so a file that disappears and comes back
// is a change.
//
// Callbacks run on the watcher's own thread, one at a time, never while a lock of the watcher
// is held (so a callback may call Watch; it must not call ReloadAll, which would wait for
// itself). The thread starts with the first Watch and stops in the destructor.
//
// Thread safety: every method may be called from any thread.
#ifndef NEURON_SERVE_UTIL_FILE_WATCHER_H_
#define NEURON_SERVE_UTIL_FILE_WATCHER_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"
#include "base/mutex.h"

namespace neuronserve {

class FileWatcher {
 public:
  explicit FileWatcher(absl::Duration interval = absl::Seconds(1));
  ~FileWatcher();
  FileWatcher(const FileWatcher&) = delete;
  FileWatcher& operator=(const FileWatcher&) = delete;

  // Watches `paths` (the state they are in now is the baseline: the callback is not called for
  // it) and calls `on_change` after any of them changes.
  void Watch(std::vector<std::string> paths, std::function<void()> on_change);

  // Runs every watch's callback now, whether or not its files changed (and takes their current
  // state as the new baseline); returns when they have run. Must not be called from a callback.
  void ReloadAll();

  // What identifies a file's content for the watcher; exposed for tests.
  struct FileState {
    bool exists = false;
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    int64_t modified_ns = 0;
    int64_t changed_ns = 0;
    bool operator==(const FileState&) const = default;
  };
  static FileState StateOf(const std::string& path);

 private:
  struct Entry {
    std::vector<std::string> paths;
    std::vector<FileState> states;
    std::function<void()> on_change;
  };

  void Run();
  // Re-stats every entry; returns the callbacks of the changed ones (or of all with `force`).
  std::vector<std::function<void()>> CollectChanged(bool force) ABSL_LOCKS_EXCLUDED(mutex_);

  const absl::Duration interval_;
  Mutex mutex_;
  CondVar wake_;
  std::vector<std::shared_ptr<Entry>> entries_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  // ReloadAll requests, and how many the watcher thread has served.
  uint64_t reloads_requested_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t reloads_done_ ABSL_GUARDED_BY(mutex_) = 0;
  std::thread thread_ ABSL_GUARDED_BY(mutex_);  // started by the first Watch
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_UTIL_FILE_WATCHER_H_
