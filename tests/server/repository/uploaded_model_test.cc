#include "server/repository/uploaded_model.h"

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace neuronserve {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr uint64_t kUploadByteLimit = 1000;

void ExpectPathRefused(const std::string& path, const std::string& rule) {
  const absl::Status status = CheckUploadedPath(path);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << path << ": " << status;
  EXPECT_THAT(status.message(), HasSubstr(rule)) << path;
  EXPECT_THAT(status.message(), HasSubstr("parameter 'file:")) << path;
}

TEST(CheckUploadedPathTest, TakesRelativePathsInsideTheFolder) {
  for (const std::string& path : std::vector<std::string>{
           "model.neff", "1/model.neff", "config.pbtxt", "a/b/c/d.neff", ".hidden", "1/..neff",
           "x.y/z", std::string(NAME_MAX, 'A'), std::string(NAME_MAX, 'A') + "/" + "model.neff"}) {
    EXPECT_TRUE(CheckUploadedPath(path).ok()) << path << ": " << CheckUploadedPath(path);
  }
}

TEST(CheckUploadedPathTest, RefusesEachHostilePathNamingTheRule) {
  ExpectPathRefused("", "the path is empty");
  ExpectPathRefused("/etc/passwd", "is absolute");
  ExpectPathRefused("../escape.neff", "the component '..'");
  ExpectPathRefused("1/../../escape.neff", "the component '..'");
  ExpectPathRefused("1/..", "the component '..'");
  ExpectPathRefused("./model.neff", "the component '.'");
  ExpectPathRefused("1//model.neff", "an empty component");
  ExpectPathRefused("1/", "an empty component");
  ExpectPathRefused("1\\model.neff", "a backslash");
  ExpectPathRefused("..\\..\\escape.neff", "a backslash");
  ExpectPathRefused(std::string("1/model\0.neff", 13), "a NUL byte");
  ExpectPathRefused(std::string(NAME_MAX + 1, 'A'), "more than NAME_MAX (255)");
  ExpectPathRefused("1/" + std::string(300, 'b') + "/model.neff", "is 300 bytes");
  ExpectPathRefused(std::string(kMaxUploadedPathBytes / 2, 'a') + "/" +
                        std::string(kMaxUploadedPathBytes / 2, 'a'),
                    "more than 1024");
}

TEST(CheckUploadedPathTest, NeverQuotesANulByteOrAWholeLongComponent) {
  const absl::Status nul = CheckUploadedPath(std::string("a\0b", 3));
  EXPECT_EQ(std::string(nul.message()).find('\0'), std::string::npos);
  EXPECT_THAT(nul.message(), HasSubstr("a\\000b"));
  const std::string long_component(NAME_MAX + 1, 'A');
  const absl::Status too_long = CheckUploadedPath(long_component);
  EXPECT_THAT(too_long.message(), ::testing::Not(HasSubstr(long_component)));
  EXPECT_THAT(too_long.message(), HasSubstr("256 bytes"));
}

TEST(CheckUploadedFilesTest, BoundsTheCountAndTheDecodedBytes) {
  std::vector<UploadedFile> many;
  std::vector<std::string> names;
  for (size_t i = 0; i <= kMaxUploadedFiles; ++i) names.push_back("f" + std::to_string(i));
  for (const std::string& name : names) many.push_back({name, "x"});
  absl::Status status = CheckUploadedFiles(many, kUploadByteLimit);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_THAT(status.message(), HasSubstr("65 file: parameters, more than the limit of 64"));
  many.pop_back();
  EXPECT_TRUE(CheckUploadedFiles(many, kUploadByteLimit).ok());

  const std::string half(kUploadByteLimit / 2, 'n');
  status = CheckUploadedFiles({{"a.neff", half}, {"b.neff", half}, {"c", "x"}}, kUploadByteLimit);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_THAT(status.message(), HasSubstr("1001 bytes together, more than --max-model-bytes=1000"));
  EXPECT_TRUE(CheckUploadedFiles({{"a.neff", half}, {"b.neff", half}}, kUploadByteLimit).ok());
  EXPECT_EQ(UploadedBytes({{"a.neff", half}, {"b.neff", half}}), kUploadByteLimit);
}

TEST(CheckUploadedFilesTest, RefusesAFileThatAnotherNeedsAsAFolder) {
  const absl::Status status =
      CheckUploadedFiles({{"1", "file"}, {"1/model.neff", "neff"}}, kUploadByteLimit);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("'file:1' is a file, but parameter 'file:1/model.neff'"));
}

TEST(CheckUploadedFilesTest, ChecksEveryPath) {
  const absl::Status status =
      CheckUploadedFiles({{"1/model.neff", "neff"}, {"../x", "x"}}, kUploadByteLimit);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("'file:../x'"));
}

