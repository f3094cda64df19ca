// --model-dir=DIR and --model-name=NAME: the folder KServe's storage initializer fills
// (/mnt/models) with whatever the InferenceService's storageUri holds, and the name the model is
// served under (the InferenceService's, from the runtime's `{{.Name}}`). The folder holds either
// one model or a model repository; this file tells which, and hands the daemon what the
// existing startup path loads (server/repository/startup_models.h): no second loader.
//
// One model, when the folder holds (in this order of precedence):
//   - a config.pbtxt (a ModelConfig); its `file` names the NEFF, else the one .neff below;
//   - exactly one .neff file directly in the folder;
//   - no .neff directly in it but version folders (numeric names, Triton's layout: 1/, 2/) with
//     one .neff each: the highest one, and its number is the version unless the config says one.
//   It is served as --model-name, else the config's `name`, else the folder's name.
// A repository, when the folder holds no .neff and no config.pbtxt but model folders (not
// numeric, not hidden) each holding a .neff or a config.pbtxt: every one is loaded as
// --model-repository with --load-models=all would, named as there; --model-name is not used
// (one InferenceService then serves several models, each under its folder's name). Folders
// holding neither are skipped with a warning line.
// Anything else (a missing folder, an empty one, several .neff files without a config.pbtxt
// naming one) is an error naming the folder and what was expected.
//
// Thread safety: plain functions of the file system, for the starting thread.
#ifndef NEURON_SERVE_SERVER_REPOSITORY_MODEL_DIR_H_
#define NEURON_SERVE_SERVER_REPOSITORY_MODEL_DIR_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/repository/model_repository.h"

namespace neuronserve {

struct ModelDirContents {
  // The folder, opened as a repository: every path is confined to it in both layouts.
  ModelRepository folder;
  // One model: resolved, its name set as the header says. Empty for a repository.
  std::optional<RepositoryModel> model;
  // A repository: the model folders to load, by name, sorted. Empty for one model.
  std::vector<std::string> model_folders;
};

// What `dir` holds; `model_name` is --model-name (may be empty). NOT_FOUND for a missing
// folder, FAILED_PRECONDITION for one that is not a directory, holds no model or holds several
// .neff files and no config naming one; a config or NEFF that cannot be read is that error. Each
// message names the folder.
absl::StatusOr<ModelDirContents> InspectModelDir(const std::string& dir,
                                                 const std::string& model_name);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REPOSITORY_MODEL_DIR_H_
