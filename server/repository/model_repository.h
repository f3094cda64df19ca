// The model repository (--model-repository=DIR): one folder per model holding its NEFF and a
// config.pbtxt (a ModelConfig in protobuf text format).
//
// Every path a client names is resolved inside the repository and must stay there: ".." and
// absolute paths are refused, and so is a symlink whose target lies outside.
#ifndef NEURON_SERVE_SERVER_REPOSITORY_MODEL_REPOSITORY_H_
#define NEURON_SERVE_SERVER_REPOSITORY_MODEL_REPOSITORY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/lifecycle/declared_tensors.h"
#include "inference/model_config.pb.h"
#include "neuronserve/v1/model_config.pb.h"

namespace neuronserve {

// The name of a model folder's configuration file, as in Triton's repositories.
inline constexpr char kModelConfigFileName[] = "config.pbtxt";

struct RepositoryModel {
  // name defaulted to the folder name; file to "model.neff" unless the config lists variants
  v1::ModelConfig config;
  std::string folder;  // absolute, canonical
  // A model of one NEFF: its file; absolute, canonical, inside the repository. Empty when the
  // config lists variants.
  std::string neff_path;
  // A batched model: each config.variant()'s file, in its order, as neff_path.
  std::vector<std::string> variant_paths;
  // A folder configured in Triton's schema (triton_config.h), converted into `config`: the
  // tensors it declares, checked once the NEFF loads, and the fields it sets without effect
  // here, for one warning when the model loads.
  bool triton = false;
  std::vector<DeclaredTensor> declared_tensors;
  std::vector<std::string> ignored_fields;
};

class ModelRepository {
 public:
  // NOT_FOUND / FAILED_PRECONDITION when `root` is missing or not a directory.
  static absl::StatusOr<ModelRepository> Open(const std::string& root);

  // `relative` names a model folder (with config.pbtxt, or just a model.neff) or a NEFF file.
  // A config whose `variant`s name the NEFFs of a batched model has each file confined and
  // checked as the one NEFF is; a variant without a file is INVALID_ARGUMENT.
  // INVALID_ARGUMENT for absolute paths and "..", PERMISSION_DENIED for a path (or symlink)
  // that resolves outside the repository, NOT_FOUND when it does not exist. `default_file` is
  // the NEFF of a folder whose config names no `file` (relative to the folder); --model-dir
  // passes the one NEFF it found there, which need not be called model.neff.
  // A folder's config.pbtxt is read in either schema (triton_config.h says how they are told
  // apart); a folder without one whose NEFFs sit in version folders (`1/model.neff`) is read
  // as Triton's layout with an empty configuration.
  absl::StatusOr<RepositoryModel> Resolve(const std::string& relative,
                                          const std::string& default_file = "model.neff") const;

  // The model folder `relative` with `config` (Triton's schema, RepositoryModelLoad's `config`
  // parameter) in place of its config.pbtxt, as Triton replaces it. What describes the files
  // stays the folder's: when its own configuration lists compiled variants and `config` sets
  // max_batch_size without listing variants (parameter neuron_batch_variants), the model keeps
  // the folder's variants and max_batch_size is the rows one request may carry, split over them.
  absl::StatusOr<RepositoryModel> ResolveTriton(const std::string& relative,
                                                const inference::ModelConfig& config) const;

  // The model folders directly under the root, by name.
  absl::StatusOr<std::vector<std::string>> ModelFolders() const;

  const std::string& root() const { return root_; }

 private:
  explicit ModelRepository(std::string root) : root_(std::move(root)) {}
  absl::StatusOr<std::string> Confine(const std::string& relative) const;
  // The folder at `relative` (`path`, canonical) with the Triton configuration `config`; with
  // `compiled`, that configuration's variants replace the ones `config` implies.
  absl::StatusOr<RepositoryModel> ResolveTritonFolder(
      const std::string& relative, const std::string& path, const inference::ModelConfig& config,
      const std::string& where, const v1::ModelConfig* compiled = nullptr) const;
  // The files of the folder `model.folder` (at `relative`) for its config: the one NEFF (the
  // config's `file`, else `default_file`) or each variant's, confined.
  absl::Status ResolveFiles(const std::string& relative, const std::string& default_file,
                            RepositoryModel& model) const;
  // `file` of the model folder `folder` (both relative), confined, and a regular file.
  absl::StatusOr<std::string> ConfineFile(const std::string& folder, const std::string& file) const;

  std::string root_;  // canonical
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REPOSITORY_MODEL_REPOSITORY_H_
