// ModelStore after a crash (core/lifecycle/model_store.h): what Open sweeps (temp files, orphan
// NEFFs), what List skips and reports (records whose NEFF is missing or damaged), and which model
// survives a crash at each step of a save.
#include <sys/stat.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/lifecycle/model_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/lifecycle/model_store_fixture.h"
#include "util/sha256.h"

namespace neuronserve::model_store_test {
namespace {

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

}  // namespace
}  // namespace neuronserve::model_store_test
