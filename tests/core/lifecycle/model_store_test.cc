// ModelStore (core/lifecycle/model_store.h): saving, listing, reading back and removing models,
// the record's format, given digests, names, batched models and concurrency. What a crash
// leaves behind: model_store_recovery_test.cc.
#include "core/lifecycle/model_store.h"

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/core/lifecycle/model_store_fixture.h"
#include "util/sha256.h"

namespace neuronserve::model_store_test {
namespace {

TEST_F(ModelStoreTest, SaveListReadRoundTrip) {
  OpenStore();
  EXPECT_EQ(store_->dir(), state_.string());
  EXPECT_THAT(List(), IsEmpty());

  std::string neff = std::string("NEFF\0bytes\xff", 11);
  std::string config = "name: \"mlp\"\nmax_batch_size: 8\n";
  Save("mlp", "3", neff, config);

  std::vector<std::string> problems;
  std::vector<StoredModel> models = List(&problems);
  EXPECT_THAT(problems, IsEmpty());
  ASSERT_THAT(models, SizeIs(1));
  const StoredModel& model = models[0];
  EXPECT_EQ(model.name, "mlp");
  EXPECT_EQ(model.version, "3");
  EXPECT_EQ(model.config_text, config);
  EXPECT_EQ(model.neffs.at(0).size, neff.size());
  EXPECT_EQ(model.neffs.at(0).sha256, Sha256Hex(neff));
  EXPECT_TRUE(fs::path(model.neffs.at(0).path).is_absolute()) << model.neffs.at(0).path;
  EXPECT_EQ(fs::path(model.neffs.at(0).path).parent_path(), ModelDir("mlp"));
  // The file name starts with the digest's prefix and is unique per save.
  EXPECT_TRUE(fs::path(model.neffs.at(0).path)
                  .filename()
                  .string()
                  .starts_with(model.neffs.at(0).sha256.substr(0, 16)));
  EXPECT_EQ(ReadAll(model.neffs.at(0).path), neff);

  absl::StatusOr<std::string> read = ReadOne(*store_, model);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, neff);

