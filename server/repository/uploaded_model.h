// UploadedModel: the model folder a RepositoryModelLoad carries in its `file:<path>` parameters
// (Triton's model upload: each parameter one file's bytes, the path relative to the model
// folder, e.g. `file:1/model.neff`), with its required `config` parameter.
//
// The files are checked as a whole before any of them is written: their number (at most
// kMaxUploadedFiles), their decoded bytes together (at most --max-model-bytes) and every path
// (CheckUploadedPath). Then they are written into a private staging folder (a fresh 0700
// directory under $TMPDIR, made with mkdtemp; every folder made with mkdirat and every file
// created with O_EXCL|O_NOFOLLOW relative to its parent's descriptor, so nothing is ever written
// through a symlink) and the folder is read exactly as a --model-repository folder is
// (ModelRepository::Resolve, or ResolveTriton for a configuration in Triton's schema). The
// `config` parameter is the model's configuration and wins over a `config.pbtxt` among the
// files, which is not read (Triton requires `config` whenever files are given for the same
// reason: the upload's configuration is the parameter). The NEFFs are read into the LoadSpec and
// the staging folder is removed before UploadedModelLoadSpec returns, whatever the outcome: what
// is kept is what the registry records in the state directory once the model is READY, as for
// an upload through LoadModel's stream.
//
// Thread safety: plain functions; each call stages into its own folder. Ownership: borrows the
// files' bytes for the duration of the call.
#ifndef NEURON_SERVE_SERVER_REPOSITORY_UPLOADED_MODEL_H_
#define NEURON_SERVE_SERVER_REPOSITORY_UPLOADED_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/lifecycle/version_loader.h"
#include "server/repository/model_config_schema.h"

namespace neuronserve {

// The most `file:` parameters one RepositoryModelLoad may carry. A Neuron model folder holds a
// configuration and a NEFF per batch variant and version; a model of more files belongs in the
// --model-repository folder or LoadModel's stream.
inline constexpr size_t kMaxUploadedFiles = 64;
// The longest path of one file, in bytes (Linux's PATH_MAX less room for the staging folder).
inline constexpr size_t kMaxUploadedPathBytes = 1024;

// The prefix of a RepositoryModelLoad parameter that carries a file.
inline constexpr absl::string_view kFileParameterPrefix = "file:";

// One `file:` parameter: the path after the prefix, and the decoded bytes (borrowed).
struct UploadedFile {
  std::string path;
  absl::string_view bytes;
};

// OK when `path` may name a file of an uploaded model folder: relative (no leading '/'), at most
// kMaxUploadedPathBytes, without NUL or backslash, and every '/'-separated component non-empty
// (no "a//b", no trailing '/'), neither "." nor "..", and at most NAME_MAX (255) bytes.
// Otherwise INVALID_ARGUMENT naming the parameter (`file:<path>`, a long component shortened)
// and the rule.
absl::Status CheckUploadedPath(absl::string_view path);

// The checks on the whole set before any byte is written: at most kMaxUploadedFiles files and
// `max_model_bytes` bytes together (RESOURCE_EXHAUSTED naming the count or the sum and the
// limit), each path CheckUploadedPath's, and no path that is both a file and a folder of another
// ("1" and "1/model.neff": INVALID_ARGUMENT naming both).
absl::Status CheckUploadedFiles(const std::vector<UploadedFile>& files, uint64_t max_model_bytes);

// The decoded bytes of `files` together (what the audit line reports).
uint64_t UploadedBytes(const std::vector<UploadedFile>& files);

// What to load for the model `name` uploaded as `files` with the configuration `config` (the
// `config` parameter, read by ParseModelConfigJson over an empty configuration; its name, if
// any, already checked to be `name`): CheckUploadedFiles, then the staged folder read as a
// repository folder, as a LoadSpec of source kUpload recorded in the state directory once READY.
// Errors: CheckUploadedFiles's, INVALID_ARGUMENT for a name that ValidateModelName refuses, and
// the repository's for a folder that does not resolve (NOT_FOUND naming the missing NEFF, ...).
absl::StatusOr<LoadSpec> UploadedModelLoadSpec(const std::string& name,
                                               const ParsedModelConfig& config,
                                               const std::vector<UploadedFile>& files,
                                               uint64_t max_model_bytes);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REPOSITORY_UPLOADED_MODEL_H_
