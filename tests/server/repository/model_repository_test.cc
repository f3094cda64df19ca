#include "server/repository/model_repository.h"

#include <filesystem>
#include <string>
#include <tuple>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace neuronserve {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::StartsWith;

// A repository in a temp folder, next to an "outside" folder that no path may reach.
class ModelRepositoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("repo/plain/model.neff", "plain");
    dir_.Write("repo/configured/weights.bin", "configured");
    dir_.Write("repo/configured/config.pbtxt",
               "name: \"renamed\"\nversion: \"4\"\nfile: \"weights.bin\"\n");
    dir_.Write("repo/loose/single.neff", "loose");
    dir_.Write("repo/escaping/config.pbtxt", "file: \"../../outside/secret.neff\"\n");
    dir_.Write("repo/broken/config.pbtxt", "file: [");
    dir_.Write("repo/.hidden/model.neff", "hidden");
    dir_.Write("repo/top-level-file", "not a model folder");
    dir_.Write("outside/secret.neff", "secret");
    fs::create_directories(dir_.Join("repo/neff-is-a-folder/model.neff"));
    fs::create_symlink(dir_.Join("outside"), dir_.Join("repo/link-out"));
    fs::create_symlink(dir_.Join("repo/plain"), dir_.Join("repo/link-in"));
    absl::StatusOr<ModelRepository> repository = ModelRepository::Open(dir_.Join("repo"));
    ASSERT_TRUE(repository.ok()) << repository.status();
    repository_.emplace(*std::move(repository));
  }

  // Resolve(relative) succeeds with this name, NEFF file name, folder and NEFF path (both given
  // relative to the temp folder, compared canonical).
  void ExpectResolves(const std::string& relative, const std::string& name, const std::string& file,
                      const std::string& folder, const std::string& neff_path) {
    absl::StatusOr<RepositoryModel> model = repository_->Resolve(relative);
    ASSERT_TRUE(model.ok()) << relative << ": " << model.status();
    EXPECT_EQ(model->config.name(), name) << relative;
    EXPECT_EQ(model->config.file(), file) << relative;
    EXPECT_EQ(model->folder, Canonical(folder)) << relative;
    EXPECT_EQ(model->neff_path, Canonical(neff_path)) << relative;
  }

  std::string Canonical(const std::string& relative) {
    return fs::canonical(dir_.Join(relative)).string();
  }

  testing::TempDir dir_;
  std::optional<ModelRepository> repository_;
};

