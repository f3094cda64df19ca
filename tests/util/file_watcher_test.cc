// util/file_watcher: changes are seen (a rewrite, a replacement by rename, a symlink swap, a
// file that disappears), unchanged files are not reported, and ReloadAll runs every callback
// before it returns. Runs under ThreadSanitizer (the callbacks run on the watcher's thread).
#include "util/file_watcher.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace neuronserve {
namespace {

namespace fs = std::filesystem;
using neuronserve::testing::TempDir;

// Polls `done` until it is true or `timeout` passes; returns done().
template <typename Predicate>
bool WaitFor(Predicate done, absl::Duration timeout = absl::Seconds(10)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!done()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return true;
}

constexpr absl::Duration kFastPoll = absl::Milliseconds(10);

TEST(FileWatcherTest, ARewrittenFileRunsTheCallbackAndAnUnchangedOneDoesNot) {
  TempDir dir;
  const std::string watched = dir.Write("tokens", "a\n");
  const std::string other = dir.Write("other", "x\n");
  FileWatcher watcher(kFastPoll);
  std::atomic<int> watched_changes{0};
  std::atomic<int> other_changes{0};
  watcher.Watch({watched}, [&] { ++watched_changes; });
  watcher.Watch({other}, [&] { ++other_changes; });
  dir.Write("tokens", "a much longer content\n");
  ASSERT_TRUE(WaitFor([&] { return watched_changes.load() == 1; }));
  // Several more polls pass with nothing changed: no further callback, none for the other file.
  absl::Time until = absl::Now() + 20 * kFastPoll;
  while (absl::Now() < until) absl::SleepFor(kFastPoll);
  EXPECT_EQ(watched_changes.load(), 1);
  EXPECT_EQ(other_changes.load(), 0);
}

TEST(FileWatcherTest, ASymlinkSwapLikeAKubernetesSecretUpdateIsAChange) {
  // Kubernetes: tls.crt -> ..data/tls.crt, ..data -> ..2026_01_01 (a folder); an update writes
  // a new folder and renames a new ..data link over the old one.
  TempDir dir;
  dir.Write("..v1/tls.crt", "first");
  dir.Write("..v2/tls.crt", "second!");
  fs::create_directory_symlink("..v1", dir.Join("..data"));
  fs::create_symlink("..data/tls.crt", dir.Join("tls.crt"));
  FileWatcher watcher(kFastPoll);
  std::atomic<int> changes{0};
  watcher.Watch({dir.Join("tls.crt")}, [&] { ++changes; });
  fs::create_directory_symlink("..v2", dir.Join("..data_tmp"));
  fs::rename(dir.Join("..data_tmp"), dir.Join("..data"));
  EXPECT_TRUE(WaitFor([&] { return changes.load() == 1; }));
}

TEST(FileWatcherTest, AFileThatDisappearsAndComesBackIsTwoChanges) {
  TempDir dir;
  const std::string path = dir.Write("key.pem", "k");
  FileWatcher watcher(kFastPoll);
  std::atomic<int> changes{0};
  watcher.Watch({path}, [&] { ++changes; });
  ASSERT_EQ(unlink(path.c_str()), 0);
  ASSERT_TRUE(WaitFor([&] { return changes.load() == 1; }));
  dir.Write("key.pem", "k2");
  EXPECT_TRUE(WaitFor([&] { return changes.load() == 2; }));
}

TEST(FileWatcherTest, ReloadAllRunsEveryCallbackBeforeItReturns) {
  TempDir dir;
  FileWatcher watcher(absl::Hours(1));  // no poll comes in this test's lifetime
  std::atomic<int> first{0};
  std::atomic<int> second{0};
  watcher.Watch({dir.Write("a", "1")}, [&] { ++first; });
  watcher.Watch({dir.Write("b", "1")}, [&] { ++second; });
  watcher.ReloadAll();
  EXPECT_EQ(first.load(), 1);
  EXPECT_EQ(second.load(), 1);
  watcher.ReloadAll();
  EXPECT_EQ(first.load(), 2);
  EXPECT_EQ(second.load(), 2);
}

TEST(FileWatcherTest, ReloadAllWithNothingWatchedReturnsAtOnce) {
  FileWatcher watcher(absl::Hours(1));
  watcher.ReloadAll();  // would hang if it waited for a thread that was never started
  SUCCEED();
}

TEST(FileWatcherTest, ConcurrentReloadsAndChangesAllComplete) {
  TempDir dir;
  const std::string path = dir.Write("f", "0");
  FileWatcher watcher(absl::Milliseconds(1));
  std::atomic<int> calls{0};
  watcher.Watch({path}, [&] { ++calls; });
  std::thread writer([&] {
    for (int i = 0; i < 50; ++i) dir.Write("f", std::string(i + 2, 'x'));
  });
  std::thread reloader([&] {
    for (int i = 0; i < 20; ++i) watcher.ReloadAll();
  });
  writer.join();
  reloader.join();
  EXPECT_GE(calls.load(), 20);
}

}  // namespace
}  // namespace neuronserve
