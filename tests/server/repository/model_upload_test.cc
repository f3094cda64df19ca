#include "server/repository/model_upload.h"

#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"
#include "util/sha256.h"

namespace neuronserve {
namespace {

using ::testing::ElementsAre;

constexpr uint64_t kMaxModelBytes = 100;

v1::LoadModelRequest HeaderMessage(const v1::LoadModelHeader& header) {
  v1::LoadModelRequest request;
  *request.mutable_header() = header;
  return request;
}

v1::LoadModelRequest ChunkMessage(const std::string& bytes) {
  v1::LoadModelRequest request;
  request.set_chunk(bytes);
  return request;
}

// The header of an upload of `neff` named `name`, with its true size and digest.
v1::LoadModelHeader UploadHeader(const std::string& name, const std::string& neff) {
  v1::LoadModelHeader header;
  header.mutable_config()->set_name(name);
  header.set_total_size(neff.size());
  header.set_sha256(Sha256Hex(neff));
  return header;
}

void ExpectStatus(const absl::Status& status, absl::StatusCode code, const std::string& message) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_EQ(status.message(), message);
}

class ModelUploadTest : public ::testing::Test {
 protected:
  ModelUpload upload_{nullptr, kMaxModelBytes};
};

TEST_F(ModelUploadTest, AGoodUploadIsTheHeadersConfigWithTheBytes) {
  const std::string neff = "a NEFF sent in three chunks";
  v1::LoadModelHeader header = UploadHeader("mlp", neff);
  header.mutable_config()->set_version("7");
  header.mutable_config()->add_start_cores(2);
  header.mutable_config()->set_max_queue(9);
  ASSERT_TRUE(upload_.TakeMessage(HeaderMessage(header)).ok());
  ASSERT_TRUE(upload_.TakeMessage(ChunkMessage(neff.substr(0, 5))).ok());
  ASSERT_TRUE(upload_.TakeMessage(ChunkMessage(neff.substr(5, 10))).ok());
  ASSERT_TRUE(upload_.TakeMessage(ChunkMessage(neff.substr(15))).ok());

  absl::StatusOr<LoadSpec> spec = upload_.Finish();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->identity.name, "mlp");
  EXPECT_EQ(spec->identity.version, "7");
  EXPECT_EQ(spec->identity.source, ModelSource::kUpload);
  EXPECT_THAT(spec->start_cores, ElementsAre(2u));
  EXPECT_EQ(spec->max_queue, 9u);
  EXPECT_TRUE(spec->persist);
  EXPECT_FALSE(spec->config_text.empty());
  ASSERT_NE(spec->neff, nullptr);
  EXPECT_EQ(*spec->neff, neff);
  // The digest verified while streaming travels with the bytes, so the store need not hash them.
  EXPECT_EQ(spec->neff_sha256, Sha256Hex(neff));
}

TEST_F(ModelUploadTest, AnUpperCaseDigestIsTheSameDigest) {
  const std::string neff = "bytes";
  v1::LoadModelHeader header = UploadHeader("m", neff);
  header.set_sha256(absl::AsciiStrToUpper(header.sha256()));
  ASSERT_TRUE(upload_.TakeMessage(HeaderMessage(header)).ok());
  ASSERT_TRUE(upload_.TakeMessage(ChunkMessage(neff)).ok());
  absl::StatusOr<LoadSpec> spec = upload_.Finish();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(*spec->neff, neff);
  EXPECT_EQ(spec->neff_sha256, Sha256Hex(neff));  // lower-case, as the store records digests
}

TEST_F(ModelUploadTest, AChunkBeforeTheHeaderIsRefused) {
  ExpectStatus(upload_.TakeMessage(ChunkMessage("bytes")), absl::StatusCode::kInvalidArgument,
               "LoadModel: the first message must be the header, not a chunk");
}

TEST_F(ModelUploadTest, AStreamWithoutAHeaderIsRefusedAtItsEnd) {
  ExpectStatus(upload_.Finish().status(), absl::StatusCode::kInvalidArgument,
               "LoadModel: no header was sent");
}

