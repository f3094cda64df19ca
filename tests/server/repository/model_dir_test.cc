#include "server/repository/model_dir.h"

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace neuronserve {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ModelDirTest : public ::testing::Test {
 protected:
  std::string Dir() const { return dir_.Join("models"); }
  absl::StatusOr<ModelDirContents> Inspect(const std::string& name = "") const {
    return InspectModelDir(Dir(), name);
  }
  std::string Neff(const std::string& relative) const {
    return fs::canonical(dir_.Join("models/" + relative)).string();
  }

  testing::TempDir dir_;
};

TEST_F(ModelDirTest, OneNeffIsOneModelNamedByTheFlagElseByTheFolder) {
  dir_.Write("models/compiled.neff", "neff");
  absl::StatusOr<ModelDirContents> unnamed = Inspect();
  ASSERT_TRUE(unnamed.ok()) << unnamed.status();
  ASSERT_TRUE(unnamed->model.has_value());
  EXPECT_EQ(unnamed->model->config.name(), "models");
  EXPECT_EQ(unnamed->model->neff_path, Neff("compiled.neff"));
  EXPECT_TRUE(unnamed->model_folders.empty());

  absl::StatusOr<ModelDirContents> named = Inspect("my-isvc");
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->model->config.name(), "my-isvc");
  EXPECT_EQ(named->model->config.version(), "");
}

TEST_F(ModelDirTest, AConfigKeepsItsSettingsAndItsNameLosesToTheFlag) {
  dir_.Write("models/config.pbtxt", "name: \"from-config\"\nversion: \"7\"\nreplicas: 3\n");
  dir_.Write("models/model.neff", "neff");
  dir_.Write("models/other.neff", "an unrelated file the config does not name");
  absl::StatusOr<ModelDirContents> unnamed = Inspect();
  ASSERT_TRUE(unnamed.ok()) << unnamed.status();
  EXPECT_EQ(unnamed->model->config.name(), "from-config");
  EXPECT_EQ(unnamed->model->neff_path, Neff("model.neff"));
  absl::StatusOr<ModelDirContents> named = Inspect("isvc");
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->model->config.name(), "isvc");
  EXPECT_EQ(named->model->config.version(), "7");
  EXPECT_EQ(named->model->config.replicas(), 3u);
}

TEST_F(ModelDirTest, VersionFoldersServeTheNewestUnlessTheConfigSaysOtherwise) {
  dir_.Write("models/2/model.neff", "v2");
  dir_.Write("models/10/model.neff", "v10");
  dir_.Write("models/11/readme.txt", "no NEFF: not a version to serve");
  absl::StatusOr<ModelDirContents> newest = Inspect("isvc");
  ASSERT_TRUE(newest.ok()) << newest.status();
  EXPECT_EQ(newest->model->neff_path, Neff("10/model.neff"));
  EXPECT_EQ(newest->model->config.version(), "10");

  dir_.Write("models/config.pbtxt", "version: \"two\"\nfile: \"2/model.neff\"\n");
  absl::StatusOr<ModelDirContents> configured = Inspect("isvc");
  ASSERT_TRUE(configured.ok()) << configured.status();
  EXPECT_EQ(configured->model->neff_path, Neff("2/model.neff"));
  EXPECT_EQ(configured->model->config.version(), "two");
}

TEST_F(ModelDirTest, ModelFoldersAreARepositoryAndFoldersWithoutAModelAreSkipped) {
  dir_.Write("models/b/model.neff", "b");
  dir_.Write("models/a/config.pbtxt", "file: \"x.neff\"\n");
  dir_.Write("models/lost+found/.keep", "");
  dir_.Write("models/.hidden/model.neff", "hidden");
  dir_.Write("models/README.md", "words");
  absl::StatusOr<ModelDirContents> contents = Inspect("isvc");
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_FALSE(contents->model.has_value());
  EXPECT_THAT(contents->model_folders, ElementsAre("a", "b"));
  EXPECT_EQ(contents->folder.root(), fs::canonical(Dir()).string());
}

TEST_F(ModelDirTest, SeveralNeffsNeedAConfigNamingOne) {
  dir_.Write("models/a.neff", "a");
  dir_.Write("models/b.neff", "b");
  absl::StatusOr<ModelDirContents> ambiguous = Inspect();
  EXPECT_EQ(ambiguous.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(ambiguous.status().message(),
              HasSubstr("--model-dir '" + Dir() + "' holds 2 .neff files (a.neff, b.neff)"));
  dir_.Write("models/config.pbtxt", "file: \"b.neff\"\n");
  absl::StatusOr<ModelDirContents> chosen = Inspect();
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(chosen->model->neff_path, Neff("b.neff"));
}

TEST_F(ModelDirTest, ErrorsNameTheFolderAndWhatWasExpected) {
  absl::StatusOr<ModelDirContents> missing = Inspect();
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("--model-dir '" + Dir() + "' does not exist"));

  dir_.Write("models", "a file");
  absl::StatusOr<ModelDirContents> file = Inspect();
  EXPECT_EQ(file.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(file.status().message(), HasSubstr("is not a directory; expected one model"));
  fs::remove(Dir());

  fs::create_directories(Dir());
  absl::StatusOr<ModelDirContents> empty = Inspect();
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(empty.status().message(), HasSubstr("holds no model (it is empty); expected"));

  dir_.Write("models/config.pbtxt", "file: [");
  absl::StatusOr<ModelDirContents> broken = Inspect();
  EXPECT_EQ(broken.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(broken.status().message(),
              HasSubstr("--model-dir '" + Dir() +
                        "': './config.pbtxt' is neither a neuronserve.v1.ModelConfig"));

  dir_.Write("models/config.pbtxt", "file: \"../escape.neff\"\n");
  dir_.Write("escape.neff", "outside");
  absl::StatusOr<ModelDirContents> escaping = Inspect();
  EXPECT_EQ(escaping.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(escaping.status().message(), HasSubstr("contains '..'"));
}

}  // namespace
}  // namespace neuronserve
