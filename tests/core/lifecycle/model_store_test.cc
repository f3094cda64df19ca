#include "core/lifecycle/model_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "util/sha256.h"

namespace neuronserve {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

std::vector<uint8_t> Bytes(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteAll(const fs::path& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  ASSERT_TRUE(out.good()) << path;
}

// File names directly in `dir`, sorted.
std::vector<std::string> Entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> NeffFiles(const fs::path& dir) {
  std::vector<std::string> names;
  for (const std::string& name : Entries(dir)) {
    if (name.size() > 5 && name.ends_with(".neff")) names.push_back(name);
  }
  return names;
}

// The bytes of a model of one NEFF, read back through the store.
absl::StatusOr<std::string> ReadOne(const ModelStore& store, const StoredModel& model) {
  absl::StatusOr<std::vector<std::string>> neffs = store.ReadNeffs(model);
  if (!neffs.ok()) return neffs.status();
  EXPECT_EQ(neffs->size(), 1u);
  return neffs->at(0);
}

std::vector<std::string> Names(const std::vector<StoredModel>& models) {
  std::vector<std::string> names;
  for (const StoredModel& model : models) names.push_back(model.name);
  return names;
}

class ModelStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/model_store_test.XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << pattern;
    root_ = pattern;
    state_ = root_ / "state";
  }

  void TearDown() override {
    store_.reset();
    std::error_code error;
    fs::permissions(root_, fs::perms::owner_all, fs::perm_options::add, error);
    fs::remove_all(root_, error);
  }

  // Opens (or reopens) the store under test.
  void OpenStore() {
    store_.reset();
    absl::StatusOr<std::unique_ptr<ModelStore>> store = ModelStore::Open(state_.string());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }

  void Save(const std::string& name, const std::string& version, const std::string& neff,
            const std::string& config = "config") {
    absl::Status saved = store_->Save(name, version, Bytes(neff), config);
    ASSERT_TRUE(saved.ok()) << saved;
  }

  std::vector<StoredModel> List(std::vector<std::string>* problems = nullptr) {
    absl::StatusOr<std::vector<StoredModel>> models = store_->List(problems);
    EXPECT_TRUE(models.ok()) << models.status();
    return models.ok() ? *std::move(models) : std::vector<StoredModel>{};
  }

  fs::path ModelDir(const std::string& name) const { return state_ / "models" / name; }

  fs::path root_;
  fs::path state_;
  std::unique_ptr<ModelStore> store_;
};

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

// Crash leftovers (a): temp files of an interrupted write and NEFFs no record points to.
TEST_F(ModelStoreTest, OpenRemovesTempFilesAndOrphanNeffs) {
  OpenStore();
  Save("mlp", "1", "mlp bytes");
  store_.reset();

  fs::path mlp = ModelDir("mlp");
  std::string kept_neff = NeffFiles(mlp).at(0);
  WriteAll(mlp / ".record.json.17-1-3.tmp", "{\"half\": ");
  WriteAll(mlp / ".0123456789abcdef-17-1-2.neff.17-1-4.tmp", "half a NEF");
  WriteAll(mlp / "0123456789abcdef-17-1-2.neff", "an orphan");
  WriteAll(mlp / "notes.txt", "not the store's: left alone");
  // A model whose first save died before its record: only a NEFF and a temp file.
  fs::create_directories(ModelDir("ghost"));
  WriteAll(ModelDir("ghost") / "fedcba9876543210-1-1-0.neff", "ghost");
  WriteAll(ModelDir("ghost") / ".record.json.1-1-1.tmp", "");
  // An empty model directory (a save that died right after mkdir).
  fs::create_directories(ModelDir("empty"));

  OpenStore();
  EXPECT_THAT(Entries(mlp), ElementsAre(kept_neff, "notes.txt", "record.json"));
  EXPECT_FALSE(fs::exists(ModelDir("ghost")));
  EXPECT_FALSE(fs::exists(ModelDir("empty")));

  std::vector<std::string> problems;
  std::vector<StoredModel> models = List(&problems);
  EXPECT_THAT(problems, IsEmpty());
  ASSERT_THAT(Names(models), ElementsAre("mlp"));
  EXPECT_EQ(*ReadOne(*store_, models[0]), "mlp bytes");
}