TEST_F(ModelUploadTest, ASecondHeaderIsRefused) {
  const v1::LoadModelHeader header = UploadHeader("m", "bytes");
  ASSERT_TRUE(upload_.TakeMessage(HeaderMessage(header)).ok());
  ExpectStatus(upload_.TakeMessage(HeaderMessage(header)), absl::StatusCode::kInvalidArgument,
               "LoadModel 'm': a second header after the first");
}

TEST_F(ModelUploadTest, AnUploadNeedsAName) {
  ExpectStatus(upload_.TakeMessage(HeaderMessage(UploadHeader("", "bytes"))),
               absl::StatusCode::kInvalidArgument,
               "LoadModel: the header's config.name is required");
}

TEST_F(ModelUploadTest, AnUploadNeedsItsSize) {
  v1::LoadModelHeader header = UploadHeader("m", "bytes");
  header.set_total_size(0);
  ExpectStatus(upload_.TakeMessage(HeaderMessage(header)), absl::StatusCode::kInvalidArgument,
               "LoadModel 'm': total_size is 0; give the NEFF's size (or a repository_path)");
}

TEST_F(ModelUploadTest, ASizeOverTheBoundIsRefusedNamingTheSizeAndTheLimit) {
  v1::LoadModelHeader header = UploadHeader("m", std::string(kMaxModelBytes, 'x'));
  ASSERT_TRUE(ModelUpload(nullptr, kMaxModelBytes).TakeMessage(HeaderMessage(header)).ok())
      << "exactly the bound is allowed";
  header.set_total_size(kMaxModelBytes + 1);
  ExpectStatus(upload_.TakeMessage(HeaderMessage(header)), absl::StatusCode::kResourceExhausted,
               "LoadModel 'm': the NEFF is 101 bytes, more than --max-model-bytes=100");
}

TEST_F(ModelUploadTest, ADigestMustBe64HexDigits) {
  v1::LoadModelHeader header = UploadHeader("m", "bytes");
  header.set_sha256("abc");
  ExpectStatus(upload_.TakeMessage(HeaderMessage(header)), absl::StatusCode::kInvalidArgument,
               "LoadModel 'm': sha256 must be 64 hex digits, got 'abc'");
  ModelUpload other(nullptr, kMaxModelBytes);
  header.set_sha256(std::string(63, 'a') + "g");
  ExpectStatus(other.TakeMessage(HeaderMessage(header)), absl::StatusCode::kInvalidArgument,
               "LoadModel 'm': sha256 must be 64 hex digits, got '" + header.sha256() + "'");
}

TEST_F(ModelUploadTest, MoreBytesThanAnnouncedAreRefusedAsTheyArrive) {
  ASSERT_TRUE(upload_.TakeMessage(HeaderMessage(UploadHeader("m", "12345"))).ok());
  ASSERT_TRUE(upload_.TakeMessage(ChunkMessage("123")).ok());
  ExpectStatus(upload_.TakeMessage(ChunkMessage("456")), absl::StatusCode::kDataLoss,
               "LoadModel 'm': more bytes than total_size=5 were sent");
}

TEST_F(ModelUploadTest, FewerBytesThanAnnouncedAreDataLoss) {
  ASSERT_TRUE(upload_.TakeMessage(HeaderMessage(UploadHeader("m", "12345"))).ok());
  ASSERT_TRUE(upload_.TakeMessage(ChunkMessage("123")).ok());
  ExpectStatus(upload_.Finish().status(), absl::StatusCode::kDataLoss,
               "LoadModel 'm': received 3 bytes, the header announced total_size=5");
}

TEST_F(ModelUploadTest, ADigestMismatchIsDataLossNamingBothDigests) {
  const std::string announced = Sha256Hex(std::string("12345"));
  ASSERT_TRUE(upload_.TakeMessage(HeaderMessage(UploadHeader("m", "12345"))).ok());
  ASSERT_TRUE(upload_.TakeMessage(ChunkMessage("12346")).ok());
  ExpectStatus(upload_.Finish().status(), absl::StatusCode::kDataLoss,
               "LoadModel 'm': SHA-256 of the received bytes is " +
                   Sha256Hex(std::string("12346")) + ", the header announced " + announced +
                   "; nothing was loaded");
}

