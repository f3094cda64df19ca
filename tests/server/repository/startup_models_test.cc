#include "server/repository/startup_models.h"

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/log_capture.h"
#include "tests/support/temp_dir.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

std::vector<std::string> Names(const std::vector<LoadSpec>& specs) {
  std::vector<std::string> names;
  for (const LoadSpec& spec : specs) names.push_back(spec.identity.name);
  return names;
}

// The specs come from the repository's files as they are: no runtime loads anything here.
class RepositoryLoadSpecsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("good/model.neff", "good bytes");
    dir_.Write("good/config.pbtxt", "version: \"3\"\n");
    dir_.Write("bad-config/model.neff", "bytes");
    dir_.Write("bad-config/config.pbtxt", "this is { not a config");
    dir_.Write("no-neff/README", "nothing to load");
    absl::StatusOr<ModelRepository> repository = ModelRepository::Open(dir_.path());
    ASSERT_TRUE(repository.ok()) << repository.status();
    repository_.emplace(*std::move(repository));
  }

  testing::TempDir dir_;
  std::optional<ModelRepository> repository_;
};

TEST_F(RepositoryLoadSpecsTest, NamedModelsLoadInOrderAndEachFailureIsReportedByName) {
  std::vector<StartupFailure> failures;
  std::vector<LoadSpec> specs =
      RepositoryLoadSpecs(*repository_, "missing,good,,bad-config", &failures);
  ASSERT_THAT(specs, SizeIs(1));
  EXPECT_EQ(specs[0].identity.name, "good");
  EXPECT_EQ(specs[0].identity.version, "3");
  EXPECT_EQ(specs[0].identity.source, ModelSource::kRepository);
  EXPECT_FALSE(specs[0].persist);
  ASSERT_NE(specs[0].neff, nullptr);
  EXPECT_EQ(*specs[0].neff, "good bytes");

  ASSERT_THAT(failures, SizeIs(2));
  EXPECT_EQ(failures[0].identity.name, "missing");
  EXPECT_EQ(failures[0].identity.version, "");
  EXPECT_EQ(failures[0].identity.source, ModelSource::kRepository);
  EXPECT_EQ(failures[0].error.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(failures[0].error.message(),
            "repository path 'missing' does not exist in the model repository");
  EXPECT_EQ(failures[1].identity.name, "bad-config");
  EXPECT_EQ(failures[1].error.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(failures[1].error.message()),
            "'bad-config/config.pbtxt' is neither a neuronserve.v1.ModelConfig (1:6: Message type "
            "\"neuronserve.v1.ModelConfig\" has no field named \"this\".) nor a Triton "
            "inference.ModelConfig (1:6: Message type \"inference.ModelConfig\" has no field "
            "named \"this\".) in protobuf text format");
}

TEST_F(RepositoryLoadSpecsTest, AllIsEveryModelFolderByName) {
  std::vector<StartupFailure> failures;
  std::vector<LoadSpec> specs = RepositoryLoadSpecs(*repository_, "all", &failures);
  EXPECT_EQ(Names(specs), std::vector<std::string>{"good"});
  ASSERT_THAT(failures, SizeIs(2));
  EXPECT_EQ(failures[0].identity.name, "bad-config");
  EXPECT_EQ(failures[1].identity.name, "no-neff");
  EXPECT_EQ(failures[1].error.code(), absl::StatusCode::kNotFound);
  // A folder without its NEFF: the NEFF's path is what is missing.
  EXPECT_EQ(failures[1].error.message(),
            "repository path 'no-neff/model.neff' does not exist in the model repository");
}

TEST_F(RepositoryLoadSpecsTest, AnUnlistableRepositoryIsLoggedAndLoadsNothing) {
  std::filesystem::remove_all(dir_.path());
  std::vector<StartupFailure> failures;
  testing::LogCapture log;
  EXPECT_THAT(RepositoryLoadSpecs(*repository_, "all", &failures), IsEmpty());
  EXPECT_THAT(failures, IsEmpty());
  EXPECT_THAT(log.text(),
              HasSubstr("error cannot list the model repository '" + repository_->root() + "': "));
}

TEST(StateDirectoryLoadSpecsTest, StoredModelsLoadAndAnUnreadableConfigIsLoggedAndSkipped) {
  testing::TempDir dir;
  absl::StatusOr<std::unique_ptr<ModelStore>> store = ModelStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  const std::string neff = "stored bytes";
  const absl::Span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(neff.data()), neff.size());
  ASSERT_TRUE((*store)->Save("kept", "2", bytes, "name: \"kept\"\nversion: \"2\"\n").ok());
  ASSERT_TRUE((*store)->Save("garbled", "", bytes, "this is { not a config").ok());

  testing::LogCapture log;
  std::vector<LoadSpec> specs = StateDirectoryLoadSpecs(**store);
  ASSERT_THAT(specs, SizeIs(1));
  EXPECT_EQ(specs[0].identity.name, "kept");
  EXPECT_EQ(specs[0].identity.version, "2");
  EXPECT_EQ(specs[0].identity.source, ModelSource::kState);
  EXPECT_FALSE(specs[0].persist);
  EXPECT_EQ(*specs[0].neff, neff);
  EXPECT_THAT(log.text(),
              HasSubstr("error model 'garbled' in the state directory has an unreadable config; "
                        "skipped\n"));
}

TEST(StateDirectoryLoadSpecsTest, AnEmptyStateDirectoryLoadsNothing) {
  testing::TempDir dir;
  absl::StatusOr<std::unique_ptr<ModelStore>> store = ModelStore::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_THAT(StateDirectoryLoadSpecs(**store), IsEmpty());
}

}  // namespace
}  // namespace neuronserve