TEST_F(ModelRepositoryTest, OpenNeedsAnExistingDirectory) {
  absl::StatusOr<ModelRepository> missing = ModelRepository::Open(dir_.Join("nowhere"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()),
              StartsWith("model repository '" + dir_.Join("nowhere") + "': "));
  absl::StatusOr<ModelRepository> file = ModelRepository::Open(dir_.Join("repo/top-level-file"));
  EXPECT_EQ(file.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(file.status().message(),
            "model repository '" + dir_.Join("repo/top-level-file") + "' is not a directory");
  EXPECT_EQ(repository_->root(), Canonical("repo"));
}

TEST_F(ModelRepositoryTest, AFolderWithoutConfigIsNamedAfterItAndLoadsModelNeff) {
  ExpectResolves("plain", "plain", "model.neff", "repo/plain", "repo/plain/model.neff");
}

TEST_F(ModelRepositoryTest, AConfigNamesTheModelAndItsFile) {
  ExpectResolves("configured", "renamed", "weights.bin", "repo/configured",
                 "repo/configured/weights.bin");
  EXPECT_EQ(repository_->Resolve("configured")->config.version(), "4");
}

TEST_F(ModelRepositoryTest, ANeffFileIsAModelNamedAfterItsStem) {
  ExpectResolves("loose/single.neff", "single", "single.neff", "repo/loose",
                 "repo/loose/single.neff");
}

TEST_F(ModelRepositoryTest, EmptyAbsoluteAndDotDotPathsAreRefused) {
  EXPECT_EQ(repository_->Resolve("").status(),
            absl::InvalidArgumentError("repository path is empty"));
  const std::string absolute = dir_.Join("repo/plain");
  EXPECT_EQ(repository_->Resolve(absolute).status(),
            absl::InvalidArgumentError("repository path '" + absolute +
                                       "' is absolute; name it relative to the repository"));
  EXPECT_EQ(repository_->Resolve("plain/../plain").status(),
            absl::InvalidArgumentError("repository path 'plain/../plain' contains '..'"));
}

TEST_F(ModelRepositoryTest, NothingOutsideTheRepositoryIsReachable) {
  EXPECT_EQ(repository_->Resolve("link-out/secret.neff").status(),
            absl::PermissionDeniedError(
                "repository path 'link-out/secret.neff' resolves outside the model repository"));
  // A config's file is confined too.
  EXPECT_EQ(repository_->Resolve("escaping").status(),
            absl::InvalidArgumentError(
                "repository path 'escaping/../../outside/secret.neff' contains '..'"));
}

TEST_F(ModelRepositoryTest, ASymlinkThatStaysInsideIsFollowed) {
  // Named after the folder it points to.
  ExpectResolves("link-in", "plain", "model.neff", "repo/plain", "repo/plain/model.neff");
}

TEST_F(ModelRepositoryTest, MissingBrokenAndNonFileModelsSayWhich) {
  EXPECT_EQ(repository_->Resolve("absent").status(),
            absl::NotFoundError("repository path 'absent' does not exist in the model repository"));
  EXPECT_EQ(repository_->Resolve("broken").status(),
            absl::InvalidArgumentError(
                "'broken/config.pbtxt' is neither a neuronserve.v1.ModelConfig (1:7: Expected "
                "string, got: [) nor a Triton inference.ModelConfig (1:5: Message type "
                "\"inference.ModelConfig\" has no field named \"file\".) in protobuf text format"));
  EXPECT_EQ(repository_->Resolve("neff-is-a-folder").status(),
            absl::NotFoundError("repository path 'neff-is-a-folder': '" +
                                Canonical("repo/neff-is-a-folder/model.neff") +
                                "' is not a regular file"));
}

TEST_F(ModelRepositoryTest, ModelFoldersAreTheVisibleFoldersByName) {
  absl::StatusOr<std::vector<std::string>> folders = repository_->ModelFolders();
  ASSERT_TRUE(folders.ok()) << folders.status();
  // Symlinks to folders count (is_directory follows them); files and hidden folders do not.
  EXPECT_THAT(*folders, ElementsAre("broken", "configured", "escaping", "link-in", "link-out",
                                    "loose", "neff-is-a-folder", "plain"));
}

TEST_F(ModelRepositoryTest, ABatchedFolderResolvesEachVariantsFileInOrder) {
  dir_.Write("repo/resnet/b1.neff", "one");
  dir_.Write("repo/resnet/sub/b8.neff", "eight");
  dir_.Write("repo/resnet/config.pbtxt",
             "variant { file: \"sub/b8.neff\" batch_size: 8 }\n"
             "variant { file: \"b1.neff\" batch_size: 1 }\n");
  absl::StatusOr<RepositoryModel> model = repository_->Resolve("resnet");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->config.name(), "resnet");
  // No default file for a model whose NEFFs are its variants.
  EXPECT_TRUE(model->config.file().empty());
  EXPECT_TRUE(model->neff_path.empty());
  EXPECT_THAT(model->variant_paths,
              ElementsAre(Canonical("repo/resnet/sub/b8.neff"), Canonical("repo/resnet/b1.neff")));
}

// Triton's `simple` example: a folder in Triton's schema whose NEFF was compiled for 8 rows,
// loaded with the override {"backend": "neuron", "max_batch_size": 16} in Triton's schema.
TEST_F(ModelRepositoryTest, ATritonOverrideKeepsTheFoldersCompiledVariants) {
  dir_.Write("repo/simple/1/model.neff", "eight rows");
  dir_.Write("repo/simple/config.pbtxt", "backend: \"neuron\"\nmax_batch_size: 8\n");
  inference::ModelConfig override_config;
  override_config.set_backend("neuron");
  override_config.set_max_batch_size(16);
  absl::StatusOr<RepositoryModel> model = repository_->ResolveTriton("simple", override_config);
  ASSERT_TRUE(model.ok()) << model.status();
  // The rows one request may carry, split over the one variant the folder holds.
  EXPECT_EQ(model->config.max_batch_size(), 16u);
  ASSERT_EQ(model->config.variant_size(), 1);
  EXPECT_EQ(model->config.variant(0).batch_size(), 8u);
  EXPECT_THAT(model->variant_paths, ElementsAre(Canonical("repo/simple/1/model.neff")));

  // An override that lists its own variants says what was compiled itself.
  dir_.Write("repo/simple/1/b2.neff", "two rows");
  (*override_config.mutable_parameters())["neuron_batch_variants"].set_string_value("2:b2.neff");
  model = repository_->ResolveTriton("simple", override_config);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ(model->config.variant_size(), 1);
  EXPECT_EQ(model->config.variant(0).batch_size(), 2u);
  EXPECT_THAT(model->variant_paths, ElementsAre(Canonical("repo/simple/1/b2.neff")));
}

