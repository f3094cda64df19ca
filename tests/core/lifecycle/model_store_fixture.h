// What the ModelStoreTest files share: the fixture (a store on a fresh temporary directory) and
// file helpers to read, write and list what the store keeps on disk.
//
// Thread safety: the fixture is used by its test's thread.
#ifndef NEURON_SERVE_TESTS_CORE_LIFECYCLE_MODEL_STORE_FIXTURE_H_
#define NEURON_SERVE_TESTS_CORE_LIFECYCLE_MODEL_STORE_FIXTURE_H_

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/lifecycle/model_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve::model_store_test {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

inline std::vector<uint8_t> Bytes(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

inline std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void WriteAll(const fs::path& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  ASSERT_TRUE(out.good()) << path;
}

// File names directly in `dir`, sorted.
inline std::vector<std::string> Entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline std::vector<std::string> NeffFiles(const fs::path& dir) {
  std::vector<std::string> names;
  for (const std::string& name : Entries(dir)) {
    if (name.size() > 5 && name.ends_with(".neff")) names.push_back(name);
  }
  return names;
}

// The bytes of a model of one NEFF, read back through the store.
inline absl::StatusOr<std::string> ReadOne(const ModelStore& store, const StoredModel& model) {
  absl::StatusOr<std::vector<std::string>> neffs = store.ReadNeffs(model);
  if (!neffs.ok()) return neffs.status();
  EXPECT_EQ(neffs->size(), 1u);
  return neffs->at(0);
}

inline std::vector<std::string> Names(const std::vector<StoredModel>& models) {
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

}  // namespace neuronserve::model_store_test

#endif  // NEURON_SERVE_TESTS_CORE_LIFECYCLE_MODEL_STORE_FIXTURE_H_
