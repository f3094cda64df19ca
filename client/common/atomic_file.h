// Writing a file so that readers see either the old contents or the complete new contents,
// never a prefix: a daemon may be loading a model file while neuronctl rewrites it.
#ifndef NEURON_SERVE_CLIENT_COMMON_ATOMIC_FILE_H_
#define NEURON_SERVE_CLIENT_COMMON_ATOMIC_FILE_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace neuronserve {

// Writes `contents` to a new temporary file in the directory of `path`, fsyncs it, renames it
// over `path` and fsyncs the directory. On failure the temporary file is removed, `path` is
// left as it was, and the error names the path and the failing step (with strerror).
// The new file gets mode 0666 minus the umask, as an ordinary create would.
absl::Status WriteFileAtomically(absl::string_view path, absl::string_view contents);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CLIENT_COMMON_ATOMIC_FILE_H_
