// server/security/socket_lock: one holder per socket path, released on destruction.
#include "server/security/socket_lock.h"

#include <sys/stat.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;

TEST(SocketLockTest, ASecondHolderIsRefusedWithTheLockFilesName) {
  testing::TempDir dir;
  const std::string socket = dir.Join("admin.sock");
  absl::StatusOr<std::unique_ptr<SocketLock>> first = SocketLock::Acquire(socket);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ((*first)->lock_path(), socket + ".lock");
  struct stat info;
  ASSERT_EQ(::stat((socket + ".lock").c_str(), &info), 0);

  // flock locks belong to the open file description: a second open in this process conflicts
  // exactly as another process's would.
  absl::StatusOr<std::unique_ptr<SocketLock>> second = SocketLock::Acquire(socket);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), HasSubstr(socket + ".lock"));
  EXPECT_THAT(second.status().message(), HasSubstr("another neuron-serve"));
}

TEST(SocketLockTest, TheLockIsFreeAgainOnceReleasedAndItsFileMayStay) {
  testing::TempDir dir;
  const std::string socket = dir.Join("admin.sock");
  {
    absl::StatusOr<std::unique_ptr<SocketLock>> first = SocketLock::Acquire(socket);
    ASSERT_TRUE(first.ok()) << first.status();
  }
  absl::StatusOr<std::unique_ptr<SocketLock>> again = SocketLock::Acquire(socket);
  EXPECT_TRUE(again.ok()) << again.status();
}

TEST(SocketLockTest, AnUnwritableDirectoryIsAnErrorNamingTheFile) {
  absl::StatusOr<std::unique_ptr<SocketLock>> lock =
      SocketLock::Acquire("/nonexistent-neuron-serve-dir/admin.sock");
  ASSERT_FALSE(lock.ok());
  EXPECT_THAT(lock.status().message(), HasSubstr("/nonexistent-neuron-serve-dir/admin.sock.lock"));
}

}  // namespace
}  // namespace neuronserve