// UploadedModelLoadSpec stages under $TMPDIR: each test points it at a folder of its own and
// checks that nothing is left there, whatever the outcome.
class UploadedModelLoadSpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* previous = getenv("TMPDIR");
    if (previous != nullptr) previous_tmpdir_ = previous;
    ASSERT_EQ(setenv("TMPDIR", dir_.path().c_str(), 1), 0);
  }
  void TearDown() override {
    EXPECT_THAT(Leftovers(), IsEmpty()) << "the staging folder was not removed";
    if (previous_tmpdir_.has_value()) {
      setenv("TMPDIR", previous_tmpdir_->c_str(), 1);
    } else {
      unsetenv("TMPDIR");
    }
  }

  std::vector<std::string> Leftovers() const {
    std::vector<std::string> names;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir_.path())) {
      names.push_back(entry.path().filename().string());
    }
    return names;
  }

  static ParsedModelConfig Config(const std::string& json) {
    absl::StatusOr<ParsedModelConfig> parsed = ParseModelConfigJson(json, {}, "'config'");
    EXPECT_TRUE(parsed.ok()) << json << ": " << parsed.status();
    return parsed.ok() ? *parsed : ParsedModelConfig{};
  }

  testing::TempDir dir_;
  std::optional<std::string> previous_tmpdir_;
};

TEST_F(UploadedModelLoadSpecTest, ReadsTritonsLayoutAsARepositoryFolder) {
  absl::StatusOr<LoadSpec> spec = UploadedModelLoadSpec(
      "up", Config("{}"), {{"1/model.neff", "version one"}, {"2/model.neff", "version two"}},
      kUploadByteLimit);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->identity.name, "up");
  EXPECT_EQ(spec->identity.version, "2");  // Triton's default policy: the latest version folder
  EXPECT_EQ(spec->identity.source, ModelSource::kUpload);
  EXPECT_TRUE(spec->persist);
  ASSERT_NE(spec->neff, nullptr);
  EXPECT_EQ(*spec->neff, "version two");
}

TEST_F(UploadedModelLoadSpecTest, TakesTritonsSchemaWithItsVariants) {
  absl::StatusOr<LoadSpec> spec = UploadedModelLoadSpec(
      "batched", Config(R"({"backend": "neuron", "max_batch_size": 8, "parameters":
                 {"neuron_batch_variants": {"string_value": "1:b1.neff,4:b4.neff"}}})"),
      {{"1/b1.neff", "one row"}, {"1/b4.neff", "four rows"}}, kUploadByteLimit);
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->variants.size(), 2u);
  EXPECT_EQ(spec->variants[0].batch_size, 1u);
  EXPECT_EQ(*spec->variants[1].neff, "four rows");
  EXPECT_EQ(spec->max_batch_size, 8u);
}

TEST_F(UploadedModelLoadSpecTest, TheConfigParameterWinsOverAnUploadedConfigPbtxt) {
  // Were config.pbtxt read, the model would need other.neff, which is not among the files.
  absl::StatusOr<LoadSpec> spec = UploadedModelLoadSpec(
      "own", Config(R"({"version": "7", "file": "weights.neff"})"),
      {{"config.pbtxt", "file: \"other.neff\"\n"}, {"weights.neff", "w"}}, kUploadByteLimit);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->identity.version, "7");
  EXPECT_EQ(*spec->neff, "w");
  EXPECT_THAT(spec->config_text, HasSubstr("weights.neff"));
}

TEST_F(UploadedModelLoadSpecTest, AFolderWithoutItsNeffIsNotFound) {
  absl::StatusOr<LoadSpec> spec =
      UploadedModelLoadSpec("missing", Config("{}"), {{"notes.txt", "no NEFF"}}, kUploadByteLimit);
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kNotFound) << spec.status();
  EXPECT_THAT(spec.status().message(), HasSubstr("model.neff"));
}

TEST_F(UploadedModelLoadSpecTest, RefusesBeforeStagingAnything) {
  absl::StatusOr<LoadSpec> spec = UploadedModelLoadSpec(
      "up", Config("{}"), {{"1/model.neff", "ok"}, {"/abs.neff", "x"}}, kUploadByteLimit);
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument) << spec.status();
  spec = UploadedModelLoadSpec("../up", Config("{}"), {{"model.neff", "x"}}, kUploadByteLimit);
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument) << spec.status();
  spec = UploadedModelLoadSpec("up", Config("{}"), {{"model.neff", std::string(1001, 'x')}},
                               kUploadByteLimit);
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kResourceExhausted) << spec.status();
}

}  // namespace
}  // namespace neuronserve
