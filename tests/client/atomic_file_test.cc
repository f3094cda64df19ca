#include "client/common/atomic_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("atomic_file_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string Read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

TEST_F(AtomicFileTest, WritesAndReplacesLeavingNoTemporaryFiles) {
  const fs::path path = dir_ / "model.neff";
  ASSERT_TRUE(WriteFileAtomically(path.string(), "first").ok());
  EXPECT_EQ(Read(path), "first");
  ASSERT_TRUE(WriteFileAtomically(path.string(), std::string("se\0cond", 7)).ok());
  EXPECT_EQ(Read(path), std::string("se\0cond", 7));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(AtomicFileTest, MissingDirectoryIsAnErrorNamingThePath) {
  const fs::path path = dir_ / "no-such-dir" / "model.neff";
  absl::Status status = WriteFileAtomically(path.string(), "x");
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr(path.string()));
  EXPECT_THAT(status.message(), HasSubstr("No such file or directory"));
}

TEST_F(AtomicFileTest, DirectoryAsTargetFailsAndLeavesNoTemporaryFile) {
  const fs::path path = dir_ / "sub";
  fs::create_directories(path);
  absl::Status status = WriteFileAtomically(path.string(), "x");
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("rename"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(AtomicFileTest, EmptyPathIsRejected) { EXPECT_FALSE(WriteFileAtomically("", "x").ok()); }

}  // namespace
}  // namespace neuronserve
