#include "core/lifecycle/model_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/lifecycle/model_name.h"
#include "nlohmann/json.hpp"
#include "spdlog/spdlog.h"
#include "util/posix_file.h"
#include "util/sha256.h"

namespace neuronserve {
namespace {

constexpr int kRecordFormat = 1;
constexpr char kRecordFile[] = "record.json";
constexpr char kNeffSuffix[] = ".neff";
constexpr char kTempSuffix[] = ".tmp";

std::string JoinPath(const std::string& dir, const std::string& name) {
  return absl::StrCat(dir, "/", name);
}

// What lstat says is at `path` (symlinks are not followed). Errors other than ENOENT.
enum class FileKind { kAbsent, kRegular, kDirectory, kOther };

absl::StatusOr<FileKind> GetFileKind(const std::string& path) {
  struct stat info;
  if (lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return FileKind::kAbsent;
    return ErrnoError(errno, "stat", path);
  }
  if (S_ISREG(info.st_mode)) return FileKind::kRegular;
  if (S_ISDIR(info.st_mode)) return FileKind::kDirectory;
  return FileKind::kOther;
}

// A rename or unlink is durable only once the directory holding the entry is synced.
absl::Status FsyncDir(const std::string& dir) {
  ScopedFd fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError(errno, "open directory", dir);
  if (fsync(fd.get()) != 0) return ErrnoError(errno, "fsync directory", dir);
  return absl::OkStatus();
}

// mkdir -p, syncing the parent of every directory it creates so the new entry survives a crash.
// Follows symlinks: a --state-dir that is a symlink to a directory is fine. `target` is the
// directory the caller asked for, named in errors.
absl::Status MakeDirs(const std::string& path, const std::string& target) {
  struct stat info;
  if (stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat("cannot create directory ", target, ": ",
                                                      path, " exists and is not a directory"));
  }
  // ENOTDIR: some ancestor is not a directory; recursing up names it.
  if (errno != ENOENT && errno != ENOTDIR) return ErrnoError(errno, "stat", path);
  std::string parent = std::filesystem::path(path).parent_path().string();
  if (!parent.empty() && parent != path) {
    if (absl::Status made = MakeDirs(parent, target); !made.ok()) return made;
  }
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return ErrnoError(errno, "create directory", path);
  }
  return parent.empty() ? absl::OkStatus() : FsyncDir(parent);
}

absl::Status MakeDirs(const std::string& path) { return MakeDirs(path, path); }

absl::StatusOr<std::vector<std::string>> ListDir(const std::string& dir) {
  DIR* stream = opendir(dir.c_str());
  if (stream == nullptr) return ErrnoError(errno, "list directory", dir);
  std::vector<std::string> names;
  errno = 0;
  while (struct dirent* entry = readdir(stream)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
    errno = 0;
  }
  int error = errno;
  closedir(stream);
  if (error != 0) return ErrnoError(error, "list directory", dir);
  std::sort(names.begin(), names.end());
  return names;
}

