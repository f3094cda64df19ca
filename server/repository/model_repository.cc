#include "server/repository/model_repository.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "server/repository/model_config_schema.h"
#include "server/repository/triton_config.h"
#include "util/posix_file.h"

namespace neuronserve {
namespace fs = std::filesystem;

namespace {

constexpr char kDefaultNeffName[] = "model.neff";

// A folder whose NEFFs sit in version folders, with a configuration (or none) that names no NEFF
// of its own: Triton's layout (model_config_schema.h, rule 1's exception).
bool LaidOutAsTriton(const v1::ModelConfig& config, const std::string& folder,
                     const std::string& default_file) {
  return config.file().empty() && config.variant().empty() &&
         !fs::exists(fs::path(folder) / default_file) && !VersionFolders(folder).empty();
}

bool IsInside(const fs::path& path, const fs::path& root) {
  auto [root_end, unused] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return root_end == root.end();
}

}  // namespace

absl::StatusOr<ModelRepository> ModelRepository::Open(const std::string& root) {
  std::error_code error;
  fs::path canonical = fs::canonical(root, error);
  if (error) {
    return absl::NotFoundError(absl::StrCat("model repository '", root, "': ", error.message()));
  }
  if (!fs::is_directory(canonical)) {
    return absl::FailedPreconditionError(
        absl::StrCat("model repository '", root, "' is not a directory"));
  }
  return ModelRepository(canonical.string());
}

absl::StatusOr<std::string> ModelRepository::Confine(const std::string& relative) const {
  const fs::path requested(relative);
  if (relative.empty()) {
    return absl::InvalidArgumentError("repository path is empty");
  }
  if (requested.is_absolute()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "repository path '", relative, "' is absolute; name it relative to the repository"));
  }
  for (const fs::path& part : requested) {
    if (part == "..") {
      return absl::InvalidArgumentError(
          absl::StrCat("repository path '", relative, "' contains '..'"));
    }
  }
  std::error_code error;
  // canonical() follows every symlink, so a link pointing out of the repository is caught here.
  fs::path resolved = fs::canonical(fs::path(root_) / requested, error);
  if (error) {
    return absl::NotFoundError(
        absl::StrCat("repository path '", relative, "' does not exist in the model repository"));
  }
  if (!IsInside(resolved, fs::path(root_))) {
    return absl::PermissionDeniedError(
        absl::StrCat("repository path '", relative, "' resolves outside the model repository"));
  }
  return resolved.string();
}

absl::StatusOr<RepositoryModel> ModelRepository::Resolve(const std::string& relative,
                                                         const std::string& default_file) const {
  absl::StatusOr<std::string> path = Confine(relative);
  if (!path.ok()) return path.status();
  RepositoryModel model;
  if (fs::is_directory(*path)) {
    model.folder = *path;
    const fs::path config_path = fs::path(*path) / kModelConfigFileName;
    const std::string where = absl::StrCat("'", relative, "/", kModelConfigFileName, "'");
    std::optional<inference::ModelConfig> triton;
    if (fs::exists(config_path)) {
      absl::StatusOr<std::string> text = ReadFile(config_path.string());
      if (!text.ok()) return text.status();
      absl::StatusOr<ParsedModelConfig> parsed = ParseModelConfigText(*text, where);
      if (!parsed.ok()) return parsed.status();
      if (parsed->own.has_value()) model.config = *std::move(parsed->own);
      triton = std::move(parsed->triton);
      if (parsed->own.has_value() && LaidOutAsTriton(model.config, *path, default_file)) {
        // Only fields both schemas have (a name), over Triton's layout: Triton's reading.
        triton.emplace();
        if (!google::protobuf::TextFormat::ParseFromString(*text, &*triton)) triton.reset();
      }
    } else if (LaidOutAsTriton(model.config, *path, default_file)) {
      triton.emplace();  // Triton's layout without a configuration: its defaults
    }
    if (triton.has_value()) return ResolveTritonFolder(relative, *path, *triton, where);
    if (absl::Status files = ResolveFiles(relative, default_file, model); !files.ok()) {
      return files;
    }
    return model;
  }
  if (!fs::is_regular_file(*path)) {
    return absl::NotFoundError(
        absl::StrCat("repository path '", relative, "': '", *path, "' is not a regular file"));
  }
  model.neff_path = *path;
  model.folder = fs::path(*path).parent_path().string();
  model.config.set_file(fs::path(*path).filename().string());
  model.config.set_name(fs::path(*path).stem().string());
  return model;
}

