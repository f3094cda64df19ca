#include "server/repository/model_upload.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
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

TEST_F(ModelUploadTest, TheHeadersPipelineDepthGoesToTheSpec) {
  const std::string neff = "bytes";
  v1::LoadModelHeader header = UploadHeader("m", neff);
  header.mutable_config()->set_pipeline_depth(3);
  ASSERT_TRUE(upload_.TakeMessage(HeaderMessage(header)).ok());
  ASSERT_TRUE(upload_.TakeMessage(ChunkMessage(neff)).ok());
  absl::StatusOr<LoadSpec> spec = upload_.Finish();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->pipeline_depth, 3u);
  // Recorded with the model, so that it loads with the same depth after a restart.
  v1::ModelConfig recorded;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(spec->config_text, &recorded));
  EXPECT_EQ(recorded.pipeline_depth(), 3u);
}

TEST_F(ModelUploadTest, APipelineDepthPastTheLimitIsRefusedBeforeAnyByte) {
  v1::LoadModelHeader header = UploadHeader("m", "bytes");
  header.mutable_config()->set_pipeline_depth(9);
  ExpectStatus(upload_.TakeMessage(HeaderMessage(header)), absl::StatusCode::kInvalidArgument,
               "LoadModel: model 'm': pipeline_depth is 9, more than the limit of 8 (tensor sets "
               "per variant of each replica; 1: no pipelining, 0 or left out: the daemon's "
               "--pipeline-depth)");
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
  // Checked as soon as the NEFF's last byte arrives: the stream ends there.
  ExpectStatus(upload_.TakeMessage(ChunkMessage("12346")), absl::StatusCode::kDataLoss,
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

TEST_F(RepositoryModelUploadTest, TheHeaderOverridesTheConfigsPipelineDepth) {
  dir_.Write("deep/model.neff", "deep bytes");
  dir_.Write("deep/config.pbtxt", "pipeline_depth: 1\n");
  {
    ModelUpload upload(&*repository_, kMaxModelBytes);
    ASSERT_TRUE(upload.TakeMessage(HeaderMessage(RepositoryHeader("deep"))).ok());
    absl::StatusOr<LoadSpec> spec = upload.Finish();
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_EQ(spec->pipeline_depth, 1u);
  }
  {
    ModelUpload upload(&*repository_, kMaxModelBytes);
    v1::LoadModelHeader header = RepositoryHeader("deep");
    header.mutable_config()->set_pipeline_depth(3);
    ASSERT_TRUE(upload.TakeMessage(HeaderMessage(header)).ok());
    absl::StatusOr<LoadSpec> spec = upload.Finish();
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_EQ(spec->pipeline_depth, 3u);
  }
  ModelUpload upload(&*repository_, kMaxModelBytes);
  v1::LoadModelHeader header = RepositoryHeader("deep");
  header.mutable_config()->set_pipeline_depth(9);
  ASSERT_TRUE(upload.TakeMessage(HeaderMessage(header)).ok());
  ExpectStatus(upload.Finish().status(), absl::StatusCode::kInvalidArgument,
               "model 'deep': pipeline_depth is 9, more than the limit of 8 (tensor sets per "
               "variant of each replica; 1: no pipelining, 0 or left out: the daemon's "
               "--pipeline-depth)");
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

// A batched model's upload: the header lists each variant, the stream carries them in order.
class VariantUploadTest : public ::testing::Test {
 protected:
  static v1::LoadModelHeader VariantsHeader(
      const std::string& name, const std::vector<std::pair<uint32_t, std::string>>& variants) {
    v1::LoadModelHeader header;
    header.mutable_config()->set_name(name);
    for (const auto& [rows, neff] : variants) {
      v1::VariantUpload* variant = header.add_variants();
      variant->set_batch_size(rows);
      variant->set_size(neff.size());
      variant->set_sha256(Sha256Hex(neff));
    }
    return header;
  }

  ModelUpload upload_{nullptr, kMaxModelBytes};
  const std::string b1_ = "the NEFF of batch 1";
  const std::string b8_ = "the NEFF compiled for batch 8";
};

TEST_F(VariantUploadTest, EachVariantGetsItsBytesAndDigestEvenWhenAChunkCrossesTheBoundary) {
  v1::LoadModelHeader header = VariantsHeader("resnet", {{1, b1_}, {8, b8_}});
  header.mutable_config()->set_max_batch_size(16);
  header.mutable_config()->mutable_dynamic_batching()->set_max_queue_delay_microseconds(250);
  const std::string both = b1_ + b8_;
  ASSERT_TRUE(upload_.TakeMessage(HeaderMessage(header)).ok());
  ASSERT_TRUE(upload_.TakeMessage(ChunkMessage(both.substr(0, 7))).ok());
  ASSERT_TRUE(upload_.TakeMessage(ChunkMessage(both.substr(7, b1_.size()))).ok());
  ASSERT_TRUE(upload_.TakeMessage(ChunkMessage(both.substr(7 + b1_.size()))).ok());

  absl::StatusOr<LoadSpec> spec = upload_.Finish();
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->neff, nullptr);
  ASSERT_EQ(spec->variants.size(), 2u);
  EXPECT_EQ(spec->variants[0].batch_size, 1u);
  EXPECT_EQ(*spec->variants[0].neff, b1_);
  EXPECT_EQ(spec->variants[0].neff_sha256, Sha256Hex(b1_));
  EXPECT_EQ(spec->variants[1].batch_size, 8u);
  EXPECT_EQ(*spec->variants[1].neff, b8_);
  EXPECT_EQ(spec->variants[1].neff_sha256, Sha256Hex(b8_));
  EXPECT_EQ(spec->max_batch_size, 16u);
  EXPECT_EQ(spec->batching.max_queue_delay, absl::Microseconds(250));
  // The record's config lists the variants (batch size and digest), for the restart.
  v1::ModelConfig recorded;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(spec->config_text, &recorded));
  ASSERT_EQ(recorded.variant_size(), 2);
  EXPECT_EQ(recorded.variant(1).batch_size(), 8u);
  EXPECT_EQ(recorded.variant(1).sha256(), Sha256Hex(b8_));
}

TEST_F(VariantUploadTest, AWrongVariantEndsTheStreamAtItsLastByteNamingIt) {
  v1::LoadModelHeader header = VariantsHeader("resnet", {{1, b1_}, {8, b8_}});
  ASSERT_TRUE(upload_.TakeMessage(HeaderMessage(header)).ok());
  ASSERT_TRUE(upload_.TakeMessage(ChunkMessage(b1_)).ok());
  std::string damaged = b8_;
  damaged.back() = '9';
  ExpectStatus(upload_.TakeMessage(ChunkMessage(damaged)), absl::StatusCode::kDataLoss,
               "LoadModel 'resnet': SHA-256 of the received bytes of the variant of batch 8 is " +
                   Sha256Hex(damaged) + ", the header announced " + Sha256Hex(b8_) +
                   "; nothing was loaded");
}

TEST_F(VariantUploadTest, AShortStreamIsDataLossNamingTheVariantItStoppedIn) {
  ASSERT_TRUE(upload_.TakeMessage(HeaderMessage(VariantsHeader("r", {{1, b1_}, {8, b8_}}))).ok());
  ASSERT_TRUE(upload_.TakeMessage(ChunkMessage(b1_ + b8_.substr(0, 4))).ok());
  ExpectStatus(upload_.Finish().status(), absl::StatusCode::kDataLoss,
               absl::StrCat("LoadModel 'r': received 4 bytes of the variant of batch 8, the "
                            "header announced ",
                            b8_.size(), "; nothing was loaded"));
}

TEST_F(VariantUploadTest, BytesPastTheLastVariantAreRefused) {
  ASSERT_TRUE(upload_.TakeMessage(HeaderMessage(VariantsHeader("r", {{1, b1_}}))).ok());
  ExpectStatus(upload_.TakeMessage(ChunkMessage(b1_ + "x")), absl::StatusCode::kDataLoss,
               "LoadModel 'r': more bytes than the variants' sizes add up to were sent");
}

TEST_F(VariantUploadTest, TheHeaderIsCheckedBeforeAnyByte) {
  struct Case {
    std::function<void(v1::LoadModelHeader&)> change;
    absl::StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](v1::LoadModelHeader& h) { h.mutable_variants(1)->set_batch_size(1); },
       absl::StatusCode::kInvalidArgument,
       "LoadModel: model 'r': variants 1 and 2 both have batch_size 1; each variant needs its "
       "own batch size"},
      {[](v1::LoadModelHeader& h) { h.mutable_variants(0)->set_batch_size(0); },
       absl::StatusCode::kInvalidArgument,
       "LoadModel: model 'r': variant 1 ('') has no batch_size; give the batch size its NEFF "
       "was compiled for (1 or more)"},
      {[](v1::LoadModelHeader& h) { h.mutable_variants(1)->set_size(0); },
       absl::StatusCode::kInvalidArgument,
       "LoadModel 'r': the variant of batch 8 (variant 2) has size 0; give its NEFF's size"},
      {[](v1::LoadModelHeader& h) { h.mutable_variants(1)->set_size(kMaxModelBytes); },
       absl::StatusCode::kResourceExhausted,
       "LoadModel 'r': the variants' NEFFs are more than --max-model-bytes=100 bytes together"},
      {[](v1::LoadModelHeader& h) { h.mutable_variants(0)->set_sha256("abc"); },
       absl::StatusCode::kInvalidArgument,
       "LoadModel 'r': the variant of batch 1: sha256 must be 64 hex digits, got 'abc'"},
      {[](v1::LoadModelHeader& h) { h.set_total_size(5); }, absl::StatusCode::kInvalidArgument,
       "LoadModel 'r': both total_size/sha256 and variants given; an upload of one NEFF gives "
       "the first, a batched model's the second"},
      {[](v1::LoadModelHeader& h) { h.mutable_config()->add_variant()->set_batch_size(2); },
       absl::StatusCode::kInvalidArgument,
       "LoadModel 'r': config.variant is set; an upload lists its variants in the header's "
       "`variants` (batch size, size and SHA-256 of each), and config.variant stays empty"},
      {[](v1::LoadModelHeader& h) {
         h.mutable_config()->mutable_dynamic_batching()->set_preserve_ordering(true);
       },
       absl::StatusCode::kInvalidArgument,
       "LoadModel: model 'r': dynamic_batching.preserve_ordering is not supported: every request "
       "is answered as soon as its rows are done"},
  };
  for (const Case& c : cases) {
    ModelUpload upload(nullptr, kMaxModelBytes);
    v1::LoadModelHeader header = VariantsHeader("r", {{1, b1_}, {8, b8_}});
    c.change(header);
    ExpectStatus(upload.TakeMessage(HeaderMessage(header)), c.code, c.message);
  }
}

