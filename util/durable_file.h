// Durable file writes and the directory operations they need. Readers, and a crash or power cut,
// see a file written here with its old contents (or absent) or its complete new contents, never
// a prefix: write a temp file in the same directory, fsync, rename over the final name, fsync the
// directory.
// The daemon's model store keeps its records and NEFFs this way; neuronctl writes its model and
// .npy files this way, because a daemon may be loading a file while neuronctl rewrites it.
//
// Errors are ErrnoError's (util/posix_file.h): "cannot <operation> <path>: <strerror>", with the
// status code the errno maps to. Thread-safe: no state is shared but an atomic counter of temp
// file names. Concurrent writers of one path each put a complete file in place; the last rename
// wins.
#ifndef NEURON_SERVE_UTIL_DURABLE_FILE_H_
#define NEURON_SERVE_UTIL_DURABLE_FILE_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace neuronserve {

// What lstat says is at a path (a symlink is kOther: it is not followed).
enum class FileKind { kAbsent, kRegular, kDirectory, kOther };

// Errors other than ENOENT, which is kAbsent.
absl::StatusOr<FileKind> GetFileKind(const std::string& path);

// Makes the entries created, renamed or removed in `dir` durable.
absl::Status FsyncDir(const std::string& dir);

// mkdir -p (mode 0755), syncing the parent of every directory it creates so that the new entry
// survives a crash. Follows symlinks: a symlink to a directory is a directory. When `path` or an
// ancestor exists but is not a directory: FAILED_PRECONDITION "cannot create directory <path>:
// <ancestor> exists and is not a directory".
absl::Status MakeDirs(const std::string& path);

// The names in `dir` other than "." and "..", sorted.
absl::StatusOr<std::vector<std::string>> ListDir(const std::string& dir);

// Writes `contents` to `path` through the temp file `temp_path`, which must not exist and must be
// in the same directory as `path` (rename is atomic only within one file system): create it
// (`mode` minus the umask), write, fsync, close, rename it over `path`, fsync the directory.
// An error before the rename removes the temp file and leaves `path` as it was; the error names
// the step, the temp file and `path`. `*renamed` tells whether the rename happened, which matters
// when the one step after it, the directory fsync, fails: `path` may then already hold the new
// contents, and may lose them (the rename) in a crash. `crash_point`: a test-only crash point
// (util/crash_point.h) reached once the temp file is complete and closed, just before the
// rename; nullptr: none.
absl::Status WriteFileAtomically(const std::string& path, const std::string& temp_path,
                                 absl::string_view contents, mode_t mode, bool* renamed,
                                 const char* crash_point = nullptr);

// As above with a temp file name of its own (".<file name>.tmp-<pid>-<counter>" next to `path`)
// and mode 0666 minus the umask, as an ordinary create would. Once the rename succeeded the
// write is reported successful even if the directory fsync fails: the file is in place, and a
// caller could do nothing about it. INVALID_ARGUMENT for a path that names no file ("", "dir/").
absl::Status WriteFileAtomically(absl::string_view path, absl::string_view contents);

}  // namespace neuronserve

#endif  // NEURON_SERVE_UTIL_DURABLE_FILE_H_