  // Exactly the documented files, and nothing left over.
  EXPECT_THAT(Entries(ModelDir("mlp")),
              ElementsAre(fs::path(model.neffs.at(0).path).filename().string(), "record.json"));
  EXPECT_THAT(Entries(state_), ElementsAre("LOCK", "models"));
}

TEST_F(ModelStoreTest, RecordIsTheDocumentedJson) {
  OpenStore();
  Save("mlp", "", "neff", "config");
  nlohmann::json record = nlohmann::json::parse(ReadAll(ModelDir("mlp") / "record.json"));
  EXPECT_EQ(record["format"], 1);
  EXPECT_EQ(record["name"], "mlp");
  EXPECT_EQ(record["version"], "");
  EXPECT_EQ(record["neff_size"], 4);
  EXPECT_EQ(record["neff_sha256"], Sha256Hex("neff"));
  EXPECT_EQ(record["config_text"], "config");
  EXPECT_EQ(record["neff_file"], NeffFiles(ModelDir("mlp")).at(0));
  EXPECT_TRUE(record["saved_at"].is_string());
}

// An upload's verified digest is carried to the store, which records it instead of hashing the
// bytes a second time.
TEST_F(ModelStoreTest, AGivenDigestIsRecordedAsGiven) {
  OpenStore();
  const std::string neff = "uploaded bytes";
  const std::string digest = Sha256Hex(neff);
  ASSERT_TRUE(store_->Save("mlp", "1", Bytes(neff), "config", digest).ok());
  nlohmann::json record = nlohmann::json::parse(ReadAll(ModelDir("mlp") / "record.json"));
  EXPECT_EQ(record["neff_sha256"], digest);
  EXPECT_TRUE(NeffFiles(ModelDir("mlp")).at(0).starts_with(digest.substr(0, 16)));
  std::vector<std::string> problems;
  std::vector<StoredModel> models = List(&problems);
  EXPECT_THAT(problems, IsEmpty());
  ASSERT_THAT(models, SizeIs(1));
  EXPECT_EQ(models[0].neffs.at(0).sha256, digest);
  EXPECT_EQ(*ReadOne(*store_, models[0]), neff);
}

// The store does not re-hash a given digest, so a wrong one (a caller's bug) is what the record
// holds: it proves the digest was used as given. It is never loaded silently: List hashes the
// stored file, skips the model and names both digests, now and after a restart.
TEST_F(ModelStoreTest, AGivenDigestThatIsNotOfTheBytesIsCaughtByList) {
  OpenStore();
  const std::string neff = "uploaded bytes";
  const std::string wrong = Sha256Hex(std::string("other bytes"));
  ASSERT_TRUE(store_->Save("mlp", "1", Bytes(neff), "config", wrong).ok());
  nlohmann::json record = nlohmann::json::parse(ReadAll(ModelDir("mlp") / "record.json"));
  EXPECT_EQ(record["neff_sha256"], wrong);
  for (int open = 0; open < 2; ++open) {
    std::vector<std::string> problems;
    EXPECT_THAT(List(&problems), IsEmpty());
    ASSERT_THAT(problems, SizeIs(1));
    EXPECT_THAT(problems[0], HasSubstr("has SHA-256 " + Sha256Hex(neff)));
    EXPECT_THAT(problems[0], HasSubstr("its record says " + wrong));
    OpenStore();  // a restart neither loads nor forgets it
  }
}

TEST_F(ModelStoreTest, AGivenDigestMustBe64LowerCaseHexDigits) {
  OpenStore();
  const std::string neff = "bytes";
  for (const std::string& bad :
       {absl::AsciiStrToUpper(Sha256Hex(neff)), Sha256Hex(neff).substr(1), std::string("xyz")}) {
    absl::Status saved = store_->Save("mlp", "", Bytes(neff), "config", bad);
    EXPECT_EQ(saved.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(saved.message(), HasSubstr("is not 64 lower-case hex digits"));
  }
  EXPECT_FALSE(fs::exists(ModelDir("mlp")));
  EXPECT_THAT(List(), IsEmpty());
}

TEST_F(ModelStoreTest, ListIsSortedByName) {
  OpenStore();
  Save("resnet", "1", "r");
  Save("bert", "", "b");
  Save("mlp", "2", "m");
  Save("Zeta", "", "z");
  EXPECT_THAT(Names(List()), ElementsAre("Zeta", "bert", "mlp", "resnet"));
}

TEST_F(ModelStoreTest, ConfigTextIsOpaque) {
  OpenStore();
  std::string utf8 = "name: \"caf\xc3\xa9\"\n\t\"quoted\" \\ backslash\n";
  std::string binary = std::string("\xff\xfe\x00\x01 not utf-8", 15);
  Save("utf8", "", "a", utf8);
  Save("binary", "", "b", binary);
  Save("empty", "", "c", "");
  OpenStore();  // through the disk, not a cache
  std::vector<StoredModel> models = List();
  ASSERT_THAT(Names(models), ElementsAre("binary", "empty", "utf8"));
  EXPECT_EQ(models[0].config_text, binary);
  EXPECT_EQ(models[1].config_text, "");
  EXPECT_EQ(models[2].config_text, utf8);
}

TEST_F(ModelStoreTest, ReplaceKeepsExactlyOneNeff) {
  OpenStore();
  Save("mlp", "1", "old bytes", "old config");
  StoredModel old_model = List().at(0);

  Save("mlp", "2", "new bytes!", "new config");
  std::vector<StoredModel> models = List();
  ASSERT_THAT(models, SizeIs(1));
  EXPECT_EQ(models[0].version, "2");
  EXPECT_EQ(models[0].config_text, "new config");
  EXPECT_EQ(*ReadOne(*store_, models[0]), "new bytes!");
  EXPECT_THAT(NeffFiles(ModelDir("mlp")), SizeIs(1));
  EXPECT_THAT(Entries(ModelDir("mlp")), SizeIs(2));  // the NEFF and record.json

  // A listing taken before the replace no longer reads.
  EXPECT_EQ(ReadOne(*store_, old_model).status().code(), absl::StatusCode::kNotFound);

  // Same bytes again: a new file (never overwrite what the record points to), still one left.
  Save("mlp", "2", "new bytes!", "new config");
  std::vector<StoredModel> again = List();
  ASSERT_THAT(again, SizeIs(1));
  EXPECT_NE(again[0].neffs.at(0).path, models[0].neffs.at(0).path);
  EXPECT_EQ(again[0].neffs.at(0).sha256, models[0].neffs.at(0).sha256);
  EXPECT_THAT(NeffFiles(ModelDir("mlp")), SizeIs(1));
}

TEST_F(ModelStoreTest, Remove) {
  OpenStore();
  Save("keep", "", "k");
  Save("drop", "", "d");
  absl::Status removed = store_->Remove("drop");
  ASSERT_TRUE(removed.ok()) << removed;
  EXPECT_THAT(Names(List()), ElementsAre("keep"));
  EXPECT_FALSE(fs::exists(ModelDir("drop")));

  absl::Status again = store_->Remove("drop");
  EXPECT_EQ(again.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(again.message(), HasSubstr("no stored model named 'drop'"));
  EXPECT_EQ(store_->Remove("never-saved").code(), absl::StatusCode::kNotFound);

  OpenStore();
  EXPECT_THAT(Names(List()), ElementsAre("keep"));
}

TEST_F(ModelStoreTest, PersistsAcrossInstances) {
  OpenStore();
  Save("mlp", "7", "mlp bytes", "mlp config");
  Save("bert", "", "bert bytes", "bert config");
  store_.reset();

  OpenStore();
  std::vector<StoredModel> models = List();
  ASSERT_THAT(Names(models), ElementsAre("bert", "mlp"));
  EXPECT_EQ(models[1].version, "7");
  EXPECT_EQ(models[1].config_text, "mlp config");
  EXPECT_EQ(*ReadOne(*store_, models[0]), "bert bytes");
  EXPECT_EQ(*ReadOne(*store_, models[1]), "mlp bytes");
}

TEST_F(ModelStoreTest, ASecondOpenOfTheSameDirectoryFails) {
  OpenStore();
  absl::StatusOr<std::unique_ptr<ModelStore>> second = ModelStore::Open(state_.string());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), HasSubstr("in use by another process"));
  EXPECT_THAT(second.status().message(), HasSubstr((state_ / "LOCK").string()));

  store_.reset();  // releases the lock
  OpenStore();
}

TEST_F(ModelStoreTest, DirIsAbsoluteAndNormalized) {
  absl::StatusOr<std::unique_ptr<ModelStore>> store =
      ModelStore::Open((root_ / "a" / "b" / ".." / "state" / "").string());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->dir(), (root_ / "a" / "state").string());
  EXPECT_TRUE(fs::is_directory(root_ / "a" / "state" / "models"));
}