absl::Status WriteAll(int fd, absl::Span<const uint8_t> data, const std::string& path) {
  while (!data.empty()) {
    ssize_t written = write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(errno, "write", path);
    }
    data.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

// Writes `dir`/`name` atomically via the temp file `dir`/`temp_name`. `*renamed` tells the caller
// whether the new file may already be visible under `name` when an error is returned (only the
// final directory fsync can fail after the rename).
absl::Status WriteFileAtomically(const std::string& dir, const std::string& name,
                                 const std::string& temp_name, absl::Span<const uint8_t> data,
                                 bool* renamed) {
  *renamed = false;
  std::string path = JoinPath(dir, name);
  std::string temp_path = JoinPath(dir, temp_name);
  absl::Status status = [&]() -> absl::Status {
    ScopedFd fd(open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (fd.get() < 0) return ErrnoError(errno, "create", temp_path);
    if (absl::Status written = WriteAll(fd.get(), data, temp_path); !written.ok()) return written;
    if (fsync(fd.get()) != 0) return ErrnoError(errno, "fsync", temp_path);
    if (fd.Close() != 0) return ErrnoError(errno, "close", temp_path);
    if (rename(temp_path.c_str(), path.c_str()) != 0) {
      return ErrnoError(errno, absl::StrCat("rename ", temp_path, " to"), path);
    }
    return absl::OkStatus();
  }();
  if (!status.ok()) {
    unlink(temp_path.c_str());  // best effort; Open sweeps temp files anyway
    return status;
  }
  *renamed = true;
  return FsyncDir(dir);
}

struct FileDigest {
  uint64_t size = 0;
  std::string sha256;
};

// Hashes a file in chunks, so verifying a large NEFF does not hold it all in memory.
absl::StatusOr<FileDigest> DigestFile(const std::string& path) {
  FileDigest digest;
  Sha256 sha;
  absl::Status read = ReadFileInChunks(path, [&](absl::string_view chunk) {
    sha.Update(chunk);
    digest.size += chunk.size();
  });
  if (!read.ok()) return read;
  digest.sha256 = sha.FinalHex();
  return digest;
}

// ---- File names inside a model directory. ----

bool IsTempName(const std::string& name) {
  return absl::StartsWith(name, ".") && absl::EndsWith(name, kTempSuffix);
}

// A NEFF file name as Save makes them: one path component, not hidden, ending in ".neff".
bool IsNeffName(absl::string_view name) {
  return name.size() > sizeof(kNeffSuffix) - 1 && absl::EndsWith(name, kNeffSuffix) &&
         name[0] != '.' && name.find('/') == absl::string_view::npos &&
         name.find('\0') == absl::string_view::npos;
}

bool IsLowerHexDigest(const std::string& text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// ---- The record. ----

struct Record {
  std::string name;
  std::string version;
  std::string neff_file;
  uint64_t neff_size = 0;
  std::string neff_sha256;
  std::string config_text;
};

std::string SerializeRecord(const Record& record) {
  nlohmann::json json = {
      {"format", kRecordFormat},
      {"name", record.name},
      {"version", record.version},
      {"neff_file", record.neff_file},
      {"neff_size", record.neff_size},
      {"neff_sha256", record.neff_sha256},
      {"config_text", record.config_text},
      {"saved_at", absl::FormatTime(absl::RFC3339_full, absl::Now(), absl::UTCTimeZone())},
  };
  try {
    return json.dump(2) + "\n";
  } catch (const nlohmann::json::exception&) {
    // JSON strings must be UTF-8; the store keeps config_text opaque, so fall back to base64.
    json.erase("config_text");
    json["config_text_base64"] = absl::Base64Escape(record.config_text);
    return json.dump(2) + "\n";
  }
}

// Checks every field, so that a hand-edited or damaged record is rejected with a reason instead
// of pointing the store at an arbitrary path.
absl::StatusOr<Record> ParseRecord(const std::string& text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return absl::DataLossError("not valid JSON");
  if (!json.is_object()) return absl::DataLossError("not a JSON object");
  auto bad = [](absl::string_view field, absl::string_view why) {
    return absl::DataLossError(absl::StrCat("field \"", field, "\" ", why));
  };
  auto string_field = [&](const char* field, std::string* out) -> absl::Status {
    auto it = json.find(field);
    if (it == json.end()) return bad(field, "is missing");
    if (!it->is_string()) return bad(field, "is not a string");
    *out = it->get<std::string>();
    return absl::OkStatus();
  };
  auto format = json.find("format");
  if (format == json.end() || !format->is_number_integer()) return bad("format", "is missing");
  if (*format != kRecordFormat) {
    return bad("format",
               absl::StrCat("is ", format->dump(), "; this build reads format ", kRecordFormat));
  }
  Record record;
  for (auto [field, out] :
       {std::pair{"name", &record.name}, std::pair{"version", &record.version},
        std::pair{"neff_file", &record.neff_file}, std::pair{"neff_sha256", &record.neff_sha256}}) {
    if (absl::Status status = string_field(field, out); !status.ok()) return status;
  }
  if (absl::Status valid = ValidateModelName(record.name); !valid.ok()) {
    return bad("name", valid.message());
  }
  if (absl::Status valid = ValidateModelVersion(record.version); !valid.ok()) {
    return bad("version", valid.message());
  }
  if (!IsNeffName(record.neff_file)) return bad("neff_file", "is not a NEFF file name");
  if (!IsLowerHexDigest(record.neff_sha256)) {
    return bad("neff_sha256", "is not 64 lower-case hex digits");
  }
  auto size = json.find("neff_size");
  if (size == json.end() || !size->is_number_unsigned()) {
    return bad("neff_size", "is missing or not a byte count");
  }
  record.neff_size = size->get<uint64_t>();
  if (json.contains("config_text")) {
    if (absl::Status status = string_field("config_text", &record.config_text); !status.ok()) {
      return status;
    }
  } else {
    std::string encoded;
    if (absl::Status status = string_field("config_text_base64", &encoded); !status.ok()) {
      return bad("config_text", "is missing");
    }
    if (!absl::Base64Unescape(encoded, &record.config_text)) {
      return bad("config_text_base64", "is not base64");
    }
  }
  return record;
}

// Reads and parses `dir`/record.json. NOT_FOUND when there is none.
absl::StatusOr<Record> LoadRecord(const std::string& model_dir) {
  std::string path = JoinPath(model_dir, kRecordFile);
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<Record> record = ParseRecord(*text);
  if (!record.ok()) {
    return absl::Status(record.status().code(),
                        absl::StrCat("bad record ", path, ": ", record.status().message()));
  }
  return record;
}

// Deletes a file the store owns, logging why; failures are logged and otherwise ignored, because
// an extra file on disk never makes the store wrong (Open sweeps it next time).
bool RemoveFile(const std::string& path, absl::string_view why) {
  if (unlink(path.c_str()) != 0) {
    spdlog::warn("model store: cannot remove {} ({}): {}", path, std::string(why),
                 std::string(ErrnoError(errno, "remove", path).message()));
    return false;
  }
  spdlog::info("model store: removed {} ({})", path, std::string(why));
  return true;
}

std::string MakeAbsolute(const std::string& dir) {
  std::error_code error;
  std::filesystem::path path = std::filesystem::absolute(dir, error);
  if (error) path = dir;
  std::string text = path.lexically_normal().string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

}  // namespace

ModelStore::ModelStore(std::string dir, int lock_fd)
    : dir_(std::move(dir)), models_dir_(JoinPath(dir_, "models")), lock_fd_(lock_fd) {}

ModelStore::~ModelStore() {
  close(lock_fd_);  // releases the flock
}

std::string ModelStore::ModelDir(const std::string& name) const {
  return JoinPath(models_dir_, name);
}

std::string ModelStore::UniqueSuffix() {
  // Unique across saves in this process (counter), across restarts (time) and, defensively,
  // across processes (pid; the LOCK already keeps a second process out).
  return absl::StrFormat("%x-%x-%d", absl::ToUnixNanos(absl::Now()), getpid(), next_unique_++);
}

absl::StatusOr<std::unique_ptr<ModelStore>> ModelStore::Open(const std::string& dir) {
  if (dir.empty()) return absl::InvalidArgumentError("the model store directory is empty");
  std::string absolute = MakeAbsolute(dir);
  std::string models_dir = JoinPath(absolute, "models");
  if (absl::Status made = MakeDirs(models_dir); !made.ok()) return made;

  std::string lock_path = JoinPath(absolute, "LOCK");
  int lock_fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0) return ErrnoError(errno, "open", lock_path);
  if (flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    int error = errno;
    close(lock_fd);
    if (error == EWOULDBLOCK) {
      return absl::FailedPreconditionError(
          absl::StrCat("the model store ", absolute, " is in use by another process (", lock_path,
                       " is locked); give each daemon its own --state-dir"));
    }
    return ErrnoError(error, "lock", lock_path);
  }
  std::unique_ptr<ModelStore> store(new ModelStore(absolute, lock_fd));

  absl::StatusOr<std::vector<std::string>> entries = ListDir(models_dir);
  if (!entries.ok()) return entries.status();
  {
    std::lock_guard<std::mutex> lock(store->mu_);
    for (const std::string& name : *entries) {
      // Entries that cannot be a model of this store are left alone here; List reports them.
      absl::StatusOr<FileKind> kind = GetFileKind(JoinPath(models_dir, name));
      if (!kind.ok() || *kind != FileKind::kDirectory || !ValidateModelName(name).ok()) continue;
      // A directory that cannot be cleaned is no reason to refuse to start: its leftovers are
      // never listed, and the next Open tries again.
      if (absl::Status cleaned = store->CleanModelDir(name); !cleaned.ok()) {
        spdlog::warn("model store: could not clean up {}: {}", store->ModelDir(name),
                     std::string(cleaned.message()));
      }
    }
  }
  spdlog::info("model store: opened {}", absolute);
  return store;
}

absl::Status ModelStore::CleanModelDir(const std::string& name) {
  std::string model_dir = ModelDir(name);
  absl::StatusOr<std::vector<std::string>> entries = ListDir(model_dir);
  if (!entries.ok()) return entries.status();

  bool has_record = std::find(entries->begin(), entries->end(), kRecordFile) != entries->end();
  std::string referenced;  // the NEFF the record points to
  bool record_ok = false;
  if (has_record) {
    absl::StatusOr<Record> record = LoadRecord(model_dir);
    if (record.ok() && record->name != name) {
      record = absl::DataLossError(absl::StrCat("record ", JoinPath(model_dir, kRecordFile),
                                                " names the model '", record->name, "'"));
    }
    if (record.ok()) {
      referenced = record->neff_file;
      record_ok = true;
    } else {
      // Without a readable record there is no telling which NEFF is the model: keep them all.
      spdlog::warn("model store: {}; keeping its NEFF files",
                   std::string(record.status().message()));
    }
  }

  size_t removed = 0;
  size_t kept = 0;
  for (const std::string& entry : *entries) {
    std::string path = JoinPath(model_dir, entry);
    absl::StatusOr<FileKind> kind = GetFileKind(path);
    bool regular = kind.ok() && *kind == FileKind::kRegular;
    if (regular && IsTempName(entry)) {
      removed += RemoveFile(path, "leftover of an interrupted write") ? 1 : 0;
    } else if (regular && IsNeffName(entry) && !has_record) {
      removed += RemoveFile(path, "NEFF without a record") ? 1 : 0;
    } else if (regular && IsNeffName(entry) && record_ok && entry != referenced) {
      removed += RemoveFile(path, "NEFF no record points to") ? 1 : 0;
    } else {
      ++kept;
    }
  }
  if (removed > 0) {
    if (absl::Status synced = FsyncDir(model_dir); !synced.ok()) return synced;
  }
  if (!has_record && kept == 0) {
    if (rmdir(model_dir.c_str()) != 0) return ErrnoError(errno, "remove directory", model_dir);
    spdlog::info("model store: removed {} (model directory without a record)", model_dir);
    return FsyncDir(models_dir_);
  }
  return absl::OkStatus();
}

absl::Status ModelStore::Save(const std::string& name, const std::string& version,
                              absl::Span<const uint8_t> neff, const std::string& config_text) {
  if (absl::Status valid = ValidateModelName(name); !valid.ok()) return valid;
  if (absl::Status valid = ValidateModelVersion(version); !valid.ok()) return valid;

  std::lock_guard<std::mutex> lock(mu_);
  std::string model_dir = ModelDir(name);
  if (absl::Status made = MakeDirs(model_dir); !made.ok()) return made;

  Record record;
  record.name = name;
  record.version = version;
  record.neff_size = neff.size();
  record.neff_sha256 = Sha256Hex(neff);
  record.config_text = config_text;

  while (true) {
    record.neff_file =
        absl::StrCat(record.neff_sha256.substr(0, 16), "-", UniqueSuffix(), kNeffSuffix);
    absl::StatusOr<FileKind> kind = GetFileKind(JoinPath(model_dir, record.neff_file));
    if (!kind.ok()) return kind.status();
    if (*kind == FileKind::kAbsent) break;
  }
  std::string neff_path = JoinPath(model_dir, record.neff_file);

  // 1. The NEFF, durable under its final name before any record mentions it.
  bool renamed = false;
  absl::Status written = WriteFileAtomically(
      model_dir, record.neff_file,
      absl::StrCat(".", record.neff_file, ".", UniqueSuffix(), kTempSuffix), neff, &renamed);
  if (!written.ok()) {
    if (renamed) RemoveFile(neff_path, "NEFF of a failed save");
    return written;
  }

  // 2. The record: its rename is the commit point.
  std::string record_text = SerializeRecord(record);
  written = WriteFileAtomically(
      model_dir, kRecordFile, absl::StrCat(".", kRecordFile, ".", UniqueSuffix(), kTempSuffix),
      absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(record_text.data()),
                                record_text.size()),
      &renamed);
  if (!written.ok()) {
    // Before the rename the old record (if any) still stands and the new NEFF is an orphan.
    // After it, the new record may be the one on disk: keep its NEFF.
    if (!renamed) RemoveFile(neff_path, "NEFF of a failed save");
    return written;
  }

  // 3. Only now is the previous NEFF (and any orphan of an earlier crash) unreferenced.
  size_t removed = 0;
  if (absl::StatusOr<std::vector<std::string>> entries = ListDir(model_dir); entries.ok()) {
    for (const std::string& entry : *entries) {
      std::string path = JoinPath(model_dir, entry);
      absl::StatusOr<FileKind> kind = GetFileKind(path);
      if (entry != record.neff_file && IsNeffName(entry) && kind.ok() &&
          *kind == FileKind::kRegular) {
        removed += RemoveFile(path, absl::StrCat("replaced by ", record.neff_file)) ? 1 : 0;
      }
    }
  }
  if (removed > 0) {
    if (absl::Status synced = FsyncDir(model_dir); !synced.ok()) {
      // The new model is committed; an old NEFF that reappears after a crash is swept by Open.
      spdlog::warn("model store: {}", std::string(synced.message()));
    }
  }
  spdlog::info("model store: saved model {} version '{}' ({} bytes, sha256 {}) in {}", name,
               version, neff.size(), record.neff_sha256, model_dir);
  return absl::OkStatus();
}

absl::Status ModelStore::Remove(const std::string& name) {
  if (absl::Status valid = ValidateModelName(name); !valid.ok()) return valid;

  std::lock_guard<std::mutex> lock(mu_);
  std::string model_dir = ModelDir(name);
  std::string record_path = JoinPath(model_dir, kRecordFile);
  absl::StatusOr<FileKind> kind = GetFileKind(record_path);
  if (!kind.ok()) return kind.status();
  if (*kind == FileKind::kAbsent) {
    return absl::NotFoundError(absl::StrCat("no stored model named '", name, "' in ", dir_));
  }

  // 1. The record: once it is gone (durably), the model is gone.
  if (unlink(record_path.c_str()) != 0) return ErrnoError(errno, "remove", record_path);
  if (absl::Status synced = FsyncDir(model_dir); !synced.ok()) return synced;

  // 2. What is left is unreferenced: NEFFs and temp files. Failures leave orphans for Open.
  absl::StatusOr<std::vector<std::string>> entries = ListDir(model_dir);
  if (entries.ok()) {
    for (const std::string& entry : *entries) {
      std::string path = JoinPath(model_dir, entry);
      absl::StatusOr<FileKind> entry_kind = GetFileKind(path);
      if (entry_kind.ok() && *entry_kind == FileKind::kRegular &&
          (IsNeffName(entry) || IsTempName(entry))) {
        RemoveFile(path, absl::StrCat("model ", name, " removed"));
      }
    }
  }
  if (rmdir(model_dir.c_str()) != 0) {
    spdlog::warn("model store: {}",
                 std::string(ErrnoError(errno, "remove directory", model_dir).message()));
  } else if (absl::Status synced = FsyncDir(models_dir_); !synced.ok()) {
    spdlog::warn("model store: {}", std::string(synced.message()));
  }
  spdlog::info("model store: removed model {} from {}", name, dir_);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<StoredModel>> ModelStore::List(
    std::vector<std::string>* problems) const {
  std::lock_guard<std::mutex> lock(mu_);
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
    absl::StatusOr<Record> record = LoadRecord(model_dir);
    if (!record.ok()) {
      report(absl::StrCat("model ", name, ": ", record.status().message()));
      continue;
    }
    if (record->name != name) {
      report(absl::StrCat("model ", name, ": its record ", JoinPath(model_dir, kRecordFile),
                          " names the model '", record->name, "'"));
      continue;
    }
    std::string neff_path = JoinPath(model_dir, record->neff_file);
    absl::StatusOr<FileDigest> digest = DigestFile(neff_path);
    if (!digest.ok()) {
      report(absl::StrCat("model ", name, ": ", digest.status().message()));
      continue;
    }
    if (digest->size != record->neff_size) {
      report(absl::StrCat("model ", name, ": NEFF ", neff_path, " is ", digest->size,
                          " bytes, its record says ", record->neff_size));
      continue;
    }
    if (digest->sha256 != record->neff_sha256) {
      report(absl::StrCat("model ", name, ": NEFF ", neff_path, " has SHA-256 ", digest->sha256,
                          ", its record says ", record->neff_sha256));
      continue;
    }
    StoredModel model;
    model.name = name;
    model.version = std::move(record->version);
    model.config_text = std::move(record->config_text);
    model.neff_path = std::move(neff_path);
    model.neff_size = record->neff_size;
    model.neff_sha256 = std::move(record->neff_sha256);
    models.push_back(std::move(model));
  }
  return models;
}

absl::StatusOr<std::string> ModelStore::ReadNeff(const StoredModel& model) const {
  // Only a NEFF of this store, under the model's own directory, is ever read.
  std::string prefix = ModelDir(model.name) + "/";
  if (!ValidateModelName(model.name).ok() || !absl::StartsWith(model.neff_path, prefix) ||
      !IsNeffName(absl::string_view(model.neff_path).substr(prefix.size()))) {
    return absl::InvalidArgumentError(absl::StrCat("'", model.neff_path,
                                                   "' is not a NEFF of model '", model.name,
                                                   "' in the model store ", dir_));
  }
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<std::string> bytes = ReadFile(model.neff_path);
  if (!bytes.ok()) {
    if (absl::IsNotFound(bytes.status())) {
      return absl::NotFoundError(absl::StrCat(bytes.status().message(), " (model ", model.name,
                                              " was replaced or removed since it was listed)"));
    }
    return bytes.status();
  }
  if (bytes->size() != model.neff_size) {
    return absl::DataLossError(absl::StrCat("NEFF ", model.neff_path, " of model ", model.name,
                                            " is ", bytes->size(), " bytes, expected ",
                                            model.neff_size));
  }
  if (std::string sha = Sha256Hex(*bytes); sha != model.neff_sha256) {
    return absl::DataLossError(absl::StrCat("NEFF ", model.neff_path, " of model ", model.name,
                                            " has SHA-256 ", sha, ", expected ",
                                            model.neff_sha256));
  }
  return bytes;
}

}  // namespace neuronserve