// Crash leftovers (b): records whose NEFF is missing or damaged are skipped and reported.
TEST_F(ModelStoreTest, RecordsWithMissingOrDamagedNeffsAreSkippedAndReported) {
  OpenStore();
  for (const char* name : {"good", "missing", "resized", "altered", "garbled", "impostor"}) {
    Save(name, "", absl::StrCat(name, " neff bytes"));
  }
  fs::remove(ModelDir("missing") / NeffFiles(ModelDir("missing")).at(0));
  WriteAll(ModelDir("resized") / NeffFiles(ModelDir("resized")).at(0), "short");
  std::string altered = ModelDir("altered") / NeffFiles(ModelDir("altered")).at(0);
  std::string contents = ReadAll(altered);
  contents[0] ^= 1;  // same size, different digest
  WriteAll(altered, contents);
  WriteAll(ModelDir("garbled") / "record.json", "{\"format\": 1, \"name\": ");
  // A record copied under another name: it names "good", not "impostor".
  fs::copy_file(ModelDir("good") / "record.json", ModelDir("impostor") / "record.json",
                fs::copy_options::overwrite_existing);

  std::vector<std::string> problems;
  std::vector<StoredModel> models = List(&problems);
  EXPECT_THAT(Names(models), ElementsAre("good"));
  ASSERT_THAT(problems, SizeIs(5));
  // Sorted by model name: altered, garbled, impostor, missing, resized.
  EXPECT_THAT(problems[0], HasSubstr("model altered: NEFF "));
  EXPECT_THAT(problems[0], HasSubstr("has SHA-256"));
  EXPECT_THAT(problems[1], HasSubstr("model garbled: bad record "));
  EXPECT_THAT(problems[1], HasSubstr("not valid JSON"));
  EXPECT_THAT(problems[2], HasSubstr("names the model 'good'"));
  EXPECT_THAT(problems[3], HasSubstr("model missing: cannot open "));
  EXPECT_THAT(problems[3], HasSubstr("No such file or directory"));
  EXPECT_THAT(problems[4], HasSubstr("is 5 bytes, its record says 18"));

  // problems is optional.
  absl::StatusOr<std::vector<StoredModel>> without = store_->List();
  ASSERT_TRUE(without.ok());
  EXPECT_THAT(Names(*without), ElementsAre("good"));

  // Open keeps everything a record might still need: the NEFFs beside a damaged or foreign
  // record included.
  OpenStore();
  EXPECT_THAT(NeffFiles(ModelDir("garbled")), SizeIs(1));
  EXPECT_THAT(NeffFiles(ModelDir("impostor")), SizeIs(1));
  EXPECT_THAT(Names(List()), ElementsAre("good"));
}

TEST_F(ModelStoreTest, ReadNeffNoticesDamageAfterList) {
  OpenStore();
  Save("mlp", "", "mlp bytes");
  StoredModel model = List().at(0);
  std::string contents = ReadAll(model.neffs.at(0).path);
  contents.back() ^= 1;
  WriteAll(model.neffs.at(0).path, contents);
  absl::StatusOr<std::string> read = ReadOne(*store_, model);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(read.status().message(), HasSubstr(model.neffs.at(0).path));
}

// Crash leftovers (c): the new NEFF is on disk but the new record never replaced the old one.
TEST_F(ModelStoreTest, CrashBetweenNewNeffAndNewRecordKeepsTheOldModel) {
  OpenStore();
  Save("mlp", "1", "old bytes", "old config");
  fs::path mlp = ModelDir("mlp");
  std::string old_neff = NeffFiles(mlp).at(0);

  // What Save leaves if killed after step 1 (NEFF renamed into place) and during step 2 (record
  // temp file written, not yet renamed).
  std::string new_neff = absl::StrCat(Sha256Hex("new bytes").substr(0, 16), "-99-1-7.neff");
  WriteAll(mlp / new_neff, "new bytes");
  WriteAll(mlp / ".record.json.99-1-8.tmp", "{\"format\": 1, \"name\": \"mlp\", \"vers");
  store_.reset();

  OpenStore();
  std::vector<std::string> problems;
  std::vector<StoredModel> models = List(&problems);
  EXPECT_THAT(problems, IsEmpty());
  ASSERT_THAT(models, SizeIs(1));
  EXPECT_EQ(models[0].version, "1");
  EXPECT_EQ(models[0].config_text, "old config");
  EXPECT_EQ(*ReadOne(*store_, models[0]), "old bytes");
  // Open removed the orphan and the temp file.
  EXPECT_THAT(Entries(mlp), ElementsAre(old_neff, "record.json"));
}

TEST_F(ModelStoreTest, ListBeforeTheSweepSeesTheOldModelToo) {
  OpenStore();
  Save("mlp", "1", "old bytes", "old config");
  fs::path mlp = ModelDir("mlp");
  // The orphan appears while the store is open (as if written by a save that crashed in a
  // process whose store we now play); List ignores files no record points to.
  WriteAll(mlp / absl::StrCat(Sha256Hex("new").substr(0, 16), "-1-1-1.neff"), "new");
  std::vector<StoredModel> models = List();
  ASSERT_THAT(models, SizeIs(1));
  EXPECT_EQ(*ReadOne(*store_, models[0]), "old bytes");
}

// Crash leftovers (d): the new record is in place but the old NEFF was not deleted yet.
TEST_F(ModelStoreTest, CrashAfterTheNewRecordKeepsTheNewModel) {
  OpenStore();
  Save("mlp", "1", "old bytes");
  fs::path mlp = ModelDir("mlp");
  std::string old_neff = NeffFiles(mlp).at(0);
  fs::copy_file(mlp / old_neff, root_ / "saved.neff");
  Save("mlp", "2", "new bytes");
  std::string new_neff = NeffFiles(mlp).at(0);
  fs::copy_file(root_ / "saved.neff", mlp / old_neff);  // as if the delete never happened
  store_.reset();

  OpenStore();
  EXPECT_THAT(Entries(mlp), ElementsAre(new_neff, "record.json"));
  std::vector<StoredModel> models = List();
  ASSERT_THAT(models, SizeIs(1));
  EXPECT_EQ(models[0].version, "2");
  EXPECT_EQ(*ReadOne(*store_, models[0]), "new bytes");
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
}  // namespace neuronserve