TEST_F(ModelStoreTest, InvalidNamesAreRejected) {
  OpenStore();
  for (const std::string& name :
       {std::string(".."), std::string("../escape"), std::string("a/b"), std::string(""),
        std::string(".hidden"), std::string(129, 'n'), std::string("nul\0", 4)}) {
    absl::Status saved = store_->Save(name, "", Bytes("x"), "");
    EXPECT_EQ(saved.code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_THAT(saved.message(), HasSubstr("invalid model name"));
    EXPECT_EQ(store_->Remove(name).code(), absl::StatusCode::kInvalidArgument) << name;
  }
  absl::Status bad_version = store_->Save("mlp", "1/2", Bytes("x"), "");
  EXPECT_EQ(bad_version.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_version.message(), HasSubstr("invalid model version"));

  // Nothing was written anywhere.
  EXPECT_THAT(Entries(state_ / "models"), IsEmpty());
  EXPECT_THAT(Entries(root_), ElementsAre("state"));
}

TEST_F(ModelStoreTest, ReadNeffOnlyReadsTheStoresOwnFiles) {
  OpenStore();
  Save("mlp", "", "bytes");
  StoredModel model = List().at(0);

  StoredModel forged = model;
  forged.neffs.at(0).path = (state_ / "LOCK").string();
  EXPECT_EQ(ReadOne(*store_, forged).status().code(), absl::StatusCode::kInvalidArgument);
  forged.neffs.at(0).path = (ModelDir("mlp") / ".." / ".." / "LOCK.neff").string();
  EXPECT_EQ(ReadOne(*store_, forged).status().code(), absl::StatusCode::kInvalidArgument);
  forged = model;
  forged.name = "..";
  EXPECT_EQ(ReadOne(*store_, forged).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ModelStoreTest, DirectoryUnderARegularFileGivesAClearError) {
  WriteAll(root_ / "file", "a regular file");
  std::string dir = (root_ / "file" / "state").string();
  absl::StatusOr<std::unique_ptr<ModelStore>> store = ModelStore::Open(dir);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(),
              HasSubstr(absl::StrCat("cannot create directory ", dir, "/models: ",
                                     (root_ / "file").string(), " exists and is not a directory")));

  EXPECT_EQ(ModelStore::Open("").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ModelStoreTest, FiveMebibyteNeff) {
  std::mt19937_64 random(42);
  std::string neff(5 << 20, '\0');
  for (char& byte : neff) byte = static_cast<char>(random());
  OpenStore();
  Save("big", "1", neff);
  OpenStore();
  std::vector<StoredModel> models = List();
  ASSERT_THAT(models, SizeIs(1));
  EXPECT_EQ(models[0].neffs.at(0).size, neff.size());
  EXPECT_EQ(models[0].neffs.at(0).sha256, Sha256Hex(neff));
  EXPECT_EQ(fs::file_size(models[0].neffs.at(0).path), neff.size());
  absl::StatusOr<std::string> read = ReadOne(*store_, models[0]);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(*read == neff);
}

TEST_F(ModelStoreTest, ConcurrentSavesAndLists) {
  OpenStore();
  constexpr int kThreads = 3;
  constexpr int kSaves = 5;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kSaves; ++i) {
        std::string name = absl::StrCat("model", t);
        EXPECT_TRUE(
            store_->Save(name, absl::StrCat(i), Bytes(absl::StrCat(name, "/", i)), "").ok());
        absl::StatusOr<std::vector<StoredModel>> models = store_->List();
        ASSERT_TRUE(models.ok());
        for (const StoredModel& model : *models) {
          // Another thread may replace its model between List and ReadNeff: NOT_FOUND then.
          absl::StatusOr<std::string> read = ReadOne(*store_, model);
          EXPECT_TRUE(read.ok() || absl::IsNotFound(read.status())) << read.status();
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<StoredModel> models = List();
  ASSERT_THAT(Names(models), ElementsAre("model0", "model1", "model2"));
  for (const StoredModel& model : models) {
    EXPECT_EQ(model.version, absl::StrCat(kSaves - 1));
    EXPECT_THAT(NeffFiles(ModelDir(model.name)), SizeIs(1));
  }
}

// A batched model: one NEFF per variant, in one record.
TEST_F(ModelStoreTest, ABatchedModelKeepsEveryVariantInOrder) {
  OpenStore();
  const std::vector<uint8_t> b1 = Bytes("batch 1 NEFF");
  const std::vector<uint8_t> b8 = Bytes("batch 8 NEFF, larger");
  ASSERT_TRUE(store_
                  ->Save("resnet", "2", {NeffToSave{8, b8, Sha256Hex(b8)}, NeffToSave{1, b1, ""}},
                         "variant { batch_size: 8 }\nvariant { batch_size: 1 }\n")
                  .ok());
  std::vector<std::string> problems;
  std::vector<StoredModel> models = List(&problems);
  EXPECT_THAT(problems, IsEmpty());
  ASSERT_THAT(models, SizeIs(1));
  ASSERT_THAT(models[0].neffs, SizeIs(2));
  EXPECT_EQ(models[0].neffs[0].batch_size, 8u);
  EXPECT_EQ(models[0].neffs[0].size, b8.size());
  EXPECT_EQ(models[0].neffs[1].batch_size, 1u);
  // Not given: hashed by the store.
  EXPECT_EQ(models[0].neffs[1].sha256, Sha256Hex(b1));
  EXPECT_THAT(NeffFiles(ModelDir("resnet")), SizeIs(2));
  absl::StatusOr<std::vector<std::string>> read = store_->ReadNeffs(models[0]);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_THAT(*read, ElementsAre("batch 8 NEFF, larger", "batch 1 NEFF"));

  // The sweep at the next start keeps every file the record points to.
  OpenStore();
  EXPECT_THAT(NeffFiles(ModelDir("resnet")), SizeIs(2));
  ASSERT_THAT(List(), SizeIs(1));
  // Replaced by a model of one NEFF: both variant files go.
  Save("resnet", "3", "one NEFF now");
  EXPECT_THAT(NeffFiles(ModelDir("resnet")), SizeIs(1));
  EXPECT_EQ(*ReadOne(*store_, List().at(0)), "one NEFF now");
}

TEST_F(ModelStoreTest, ADamagedVariantSkipsItsModel) {
  OpenStore();
  ASSERT_TRUE(store_
                  ->Save("resnet", "",
                         {NeffToSave{1, Bytes("b1"), ""}, NeffToSave{4, Bytes("b4"), ""}}, "config")
                  .ok());
  Save("mlp", "", "mlp bytes");
  const StoredModel listed = List().at(1);
  ASSERT_EQ(listed.name, "resnet");
  WriteAll(listed.neffs.at(1).path, "b5");

  std::vector<std::string> problems;
  EXPECT_THAT(Names(List(&problems)), ElementsAre("mlp"));
  ASSERT_THAT(problems, SizeIs(1));
  EXPECT_THAT(problems[0], HasSubstr(listed.neffs.at(1).path));
  EXPECT_EQ(store_->ReadNeffs(listed).status().code(), absl::StatusCode::kDataLoss);
}

TEST_F(ModelStoreTest, SaveRefusesNeffsThatAreNeitherOneNorVariants) {
  OpenStore();
  const std::vector<uint8_t> bytes = Bytes("x");
  EXPECT_EQ(store_->Save("m", "", std::vector<NeffToSave>{}, "c").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Save("m", "", {NeffToSave{0, bytes, ""}, NeffToSave{1, bytes, ""}}, "c").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Save("m", "", {NeffToSave{2, bytes, ""}, NeffToSave{2, bytes, ""}}, "c").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(List(), IsEmpty());
}

TEST_F(ModelStoreTest, AFormatOneRecordFromBeforeBatchingStillLoads) {
  // What a daemon before batch variants wrote, byte for byte in its fields.
  const std::string neff = "old NEFF";
  fs::create_directories(ModelDir("old"));
  const std::string file = Sha256Hex(neff).substr(0, 16) + "-1.neff";
  WriteAll(ModelDir("old") / file, neff);
  nlohmann::json record = {{"format", 1},
                           {"name", "old"},
                           {"version", "1"},
                           {"neff_file", file},
                           {"neff_size", neff.size()},
                           {"neff_sha256", Sha256Hex(neff)},
                           {"config_text", "name: \"old\"\n"}};
  WriteAll(ModelDir("old") / "record.json", record.dump());
  OpenStore();
  std::vector<StoredModel> models = List();
  ASSERT_THAT(models, SizeIs(1));
  ASSERT_THAT(models[0].neffs, SizeIs(1));
  EXPECT_EQ(models[0].neffs[0].batch_size, 0u);
  EXPECT_EQ(*ReadOne(*store_, models[0]), neff);
}

}  // namespace
}  // namespace neuronserve::model_store_test
