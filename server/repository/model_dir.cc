#include "server/repository/model_dir.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <tuple>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spdlog/spdlog.h"

namespace neuronserve {
namespace {

namespace fs = std::filesystem;

constexpr char kDefaultNeff[] = "model.neff";
// How many of a folder's entries an error lists, so that a huge folder does not make a huge line.
constexpr size_t kListedEntries = 10;

// What one folder holds, looked at without descending (symlinks followed, as the storage
// initializer and assemble-model-repository may make them).
struct Listing {
  std::vector<std::string> neffs;    // regular files named *.neff, sorted
  bool config = false;               // config.pbtxt
  std::vector<uint64_t> versions;    // numeric folders, sorted
  std::vector<std::string> folders;  // other folders, sorted
  std::vector<std::string> entries;  // everything not hidden, for error messages
};

bool IsNeff(const std::string& name) {
  return name.size() > 5 && absl::EndsWithIgnoreCase(name, ".neff");
}

absl::StatusOr<Listing> List(const fs::path& dir) {
  Listing listing;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (absl::StartsWith(name, ".")) continue;  // ..data of a mounted volume, lost+found is not
    std::error_code kind_error;
    const bool directory = fs::is_directory(entry.path(), kind_error);
    const bool file = fs::is_regular_file(entry.path(), kind_error);
    listing.entries.push_back(directory ? name + "/" : name);
    uint64_t version = 0;
    if (directory && absl::SimpleAtoi(name, &version) && absl::ascii_isdigit(name[0])) {
      listing.versions.push_back(version);
    } else if (directory) {
      listing.folders.push_back(name);
    } else if (file && name == kModelConfigFileName) {
      listing.config = true;
    } else if (file && IsNeff(name)) {
      listing.neffs.push_back(name);
    }
  }
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("cannot list '", dir.string(), "': ", error.message()));
  }
  std::sort(listing.neffs.begin(), listing.neffs.end());
  std::sort(listing.versions.begin(), listing.versions.end());
  std::sort(listing.folders.begin(), listing.folders.end());
  std::sort(listing.entries.begin(), listing.entries.end());
  return listing;
}

std::string Holds(const Listing& listing) {
  if (listing.entries.empty()) return "it is empty";
  std::vector<std::string> shown(
      listing.entries.begin(),
      listing.entries.begin() + std::min(listing.entries.size(), kListedEntries));
  return absl::StrCat("it holds ", absl::StrJoin(shown, ", "),
                      listing.entries.size() > kListedEntries ? ", ..." : "");
}

std::string Expected() {
  return "expected one model (a .neff file, with or without a config.pbtxt, or version folders "
         "such as 1/model.neff) or a model repository (one folder per model, each with its .neff "
         "or config.pbtxt)";
}

// The highest version folder holding exactly one .neff: its "<version>/<file>" and version.
std::optional<std::pair<std::string, std::string>> NewestVersion(const fs::path& dir,
                                                                 const Listing& listing) {
  for (auto version = listing.versions.rbegin(); version != listing.versions.rend(); ++version) {
    const std::string name = std::to_string(*version);
    absl::StatusOr<Listing> inside = List(dir / name);
    if (inside.ok() && inside->neffs.size() == 1) {
      return std::pair{absl::StrCat(name, "/", inside->neffs.front()), name};
    }
  }
  return std::nullopt;
}

bool HoldsModel(const fs::path& folder) {
  absl::StatusOr<Listing> inside = List(folder);
  return inside.ok() && (inside->config || !inside->neffs.empty());
}

}  // namespace

absl::StatusOr<ModelDirContents> InspectModelDir(const std::string& dir,
                                                 const std::string& model_name) {
  std::error_code error;
  if (!fs::exists(dir, error)) {
    return absl::NotFoundError(
        absl::StrCat("--model-dir '", dir, "' does not exist; ", Expected()));
  }
  if (!fs::is_directory(dir, error)) {
    return absl::FailedPreconditionError(
        absl::StrCat("--model-dir '", dir, "' is not a directory; ", Expected()));
  }
  absl::StatusOr<ModelRepository> folder = ModelRepository::Open(dir);
  if (!folder.ok()) return folder.status();
  absl::StatusOr<Listing> listing = List(folder->root());
  if (!listing.ok()) return listing.status();
  ModelDirContents contents{*std::move(folder), std::nullopt, {}};
  const fs::path root(contents.folder.root());

  // One model: which NEFF is it when the config names none, and from which version folder.
  std::string neff;
  std::string version;
  bool ambiguous = false;
  if (listing->neffs.size() == 1) {
    neff = listing->neffs.front();
  } else if (listing->neffs.size() > 1) {
    ambiguous = true;
  } else if (auto newest = NewestVersion(root, *listing); newest.has_value()) {
    std::tie(neff, version) = *newest;
  }
  const bool one_model = listing->config || !neff.empty() || ambiguous;
  if (one_model) {
    absl::StatusOr<RepositoryModel> model =
        contents.folder.Resolve(".", neff.empty() ? kDefaultNeff : neff);
    // Several NEFFs are one model only when a config.pbtxt says which: guessing by name would
    // serve a file nobody chose.
    if (ambiguous && (!listing->config || !model.ok())) {
      return absl::FailedPreconditionError(
          absl::StrCat("--model-dir '", dir, "' holds ", listing->neffs.size(), " .neff files (",
                       absl::StrJoin(listing->neffs, ", "),
                       ") and no config.pbtxt whose `file` names one of "
                       "them; ",
                       Expected()));
    }
    if (!model.ok()) {
      return absl::Status(model.status().code(),
                          absl::StrCat("--model-dir '", dir, "': ", model.status().message()));
    }
    if (!model_name.empty()) model->config.set_name(model_name);
    if (model->config.version().empty() && !version.empty()) model->config.set_version(version);
    contents.model = *std::move(model);
    return contents;
  }

  for (const std::string& name : listing->folders) {
    if (HoldsModel(root / name)) {
      contents.model_folders.push_back(name);
    } else {
      spdlog::warn("--model-dir '{}': folder '{}' holds no .neff and no config.pbtxt; skipped", dir,
                   name);
    }
  }
  if (contents.model_folders.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("--model-dir '", dir, "' holds no model (",
                                                      Holds(*listing), "); ", Expected()));
  }
  if (!model_name.empty()) {
    spdlog::info(
        "--model-dir '{}' is a model repository of {} model(s) ({}), each served under its "
        "folder's name; --model-name '{}' is not used",
        dir, contents.model_folders.size(), absl::StrJoin(contents.model_folders, ", "),
        model_name);
  }
  return contents;
}

}  // namespace neuronserve