TEST_F(ModelUploadTest, BatchingSettingsWithoutVariantsAreRefusedAtTheHeader) {
  v1::LoadModelHeader header = UploadHeader("m", "bytes");
  header.mutable_config()->set_max_batch_size(8);
  ExpectStatus(upload_.TakeMessage(HeaderMessage(header)), absl::StatusCode::kInvalidArgument,
               "LoadModel: model 'm': max_batch_size is 8, but the model has no batch variants "
               "(`variant { file batch_size }`): a model of one NEFF has no batch dimension");
}

TEST_F(RepositoryModelUploadTest, ABatchedFolderLoadsEveryVariantFileCheckingTheStatedDigests) {
  dir_.Write("resnet/b1.neff", "batch 1 bytes");
  dir_.Write("resnet/b4.neff", "batch 4 bytes");
  dir_.Write("resnet/config.pbtxt",
             "variant { file: \"b4.neff\" batch_size: 4 sha256: \"" +
                 Sha256Hex(std::string("batch 4 bytes")) +
                 "\" }\n"
                 "variant { file: \"b1.neff\" batch_size: 1 }\n"
                 "dynamic_batching { default_queue_policy { max_queue_size: 7 } }\n"
                 "max_queue: 3\n");
  ModelUpload upload(&*repository_, kMaxModelBytes);
  ASSERT_TRUE(upload.TakeMessage(HeaderMessage(RepositoryHeader("resnet"))).ok());
  absl::StatusOr<LoadSpec> spec = upload.Finish();
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->variants.size(), 2u);
  EXPECT_EQ(spec->variants[0].batch_size, 4u);
  EXPECT_EQ(*spec->variants[0].neff, "batch 4 bytes");
  // Hashed while checking the stated digest: carried to the store; the other is the store's.
  EXPECT_EQ(spec->variants[0].neff_sha256, Sha256Hex(std::string("batch 4 bytes")));
  EXPECT_EQ(spec->variants[1].batch_size, 1u);
  EXPECT_EQ(*spec->variants[1].neff, "batch 1 bytes");
  EXPECT_TRUE(spec->variants[1].neff_sha256.empty());
  EXPECT_EQ(spec->max_batch_size, 4u);
  // max_queue_size and max_queue are one limit; the dynamic batcher's name wins.
  EXPECT_EQ(spec->max_queue, 7u);
}

