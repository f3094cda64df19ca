// ModelStore: the daemon's persistent record of the models loaded through the API
// (--state-dir), so that they load again after a restart, even after kill -9 or a power cut.
//
// On-disk layout under `dir`:
//
//   LOCK                                  flock()ed while a ModelStore has the directory open
//   models/<name>/record.json             the model's record (below); its presence is the commit
//   models/<name>/<sha16>-<unique>.neff   a NEFF the record points to (one, or one per variant
//                                         of a batched model)
//   models/<name>/.<target>.<unique>.tmp  a write in progress (leftover of a crash if seen at Open)
//
// <name> passed ValidateModelName, so it is a single path component that cannot start with '.'.
// <sha16> is the first 16 hex digits of the NEFF's SHA-256 and <unique> is fresh for every save,
// so a new NEFF never overwrites the file the current record points to, even when the bytes are
// the same.
//
// record.json is the model's ModelRecord (its format: model_record.h).
//
// Every file is written atomically (util/durable_file.h): a temp file in the same directory,
// write, fsync, rename over the final name, fsync the directory. Save writes the new NEFFs first
// and the record second, and deletes the old NEFFs only after the new record is durable. A crash
// therefore leaves either
//   - the old record, pointing at the old NEFFs, which nothing touched (plus maybe a temp file or
//     unreferenced new NEFFs), or
//   - the new record, pointing at the new NEFFs, which were durable before the record was renamed
//     (plus maybe the unreferenced old ones).
// Remove deletes the record first, so a crash leaves at worst unreferenced NEFFs. Open deletes
// what a crash can leave behind: temp files, NEFFs no record points to, and model directories
// with neither. List re-verifies size and SHA-256 of every NEFF, so a model with a file damaged
// behind the store's back is skipped and reported rather than loaded.
//
// tests/e2e/crash_points_e2e_test.cc kills the daemon between these steps (the test-only crash
// points of util/crash_point.h: store.neffs-durable, store.record-temp-written,
// store.record-durable, store.record-removed) and checks what the next Open and List make of it.
//
// The LOCK makes a second daemon on the same --state-dir fail at Open instead of deleting the
// first one's in-flight temp files. The kernel drops the lock when the process dies, kill -9
// included.
#ifndef NEURON_SERVE_CORE_LIFECYCLE_MODEL_STORE_H_
#define NEURON_SERVE_CORE_LIFECYCLE_MODEL_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "base/mutex.h"
#include "core/lifecycle/model_record.h"

namespace neuronserve {

struct StoredNeff {
  uint32_t batch_size = 0;  // 0: the model's one NEFF; else the variant's batch size
  std::string path;         // absolute
  uint64_t size = 0;
  std::string sha256;  // lower-case hex
};

struct StoredModel {
  std::string name;
  std::string version;      // may be empty
  std::string config_text;  // opaque to the store (the server keeps a ModelConfig in text format)
  std::vector<StoredNeff> neffs;  // as saved: one of batch 0, or the variants in their order
};

// One NEFF for Save.
struct NeffToSave {
  uint32_t batch_size = 0;  // 0: the model's one NEFF; else a variant's batch size (distinct)
  absl::Span<const uint8_t> bytes;
  // The SHA-256 of `bytes` (64 lower-case hex digits) when the caller already has it, e.g. an
  // upload that hashed the bytes as they arrived and checked them against the client's digest:
  // the record then holds it as given and the bytes are not hashed again. Empty: Save hashes
  // them (a repository load, whose bytes were read from disk and hashed by no one). A given
  // digest that is not of `bytes` is a caller's bug, and it cannot go unnoticed: List and
  // ReadNeffs hash the stored file against the record every time they read it, so such a model
  // is skipped and reported with both digests, never loaded.
  std::string sha256;
};

// Thread-safe: every call holds one mutex, so a List never sees a Save or Remove half done (and a
// long List delays a Save; callers are few: startup, Load and Unload). Owns the lock on `dir`
// for its lifetime; the StoredModels it returns are copies.
class ModelStore {
 public:
  // Creates `dir` (and parents) if needed and locks it; deletes leftovers of interrupted writes
  // (temp files) and NEFF files no record points to, logging each removal. `dir` may be
  // relative; dir() is absolute. FAILED_PRECONDITION if another ModelStore (in this or another
  // process) has `dir` open. Errors name the path and the system's reason.
  static absl::StatusOr<std::unique_ptr<ModelStore>> Open(const std::string& dir);

  ModelStore(const ModelStore&) = delete;
  ModelStore& operator=(const ModelStore&) = delete;
  ~ModelStore();  // releases the lock

  // Records (or replaces) the model `name`: writes its NEFFs and then the record, each
  // atomically; replacing keeps the old NEFFs until the new record is in place, then deletes
  // them. `neffs`: one of batch 0, or the variants of a batched model (each of a distinct batch
  // size >= 1).
  //
  // INVALID_ARGUMENT for a name or version that fails ValidateModelName/ValidateModelVersion, a
  // non-empty sha256 that is not 64 lower-case hex digits, or `neffs` other than the above.
  absl::Status Save(const std::string& name, const std::string& version,
                    const std::vector<NeffToSave>& neffs, const std::string& config_text);
  // A model of one NEFF: Save with {0, neff, neff_sha256}.
  absl::Status Save(const std::string& name, const std::string& version,
                    absl::Span<const uint8_t> neff, const std::string& config_text,
                    absl::string_view neff_sha256 = {});

  // Removes the record, then its NEFFs and the model's directory. NOT_FOUND if there is no
  // record.
  absl::Status Remove(const std::string& name);

  // Every complete model, sorted by name. A record that cannot be read or parsed, or one of whose
  // NEFFs is missing or does not match its size and SHA-256, is skipped with a warning log line
  // and described in `problems` (if non-null). Errors only when models/ itself cannot be read.
  absl::StatusOr<std::vector<StoredModel>> List(std::vector<std::string>* problems = nullptr) const;

  // The bytes of every NEFF of a model from List, in its order, each re-verified against its
  // size and SHA-256 (DATA_LOSS if they changed). NOT_FOUND if the model was replaced or removed
  // since; INVALID_ARGUMENT for a path that is not a NEFF of this store.
  absl::StatusOr<std::vector<std::string>> ReadNeffs(const StoredModel& model) const;

  const std::string& dir() const { return dir_; }

 private:
  ModelStore(std::string dir, int lock_fd);

  std::string ModelDir(const std::string& name) const;
  // One verified NEFF of ReadNeffs.
  absl::StatusOr<std::string> ReadNeff(const StoredModel& model, const StoredNeff& neff) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes one NEFF of Save under a fresh name in `model_dir`: its RecordedNeff, or the error
  // (after removing what it wrote).
  absl::StatusOr<RecordedNeff> WriteNeff(const std::string& model_dir, const NeffToSave& neff)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Open's sweep of one model directory.
  absl::Status CleanModelDir(const std::string& name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A fresh suffix for a NEFF or temp file name.
  std::string UniqueSuffix() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A fresh temp file name for writing `target` in a model directory: ".<target>.<unique>.tmp".
  std::string TempFileName(const std::string& target) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string dir_;         // absolute, no trailing '/'
  const std::string models_dir_;  // dir_ + "/models"
  const int lock_fd_;

  // Besides next_unique_, mu_ guards the directory tree under models_dir_: every read or change
  // of it holds mu_, which is what makes Save, Remove and List atomic to each other.
  mutable Mutex mu_;
  // Makes NEFF and temp file names unique within this process (with the time and pid).
  uint64_t next_unique_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_LIFECYCLE_MODEL_STORE_H_
