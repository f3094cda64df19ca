// util/durable_file: atomic writes (the assertions neuronctl's file helper had when it was its
// own copy in client/common, plus the form the model store uses) and the directory helpers.
#include "util/durable_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class DurableFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("durable_file_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
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

TEST_F(DurableFileTest, WritesAndReplacesLeavingNoTemporaryFiles) {
  const fs::path path = dir_ / "model.neff";
  ASSERT_TRUE(WriteFileAtomically(path.string(), "first").ok());
  EXPECT_EQ(Read(path), "first");
  ASSERT_TRUE(WriteFileAtomically(path.string(), std::string("se\0cond", 7)).ok());
  EXPECT_EQ(Read(path), std::string("se\0cond", 7));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(DurableFileTest, MissingDirectoryIsAnErrorNamingThePath) {
  const fs::path path = dir_ / "no-such-dir" / "model.neff";
  absl::Status status = WriteFileAtomically(path.string(), "x");
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr(path.string()));
  EXPECT_THAT(status.message(), HasSubstr("No such file or directory"));
}

TEST_F(DurableFileTest, DirectoryAsTargetFailsAndLeavesNoTemporaryFile) {
  const fs::path path = dir_ / "sub";
  fs::create_directories(path);
  absl::Status status = WriteFileAtomically(path.string(), "x");
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("rename"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(DurableFileTest, EmptyPathIsRejected) { EXPECT_FALSE(WriteFileAtomically("", "x").ok()); }

TEST_F(DurableFileTest, ExplicitTempFileIsRenamedIntoPlace) {
  const std::string path = (dir_ / "record.json").string();
  const std::string temp = (dir_ / ".record.json.1.tmp").string();
  bool renamed = false;
  ASSERT_TRUE(WriteFileAtomically(path, temp, "{}", 0644, &renamed).ok());
  EXPECT_TRUE(renamed);
  EXPECT_EQ(Read(path), "{}");
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::owner_write, fs::perms::owner_write);
}

TEST_F(DurableFileTest, ExistingTempFileIsAnErrorNamingBothFilesAndLeavesItAlone) {
  const std::string path = (dir_ / "model.neff").string();
  const std::string temp = (dir_ / ".model.neff.1.tmp").string();
  ASSERT_TRUE(WriteFileAtomically(temp, "someone else's").ok());
  bool renamed = true;
  absl::Status status = WriteFileAtomically(path, temp, "x", 0644, &renamed);
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_FALSE(renamed);
  EXPECT_THAT(status.message(), HasSubstr(absl::StrCat("cannot create ", temp, " for ", path)));
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(Read(temp), "someone else's");  // not created by this write, so not removed by it
}

TEST_F(DurableFileTest, MakeDirsCreatesParentsAndNamesAFileInTheWay) {
  const std::string nested = (dir_ / "a" / "b" / "c").string();
  ASSERT_TRUE(MakeDirs(nested).ok());
  EXPECT_TRUE(fs::is_directory(nested));
  EXPECT_TRUE(MakeDirs(nested).ok());  // already there

  ASSERT_TRUE(WriteFileAtomically((dir_ / "file").string(), "x").ok());
  const std::string under_file = (dir_ / "file" / "sub").string();
  absl::Status status = MakeDirs(under_file);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              HasSubstr(absl::StrCat("cannot create directory ", under_file, ": ",
                                     (dir_ / "file").string(), " exists and is not a directory")));
}

TEST_F(DurableFileTest, ListDirIsSortedWithoutDotEntries) {
  for (const char* name : {"b", "a", ".hidden"}) {
    ASSERT_TRUE(WriteFileAtomically((dir_ / name).string(), "x").ok());
  }
  absl::StatusOr<std::vector<std::string>> names = ListDir(dir_.string());
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_EQ(*names, (std::vector<std::string>{".hidden", "a", "b"}));

  absl::StatusOr<std::vector<std::string>> missing = ListDir((dir_ / "none").string());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(),
              HasSubstr(absl::StrCat("cannot list directory ", (dir_ / "none").string(), ": ",
                                     "No such file or directory")));
}

TEST_F(DurableFileTest, GetFileKindDoesNotFollowSymlinks) {
  ASSERT_TRUE(WriteFileAtomically((dir_ / "file").string(), "x").ok());
  fs::create_symlink(dir_ / "file", dir_ / "link");
  EXPECT_EQ(GetFileKind((dir_ / "file").string()).value(), FileKind::kRegular);
  EXPECT_EQ(GetFileKind(dir_.string()).value(), FileKind::kDirectory);
  EXPECT_EQ(GetFileKind((dir_ / "link").string()).value(), FileKind::kOther);
  EXPECT_EQ(GetFileKind((dir_ / "none").string()).value(), FileKind::kAbsent);
  EXPECT_TRUE(FsyncDir(dir_.string()).ok());
  EXPECT_EQ(FsyncDir((dir_ / "none").string()).code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace neuronserve
