// Small POSIX file helpers whose errors name the operation, the path and strerror.
#ifndef NEURON_SERVE_UTIL_POSIX_FILE_H_
#define NEURON_SERVE_UTIL_POSIX_FILE_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/scoped_fd.h"  // ScopedFd, for this header's users

namespace neuronserve {

// "cannot <what> <path>: <strerror>", with the code absl::ErrnoToStatusCode gives `error`.
absl::Status ErrnoError(int error, absl::string_view what, const std::string& path);

// Reads `path` in chunks of at most 1 MiB, handing each to `consume`, so a large file never
// needs to be in memory at once.
absl::Status ReadFileInChunks(const std::string& path,
                              const std::function<void(absl::string_view)>& consume);

// The whole file.
absl::StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace neuronserve

#endif  // NEURON_SERVE_UTIL_POSIX_FILE_H_