// Repository loads: a folder with its config and NEFF under a temporary repository.
class RepositoryModelUploadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("bert/model.neff", "bert bytes");
    dir_.Write("bert/config.pbtxt", "version: \"3\"\nmax_queue: 5\n");
    absl::StatusOr<ModelRepository> repository = ModelRepository::Open(dir_.path());
    ASSERT_TRUE(repository.ok()) << repository.status();
    repository_.emplace(*std::move(repository));
  }

  static v1::LoadModelHeader RepositoryHeader(const std::string& path) {
    v1::LoadModelHeader header;
    header.set_repository_path(path);
    return header;
  }

  testing::TempDir dir_;
  std::optional<ModelRepository> repository_;
};

TEST_F(RepositoryModelUploadTest, ARepositoryLoadIsTheFoldersModelWithTheHeadersOverrides) {
  ModelUpload upload(&*repository_, kMaxModelBytes);
  v1::LoadModelHeader header = RepositoryHeader("bert");
  header.mutable_config()->set_version("4");
  ASSERT_TRUE(upload.TakeMessage(HeaderMessage(header)).ok());
  absl::StatusOr<LoadSpec> spec = upload.Finish();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->identity.name, "bert");
  EXPECT_EQ(spec->identity.version, "4");
  EXPECT_EQ(spec->identity.source, ModelSource::kRepository);
  EXPECT_EQ(spec->max_queue, 5u);
  EXPECT_TRUE(spec->persist);
  ASSERT_NE(spec->neff, nullptr);
  EXPECT_EQ(*spec->neff, "bert bytes");
  // Read from disk and hashed by no one: the store hashes the bytes when it records them.
  EXPECT_TRUE(spec->neff_sha256.empty());
}

TEST_F(RepositoryModelUploadTest, ARepositoryLoadIsNotBoundByTheUploadLimit) {
  // The bound is on what a client makes the daemon buffer; the repository's files are the
  // operator's.
  ModelUpload upload(&*repository_, /*max_model_bytes=*/1);
  ASSERT_TRUE(upload.TakeMessage(HeaderMessage(RepositoryHeader("bert"))).ok());
  absl::StatusOr<LoadSpec> spec = upload.Finish();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(*spec->neff, "bert bytes");
}

TEST_F(RepositoryModelUploadTest, ChunksForARepositoryLoadAreRefused) {
  ModelUpload upload(&*repository_, kMaxModelBytes);
  v1::LoadModelHeader header = RepositoryHeader("bert");
  header.mutable_config()->set_name("b");
  ASSERT_TRUE(upload.TakeMessage(HeaderMessage(header)).ok());
  ExpectStatus(upload.TakeMessage(ChunkMessage("bytes")), absl::StatusCode::kInvalidArgument,
               "LoadModel 'b': chunks sent for a repository load");
}

TEST_F(RepositoryModelUploadTest, AMissingRepositoryPathIsTheRepositorysNotFound) {
  ModelUpload upload(&*repository_, kMaxModelBytes);
  ASSERT_TRUE(upload.TakeMessage(HeaderMessage(RepositoryHeader("ghost"))).ok());
  ExpectStatus(upload.Finish().status(), absl::StatusCode::kNotFound,
               "repository path 'ghost' does not exist in the model repository");
}

TEST(ModelUploadWithoutRepositoryTest, ARepositoryPathNeedsARepository) {
  ModelUpload upload(nullptr, kMaxModelBytes);
  v1::LoadModelHeader header;
  header.mutable_config()->set_name("bert");
  header.set_repository_path("bert");
  ExpectStatus(upload.TakeMessage(HeaderMessage(header)), absl::StatusCode::kFailedPrecondition,
               "LoadModel 'bert': repository_path 'bert' given, but the daemon has no "
               "--model-repository");
}

}  // namespace
}  // namespace neuronserve
