#include "server/repository/uploaded_model.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <memory>
#include <set>
#include <system_error>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/lifecycle/model_name.h"
#include "google/protobuf/text_format.h"
#include "server/repository/load_spec.h"
#include "server/repository/model_repository.h"
#include "util/posix_file.h"

namespace neuronserve {
namespace fs = std::filesystem;

namespace {

// How much of an over-long component a message quotes: enough to recognise it.
constexpr size_t kQuotedComponentBytes = 24;

// Escaped (a NUL byte or a control character never reaches a message raw).
std::string Parameter(absl::string_view path) {
  return absl::StrCat("parameter '", kFileParameterPrefix, absl::CEscape(path), "'");
}

// `path` for a message: as it is, unless a component is too long to quote whole.
std::string Quoted(absl::string_view path) {
  return path.size() <= kQuotedComponentBytes + 40
             ? Parameter(path)
             : absl::StrCat(Parameter(path.substr(0, kQuotedComponentBytes)), "... (", path.size(),
                            " bytes)");
}

absl::Status RefusePath(absl::string_view path, absl::string_view rule) {
  return absl::InvalidArgumentError(absl::StrCat(Quoted(path), ": ", rule));
}

// A fresh private folder under $TMPDIR, removed with everything in it when this goes.
class StagingFolder {
 public:
  static absl::StatusOr<std::unique_ptr<StagingFolder>> Make() {
    std::error_code error;
    const fs::path base = fs::temp_directory_path(error);
    if (error) return absl::InternalError("no temporary folder to stage the upload in");
    std::string pattern = (base / "neuron-serve-upload-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return ErrnoError(errno, "make the staging folder", pattern);
    }
    return std::unique_ptr<StagingFolder>(new StagingFolder(std::move(pattern)));
  }
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;
  ~StagingFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  explicit StagingFolder(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

absl::Status WriteAll(int fd, absl::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t written = write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(errno, "write", path);
    }
    bytes.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

// Writes `bytes` at `relative` (checked by CheckUploadedPath) under the folder open as
// `folder_fd`, making its folders on the way. Every step is relative to the descriptor of the
// folder above and refuses a symlink (O_NOFOLLOW), so nothing is written outside the folder
// even if something appeared in it behind the daemon's back.
absl::Status WriteStaged(int folder_fd, const std::string& folder, const std::string& relative,
                         absl::string_view bytes) {
  const std::vector<std::string> parts = absl::StrSplit(relative, '/');
  std::unique_ptr<ScopedFd> current;
  int parent = folder_fd;
  std::string where = folder;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    where = absl::StrCat(where, "/", parts[i]);
    if (mkdirat(parent, parts[i].c_str(), 0700) != 0 && errno != EEXIST) {
      return ErrnoError(errno, "make the folder", where);
    }
    const int fd =
        openat(parent, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return ErrnoError(errno, "open the folder", where);
    current = std::make_unique<ScopedFd>(fd);
    parent = fd;
  }
  where = absl::StrCat(where, "/", parts.back());
  ScopedFd out(openat(parent, parts.back().c_str(),
                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (out.get() < 0) return ErrnoError(errno, "create", where);
  if (absl::Status written = WriteAll(out.get(), bytes, where); !written.ok()) return written;
  if (out.Close() != 0) return ErrnoError(errno, "close", where);
  return absl::OkStatus();
}

// The model folder `name` in `staging`: every file but a top-level config.pbtxt (the `config`
// parameter wins), and, for a configuration in neuron-serve's schema, that configuration as the
// folder's config.pbtxt, so that Resolve reads it as it reads any folder's.
absl::Status StageFolder(const StagingFolder& staging, const std::string& name,
                         const ParsedModelConfig& config, const std::vector<UploadedFile>& files) {
  const std::string folder = absl::StrCat(staging.path(), "/", name);
  if (mkdir(folder.c_str(), 0700) != 0) return ErrnoError(errno, "make the folder", folder);
  ScopedFd folder_fd(open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (folder_fd.get() < 0) return ErrnoError(errno, "open the folder", folder);
  for (const UploadedFile& file : files) {
    if (file.path == kModelConfigFileName) continue;
    if (absl::Status written = WriteStaged(folder_fd.get(), folder, file.path, file.bytes);
        !written.ok()) {
      return written;
    }
  }
  if (config.own.has_value()) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(*config.own, &text);
    return WriteStaged(folder_fd.get(), folder, kModelConfigFileName, text);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckUploadedPath(absl::string_view path) {
  if (path.empty()) return RefusePath(path, "the path is empty; name a file of the model folder");
  if (path.size() > kMaxUploadedPathBytes) {
    return RefusePath(path, absl::StrCat("the path is ", path.size(), " bytes, more than ",
                                         kMaxUploadedPathBytes));
  }
  if (path.find('\0') != absl::string_view::npos) {
    return RefusePath(path, "the path contains a NUL byte");
  }
  if (path.find('\\') != absl::string_view::npos) {
    return RefusePath(path, "the path contains a backslash; separate folders with '/'");
  }
  if (path.front() == '/') {
    return RefusePath(path, "the path is absolute; name the file relative to the model folder");
  }
  for (absl::string_view component : absl::StrSplit(path, '/')) {
    if (component.empty()) {
      return RefusePath(path, "the path has an empty component ('//' or a trailing '/')");
    }
    if (component == "." || component == "..") {
      return RefusePath(path, absl::StrCat("the path has the component '", component,
                                           "'; name the file relative to the model folder, "
                                           "without '.' or '..'"));
    }
    if (component.size() > NAME_MAX) {
      return RefusePath(
          path, absl::StrCat("the path component '",
                             absl::CEscape(component.substr(0, kQuotedComponentBytes)), "...' is ",
                             component.size(), " bytes, more than NAME_MAX (", NAME_MAX, ")"));
    }
  }
  return absl::OkStatus();
}

uint64_t UploadedBytes(const std::vector<UploadedFile>& files) {
  uint64_t total = 0;
  for (const UploadedFile& file : files) total += file.bytes.size();
  return total;
}

absl::Status CheckUploadedFiles(const std::vector<UploadedFile>& files, uint64_t max_model_bytes) {
  if (files.size() > kMaxUploadedFiles) {
    return absl::ResourceExhaustedError(
        absl::StrCat(files.size(), " file: parameters, more than the limit of ", kMaxUploadedFiles,
                     " files; put a larger model in the --model-repository folder or upload it "
                     "with the LoadModel stream"));
  }
  if (const uint64_t total = UploadedBytes(files); total > max_model_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the files are ", total, " bytes together, more than --max-model-bytes=", max_model_bytes,
        "; upload a larger model with neuronserve.v1.NeuronServing/LoadModel's stream"));
  }
  std::set<absl::string_view> paths;
  for (const UploadedFile& file : files) {
    if (absl::Status checked = CheckUploadedPath(file.path); !checked.ok()) return checked;
    paths.insert(file.path);
  }
  // A file whose path is a folder on another's way: the folder could not be made.
  for (const UploadedFile& file : files) {
    for (size_t slash = file.path.find('/'); slash != std::string::npos;
         slash = file.path.find('/', slash + 1)) {
      const absl::string_view folder = absl::string_view(file.path).substr(0, slash);
      if (paths.contains(folder)) {
        return absl::InvalidArgumentError(absl::StrCat(
            Quoted(folder), " is a file, but ", Quoted(file.path), " needs it to be a folder"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<LoadSpec> UploadedModelLoadSpec(const std::string& name,
                                               const ParsedModelConfig& config,
                                               const std::vector<UploadedFile>& files,
                                               uint64_t max_model_bytes) {
  if (absl::Status valid = ValidateModelName(name); !valid.ok()) return valid;
  if (absl::Status checked = CheckUploadedFiles(files, max_model_bytes); !checked.ok()) {
    return checked;
  }
  absl::StatusOr<std::unique_ptr<StagingFolder>> staging = StagingFolder::Make();
  if (!staging.ok()) return staging.status();
  if (absl::Status staged = StageFolder(**staging, name, config, files); !staged.ok()) {
    return staged;
  }
  absl::StatusOr<ModelRepository> repository = ModelRepository::Open((*staging)->path());
  if (!repository.ok()) return repository.status();
  absl::StatusOr<RepositoryModel> model = config.triton.has_value()
                                              ? repository->ResolveTriton(name, *config.triton)
                                              : repository->Resolve(name);
  if (!model.ok()) return model.status();
  absl::StatusOr<LoadSpec> spec = RepositoryModelLoadSpec(*model, model->config, /*persist=*/true);
  if (!spec.ok()) return spec;
  spec->identity.source = ModelSource::kUpload;
  return spec;
}

}  // namespace neuronserve