absl::StatusOr<RepositoryModel> ModelRepository::ResolveTriton(
    const std::string& relative, const inference::ModelConfig& config) const {
  absl::StatusOr<std::string> path = Confine(relative);
  if (!path.ok()) return path.status();
  if (!fs::is_directory(*path)) {
    return absl::InvalidArgumentError(
        absl::StrCat("repository path '", relative,
                     "' is not a model folder, which a Triton configuration "
                     "needs (its NEFFs in version folders, 1/model.neff)"));
  }
  // The folder's own configuration names the NEFFs it holds and the rows each was compiled for;
  // an override that lists no variants of its own keeps them, and its max_batch_size is then the
  // rows one request may carry, split over those variants (docs/triton.md, "Two configuration
  // schemas").
  std::optional<RepositoryModel> compiled;
  if (config.max_batch_size() > 0 && !config.parameters().contains(kTritonBatchVariantsParameter)) {
    absl::StatusOr<RepositoryModel> folder = Resolve(relative);
    if (folder.ok() && !folder->config.variant().empty()) compiled = *std::move(folder);
  }
  return ResolveTritonFolder(relative, *path, config,
                             absl::StrCat("the configuration of '", relative, "'"),
                             compiled.has_value() ? &compiled->config : nullptr);
}

absl::StatusOr<RepositoryModel> ModelRepository::ResolveTritonFolder(
    const std::string& relative, const std::string& path, const inference::ModelConfig& config,
    const std::string& where, const v1::ModelConfig* compiled) const {
  absl::StatusOr<TritonModelConfig> converted = FromTritonConfig(config, path, where);
  if (!converted.ok()) return converted.status();
  if (compiled != nullptr) *converted->config.mutable_variant() = compiled->variant();
  RepositoryModel model;
  model.folder = path;
  model.config = std::move(converted->config);
  model.triton = true;
  model.declared_tensors = std::move(converted->declared_tensors);
  model.ignored_fields = std::move(converted->ignored_fields);
  if (absl::Status files = ResolveFiles(relative, kDefaultNeffName, model); !files.ok()) {
    return files;
  }
  return model;
}

absl::Status ModelRepository::ResolveFiles(const std::string& relative,
                                           const std::string& default_file,
                                           RepositoryModel& model) const {
  if (model.config.name().empty()) {
    model.config.set_name(fs::path(model.folder).filename().string());
  }
  if (model.config.variant().empty()) {
    if (model.config.file().empty()) model.config.set_file(default_file);
    absl::StatusOr<std::string> neff = ConfineFile(relative, model.config.file());
    if (!neff.ok()) return neff.status();
    model.neff_path = *std::move(neff);
    return absl::OkStatus();
  }
  for (const v1::BatchVariant& variant : model.config.variant()) {
    if (variant.file().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", relative, "/", kModelConfigFileName, "': the variant of batch ",
          variant.batch_size(),
          " names no file (`variant { file: \"...\" batch_size: ", variant.batch_size(), " }`)"));
    }
    absl::StatusOr<std::string> neff = ConfineFile(relative, variant.file());
    if (!neff.ok()) return neff.status();
    model.variant_paths.push_back(*std::move(neff));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ModelRepository::ConfineFile(const std::string& folder,
                                                         const std::string& file) const {
  absl::StatusOr<std::string> path = Confine((fs::path(folder) / file).string());
  if (!path.ok()) return path.status();
  if (!fs::is_regular_file(*path)) {
    return absl::NotFoundError(
        absl::StrCat("repository path '", folder, "': '", *path, "' is not a regular file"));
  }
  return path;
}

absl::StatusOr<std::vector<std::string>> ModelRepository::ModelFolders() const {
  std::vector<std::string> names;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(root_, error)) {
    if (entry.is_directory() && !absl::StartsWith(entry.path().filename().string(), ".")) {
      names.push_back(entry.path().filename().string());
    }
  }
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("cannot list the model repository '", root_, "': ", error.message()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace neuronserve
