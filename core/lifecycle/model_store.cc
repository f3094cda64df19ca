#include "core/lifecycle/model_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <functional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/lifecycle/model_name.h"
#include "core/lifecycle/model_record.h"
#include "core/lifecycle/model_store_layout.h"
#include "spdlog/spdlog.h"
#include "util/crash_point.h"
#include "util/durable_file.h"
#include "util/posix_file.h"
#include "util/sha256.h"

namespace neuronserve {
namespace {

using model_store_layout::IsTempName;
using model_store_layout::JoinPath;
using model_store_layout::kTempSuffix;

constexpr mode_t kFileMode = 0644;

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

// Removes the regular files of `model_dir` whose names `unwanted` accepts, logging `why` for each,
// and returns how many went. Nothing is removed when the directory cannot be listed: what is left
// is unreferenced, and Open sweeps it.
size_t RemoveFilesWhere(const std::string& model_dir,
                        const std::function<bool(const std::string&)>& unwanted,
                        absl::string_view why) {
  absl::StatusOr<std::vector<std::string>> entries = ListDir(model_dir);
  if (!entries.ok()) return 0;
  size_t removed = 0;
  for (const std::string& entry : *entries) {
    std::string path = JoinPath(model_dir, entry);
    absl::StatusOr<FileKind> kind = GetFileKind(path);
    if (kind.ok() && *kind == FileKind::kRegular && unwanted(entry)) {
      removed += RemoveFile(path, why) ? 1 : 0;
    }
  }
  return removed;
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

std::string ModelStore::TempFileName(const std::string& target) {
  return absl::StrCat(".", target, ".", UniqueSuffix(), kTempSuffix);
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
    MutexLock lock(&store->mu_);
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

  bool has_record =
      std::find(entries->begin(), entries->end(), kModelRecordFileName) != entries->end();
  std::vector<std::string> referenced;  // the NEFFs the record points to
  bool record_ok = false;
  if (has_record) {
    absl::StatusOr<ModelRecord> record = ReadModelRecord(JoinPath(model_dir, kModelRecordFileName));
    if (record.ok() && record->name != name) {
      record =
          absl::DataLossError(absl::StrCat("record ", JoinPath(model_dir, kModelRecordFileName),
                                           " names the model '", record->name, "'"));
    }
    if (record.ok()) {
      for (const RecordedNeff& neff : record->neffs) referenced.push_back(neff.file);
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
    } else if (regular && IsNeffFileName(entry) && !has_record) {
      removed += RemoveFile(path, "NEFF without a record") ? 1 : 0;
    } else if (regular && IsNeffFileName(entry) && record_ok &&
               std::find(referenced.begin(), referenced.end(), entry) == referenced.end()) {
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
                              absl::Span<const uint8_t> neff, const std::string& config_text,
                              absl::string_view neff_sha256) {
  return Save(name, version, {NeffToSave{0, neff, std::string(neff_sha256)}}, config_text);
}

absl::Status ModelStore::Save(const std::string& name, const std::string& version,
                              const std::vector<NeffToSave>& neffs,
                              const std::string& config_text) {
  if (absl::Status valid = ValidateModelName(name); !valid.ok()) return valid;
  if (absl::Status valid = ValidateModelVersion(version); !valid.ok()) return valid;
  const bool one_neff = neffs.size() == 1 && neffs.front().batch_size == 0;
  for (size_t i = 0; i < neffs.size(); ++i) {
    const NeffToSave& neff = neffs[i];
    if (!neff.sha256.empty() && !IsSha256Hex(neff.sha256)) {
      return absl::InvalidArgumentError(absl::StrCat("model '", name, "': the given SHA-256 '",
                                                     neff.sha256,
                                                     "' is not 64 lower-case hex digits"));
    }
    bool repeated = false;
    for (size_t j = 0; j < i; ++j) repeated |= neffs[j].batch_size == neff.batch_size;
    if (!one_neff && (neff.batch_size == 0 || repeated)) {
      return absl::InvalidArgumentError(
          absl::StrCat("model '", name,
                       "': a store record holds one NEFF of batch 0 or variants of "
                       "distinct batch sizes >= 1; NEFF ",
                       i + 1, " has batch ", neff.batch_size));
    }
  }
  if (neffs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("model '", name, "': no NEFF to save"));
  }

  MutexLock lock(&mu_);
  std::string model_dir = ModelDir(name);
  if (absl::Status made = MakeDirs(model_dir); !made.ok()) return made;

  ModelRecord record;
  record.name = name;
  record.version = version;
  record.config_text = config_text;
  // 1. The NEFFs, each durable under its final name before any record mentions it.
  auto remove_written = [&] {
    for (const RecordedNeff& written : record.neffs) {
      RemoveFile(JoinPath(model_dir, written.file), "NEFF of a failed save");
    }
  };
  for (const NeffToSave& neff : neffs) {
    absl::StatusOr<RecordedNeff> written = WriteNeff(model_dir, neff);
    if (!written.ok()) {
      remove_written();
      return written.status();
    }
    record.neffs.push_back(*std::move(written));
  }
  CrashPoint(kCrashStoreNeffsDurable);

  // 2. The record: its rename is the commit point.
  std::string record_text = SerializeModelRecord(record, absl::Now());
  bool renamed = false;
  absl::Status written =
      WriteFileAtomically(JoinPath(model_dir, kModelRecordFileName),
                          JoinPath(model_dir, TempFileName(kModelRecordFileName)), record_text,
                          kFileMode, &renamed, kCrashStoreRecordTempWritten);
  if (!written.ok()) {
    // Before the rename the old record (if any) still stands and the new NEFFs are orphans.
    // After it, the new record may be the one on disk: keep its NEFFs.
    if (!renamed) remove_written();
    return written;
  }
  CrashPoint(kCrashStoreRecordDurable);

  // 3. Only now are the previous NEFFs (and any orphan of an earlier crash) unreferenced.
  auto is_new = [&](const std::string& entry) {
    return std::any_of(record.neffs.begin(), record.neffs.end(),
                       [&](const RecordedNeff& neff) { return neff.file == entry; });
  };
  size_t removed = RemoveFilesWhere(
      model_dir, [&](const std::string& entry) { return !is_new(entry) && IsNeffFileName(entry); },
      "replaced by the model's new record");
  if (removed > 0) {
    if (absl::Status synced = FsyncDir(model_dir); !synced.ok()) {
      // The new model is committed; an old NEFF that reappears after a crash is swept by Open.
      spdlog::warn("model store: {}", std::string(synced.message()));
    }
  }
  for (const RecordedNeff& neff : record.neffs) {
    spdlog::info("model store: saved model {} version '{}'{} ({} bytes, sha256 {}) in {}", name,
                 version,
                 neff.batch_size == 0 ? "" : absl::StrCat(", variant of batch ", neff.batch_size),
                 neff.size, neff.sha256, model_dir);
  }
  return absl::OkStatus();
}

absl::StatusOr<RecordedNeff> ModelStore::WriteNeff(const std::string& model_dir,
                                                   const NeffToSave& neff) {
  RecordedNeff recorded;
  recorded.batch_size = neff.batch_size;
  recorded.size = neff.bytes.size();
  // One pass over the bytes per upload: the uploader's verified digest when there is one.
  recorded.sha256 = neff.sha256.empty() ? Sha256Hex(neff.bytes) : neff.sha256;
  while (true) {
    recorded.file =
        absl::StrCat(recorded.sha256.substr(0, 16), "-", UniqueSuffix(), kNeffFileSuffix);
    absl::StatusOr<FileKind> kind = GetFileKind(JoinPath(model_dir, recorded.file));
    if (!kind.ok()) return kind.status();
    if (*kind == FileKind::kAbsent) break;
  }
  const std::string path = JoinPath(model_dir, recorded.file);
  bool renamed = false;
  absl::Status written = WriteFileAtomically(
      path, JoinPath(model_dir, TempFileName(recorded.file)),
      absl::string_view(reinterpret_cast<const char*>(neff.bytes.data()), neff.bytes.size()),
      kFileMode, &renamed);
  if (!written.ok()) {
    if (renamed) RemoveFile(path, "NEFF of a failed save");
    return written;
  }
  return recorded;
}

absl::Status ModelStore::Remove(const std::string& name) {
  if (absl::Status valid = ValidateModelName(name); !valid.ok()) return valid;

  MutexLock lock(&mu_);
  std::string model_dir = ModelDir(name);
  std::string record_path = JoinPath(model_dir, kModelRecordFileName);
  absl::StatusOr<FileKind> kind = GetFileKind(record_path);
  if (!kind.ok()) return kind.status();
  if (*kind == FileKind::kAbsent) {
    return absl::NotFoundError(absl::StrCat("no stored model named '", name, "' in ", dir_));
  }

  // 1. The record: once it is gone (durably), the model is gone.
  if (unlink(record_path.c_str()) != 0) return ErrnoError(errno, "remove", record_path);
  if (absl::Status synced = FsyncDir(model_dir); !synced.ok()) return synced;
  CrashPoint(kCrashStoreRecordRemoved);

  // 2. What is left is unreferenced: NEFFs and temp files. Failures leave orphans for Open.
  RemoveFilesWhere(
      model_dir,
      [](const std::string& entry) { return IsNeffFileName(entry) || IsTempName(entry); },
      absl::StrCat("model ", name, " removed"));
  if (rmdir(model_dir.c_str()) != 0) {
    spdlog::warn("model store: {}",
                 std::string(ErrnoError(errno, "remove directory", model_dir).message()));
  } else if (absl::Status synced = FsyncDir(models_dir_); !synced.ok()) {
    spdlog::warn("model store: {}", std::string(synced.message()));
  }
  spdlog::info("model store: removed model {} from {}", name, dir_);
  return absl::OkStatus();
}

}  // namespace neuronserve