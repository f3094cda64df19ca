// Reading the client's local files (tokens, TLS material, NEFFs) with errors that name the path
// and map errno onto the canonical codes callers branch on (NOT_FOUND, PERMISSION_DENIED).
#ifndef NEURON_SERVE_CLIENT_LIB_FILE_CONTENTS_H_
#define NEURON_SERVE_CLIENT_LIB_FILE_CONTENTS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace neuronserve::client {

// An error for `operation` ("open", "read", ...) on `path` that failed with `error` (an errno
// value): ENOENT/ENOTDIR -> NOT_FOUND, EACCES/EPERM -> PERMISSION_DENIED, others via absl's map.
absl::Status FileError(const std::string& path, const char* operation, int error);

// The whole file.
absl::StatusOr<std::string> ReadFileContents(const std::string& path);

// A regular file read front to back in pieces, so that a NEFF of hundreds of MiB is never held
// in memory whole. Move-only; closes the file on destruction.
class FileReader {
 public:
  static absl::StatusOr<FileReader> Open(const std::string& path);
  FileReader(FileReader&& other) noexcept;
  FileReader& operator=(FileReader&& other) noexcept;
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;
  ~FileReader();

  // The size when opened.
  uint64_t size() const { return size_; }
  // Fills `buffer` as far as the file allows; returns the bytes read, 0 at the end.
  absl::StatusOr<size_t> Read(absl::Span<uint8_t> buffer);
  // Back to the first byte.
  absl::Status Rewind();

 private:
  FileReader(std::string path, int fd, uint64_t size);

  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_FILE_CONTENTS_H_