TEST_F(RepositoryModelUploadTest, AVariantWhoseBytesAreNotItsStatedDigestIsRefused) {
  dir_.Write("resnet/b1.neff", "batch 1 bytes");
  const std::string stated = Sha256Hex(std::string("other bytes"));
  dir_.Write("resnet/config.pbtxt",
             "variant { file: \"b1.neff\" batch_size: 1 sha256: \"" + stated + "\" }\n");
  ModelUpload upload(&*repository_, kMaxModelBytes);
  ASSERT_TRUE(upload.TakeMessage(HeaderMessage(RepositoryHeader("resnet"))).ok());
  ExpectStatus(upload.Finish().status(), absl::StatusCode::kInvalidArgument,
               "model 'resnet': the variant of batch 1 ('b1.neff') has SHA-256 " +
                   Sha256Hex(std::string("batch 1 bytes")) + ", but its config says " + stated);
}

TEST_F(RepositoryModelUploadTest, AFolderNamingBothFileAndVariantsIsRefused) {
  dir_.Write("resnet/b1.neff", "batch 1 bytes");
  dir_.Write("resnet/config.pbtxt",
             "file: \"b1.neff\"\nvariant { file: \"b1.neff\" batch_size: 1 }\n");
  ModelUpload upload(&*repository_, kMaxModelBytes);
  ASSERT_TRUE(upload.TakeMessage(HeaderMessage(RepositoryHeader("resnet"))).ok());
  ExpectStatus(upload.Finish().status(), absl::StatusCode::kInvalidArgument,
               "model 'resnet': the config sets both `file` ('b1.neff') and `variant`: a batched "
               "model names each of its NEFFs in a variant, and `file` must be left out");
}

TEST_F(RepositoryModelUploadTest, VariantsCannotComeWithARepositoryPath) {
  ModelUpload upload(&*repository_, kMaxModelBytes);
  v1::LoadModelHeader header = RepositoryHeader("bert");
  header.add_variants()->set_batch_size(1);
  ExpectStatus(upload.TakeMessage(HeaderMessage(header)), absl::StatusCode::kInvalidArgument,
               "LoadModel '': variants given with repository_path 'bert'; a repository model's "
               "config.pbtxt names its variants");
}

}  // namespace
}  // namespace neuronserve
