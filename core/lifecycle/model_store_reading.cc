// ModelStore's reading side (model_store.h): List and ReadNeffs, which trust no file on disk and
// verify every NEFF's size and SHA-256 against its record each time they read it. Writing, the
// sweep at Open and Remove are in model_store.cc.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/lifecycle/model_name.h"
#include "core/lifecycle/model_record.h"
#include "core/lifecycle/model_store.h"
#include "core/lifecycle/model_store_layout.h"
#include "spdlog/spdlog.h"
#include "util/posix_file.h"
#include "util/sha256.h"

namespace neuronserve {

namespace {
using model_store_layout::JoinPath;
}  // namespace

absl::StatusOr<std::vector<StoredModel>> ModelStore::List(
    std::vector<std::string>* problems) const {
  MutexLock lock(&mu_);
  absl::StatusOr<std::vector<std::string>> entries = ListDir(models_dir_);
  if (!entries.ok()) return entries.status();

  auto report = [&](std::string problem) {
    spdlog::warn("model store: skipping {}", problem);
    if (problems != nullptr) problems->push_back(std::move(problem));
  };
  std::vector<StoredModel> models;
  for (const std::string& name : *entries) {  // sorted by ListDir
    std::string model_dir = ModelDir(name);
    absl::StatusOr<FileKind> kind = GetFileKind(model_dir);
    if (!kind.ok()) {
      report(std::string(kind.status().message()));
      continue;
    }
    if (*kind != FileKind::kDirectory) {
      report(absl::StrCat(model_dir, ": not a model directory"));
      continue;
    }
    if (absl::Status valid = ValidateModelName(name); !valid.ok()) {
      report(absl::StrCat(model_dir, ": ", valid.message()));
      continue;
    }
    absl::StatusOr<ModelRecord> record = ReadModelRecord(JoinPath(model_dir, kModelRecordFileName));
    if (!record.ok()) {
      report(absl::StrCat("model ", name, ": ", record.status().message()));
      continue;
    }
    if (record->name != name) {
      report(absl::StrCat("model ", name, ": its record ",
                          JoinPath(model_dir, kModelRecordFileName), " names the model '",
                          record->name, "'"));
      continue;
    }
    StoredModel model;
    model.name = name;
    model.version = std::move(record->version);
    model.config_text = std::move(record->config_text);
    std::string problem;
    for (RecordedNeff& neff : record->neffs) {
      std::string neff_path = JoinPath(model_dir, neff.file);
      absl::StatusOr<FileSha256> digest = Sha256OfFile(neff_path);
      if (!digest.ok()) {
        problem = absl::StrCat("model ", name, ": ", digest.status().message());
      } else if (digest->size != neff.size) {
        problem = absl::StrCat("model ", name, ": NEFF ", neff_path, " is ", digest->size,
                               " bytes, its record says ", neff.size);
      } else if (digest->hex != neff.sha256) {
        problem = absl::StrCat("model ", name, ": NEFF ", neff_path, " has SHA-256 ", digest->hex,
                               ", its record says ", neff.sha256);
      }
      if (!problem.empty()) break;
      model.neffs.push_back(
          StoredNeff{neff.batch_size, std::move(neff_path), neff.size, std::move(neff.sha256)});
    }
    if (!problem.empty()) {
      report(std::move(problem));
      continue;
    }
    models.push_back(std::move(model));
  }
  return models;
}

absl::StatusOr<std::vector<std::string>> ModelStore::ReadNeffs(const StoredModel& model) const {
  MutexLock lock(&mu_);
  std::vector<std::string> neffs;
  for (const StoredNeff& neff : model.neffs) {
    absl::StatusOr<std::string> bytes = ReadNeff(model, neff);
    if (!bytes.ok()) return bytes.status();
    neffs.push_back(*std::move(bytes));
  }
  return neffs;
}

absl::StatusOr<std::string> ModelStore::ReadNeff(const StoredModel& model,
                                                 const StoredNeff& neff) const {
  // Only a NEFF of this store, under the model's own directory, is ever read.
  std::string prefix = ModelDir(model.name) + "/";
  if (!ValidateModelName(model.name).ok() || !absl::StartsWith(neff.path, prefix) ||
      !IsNeffFileName(absl::string_view(neff.path).substr(prefix.size()))) {
    return absl::InvalidArgumentError(absl::StrCat("'", neff.path, "' is not a NEFF of model '",
                                                   model.name, "' in the model store ", dir_));
  }
  absl::StatusOr<std::string> bytes = ReadFile(neff.path);
  if (!bytes.ok()) {
    if (absl::IsNotFound(bytes.status())) {
      return absl::NotFoundError(absl::StrCat(bytes.status().message(), " (model ", model.name,
                                              " was replaced or removed since it was listed)"));
    }
    return bytes.status();
  }
  if (bytes->size() != neff.size) {
    return absl::DataLossError(absl::StrCat("NEFF ", neff.path, " of model ", model.name, " is ",
                                            bytes->size(), " bytes, expected ", neff.size));
  }
  if (std::string sha = Sha256Hex(*bytes); sha != neff.sha256) {
    return absl::DataLossError(absl::StrCat("NEFF ", neff.path, " of model ", model.name,
                                            " has SHA-256 ", sha, ", expected ", neff.sha256));
  }
  return bytes;
}

}  // namespace neuronserve