// A folder without variants (one NEFF, no batch dimension): an override's max_batch_size means
// what it means in a config.pbtxt, the rows the NEFF was compiled for.
TEST_F(ModelRepositoryTest, ATritonOverrideOfAnUnbatchedFolderNamesTheCompiledRows) {
  dir_.Write("repo/flat/1/model.neff", "flat");
  inference::ModelConfig override_config;
  override_config.set_max_batch_size(4);
  absl::StatusOr<RepositoryModel> model = repository_->ResolveTriton("flat", override_config);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ(model->config.variant_size(), 1);
  EXPECT_EQ(model->config.variant(0).batch_size(), 4u);
}

TEST_F(ModelRepositoryTest, EachVariantFileIsConfinedAndMustExist) {
  dir_.Write("repo/resnet/b1.neff", "one");
  dir_.Write("repo/resnet/config.pbtxt",
             "variant { file: \"b1.neff\" batch_size: 1 }\n"
             "variant { file: \"../../outside/secret.neff\" batch_size: 8 }\n");
  EXPECT_EQ(repository_->Resolve("resnet").status(),
            absl::InvalidArgumentError(
                "repository path 'resnet/../../outside/secret.neff' contains '..'"));
  dir_.Write("repo/resnet/config.pbtxt",
             "variant { file: \"b1.neff\" batch_size: 1 }\n"
             "variant { file: \"b8.neff\" batch_size: 8 }\n");
  EXPECT_EQ(repository_->Resolve("resnet").status(),
            absl::NotFoundError(
                "repository path 'resnet/b8.neff' does not exist in the model repository"));
  dir_.Write("repo/resnet/config.pbtxt", "variant { batch_size: 8 }\n");
  EXPECT_EQ(repository_->Resolve("resnet").status(),
            absl::InvalidArgumentError("'resnet/config.pbtxt': the variant of batch 8 names no "
                                       "file (`variant { file: \"...\" batch_size: 8 }`)"));
}

}  // namespace

namespace model_repository_triton_test {

// A folder laid out as Triton's: a Triton config.pbtxt, a config of fields both schemas have, or
// none, over version folders.
TEST(ModelRepositoryTritonTest, VersionFoldersAreReadAsTritonsLayout) {
  testing::TempDir dir;
  dir.Write("repo/triton/config.pbtxt", "backend: \"neuron\"\ninstance_group [{ count: 2 }]\n");
  dir.Write("repo/triton/1/model.neff", "one");
  dir.Write("repo/triton/4/model.neff", "four");
  dir.Write("repo/named/config.pbtxt", "name: \"named\"\n");
  dir.Write("repo/named/2/model.neff", "two");
  dir.Write("repo/bare/7/model.neff", "seven");
  dir.Write("repo/own/config.pbtxt", "version: \"5\"\n");
  dir.Write("repo/own/model.neff", "own");
  dir.Write("repo/own/1/model.neff", "a folder the own config does not use");
  absl::StatusOr<ModelRepository> repository = ModelRepository::Open(dir.Join("repo"));
  ASSERT_TRUE(repository.ok()) << repository.status();
  const std::tuple<std::string, std::string, std::string, bool> expected[] = {
      {"triton", "4", "4/model.neff", true},
      {"named", "2", "2/model.neff", true},
      {"bare", "7", "7/model.neff", true},
      {"own", "5", "model.neff", false},
  };
  for (const auto& [folder, version, file, triton] : expected) {
    absl::StatusOr<RepositoryModel> model = repository->Resolve(folder);
    ASSERT_TRUE(model.ok()) << folder << ": " << model.status();
    EXPECT_EQ(model->config.name(), folder);
    EXPECT_EQ(model->config.version(), version) << folder;
    EXPECT_EQ(model->config.file(), file) << folder;
    EXPECT_EQ(model->triton, triton) << folder;
    EXPECT_EQ(model->neff_path, fs::canonical(dir.Join("repo/" + folder + "/" + file)).string());
  }
  EXPECT_EQ(repository->Resolve("triton")->config.replicas(), 2u);
}

}  // namespace model_repository_triton_test
}  // namespace neuronserve
