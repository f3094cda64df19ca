// float32 tensors in NumPy's .npy format (versions 1.0 to 3.0), the files `neuronctl infer`
// reads its inputs from and writes its outputs to, so that numpy.load / numpy.save on the other
// side need no conversion.
//
// Only what a float32 model needs is accepted: dtype '<f4' (little-endian float32; '=f4' too,
// native order being little-endian on every Neuron host), C order. Anything else is an error
// that names the file and says what it holds instead, never a silent conversion.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_NPY_FILE_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_NPY_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace neuronserve::neuronctl {

struct NpyArray {
  std::vector<uint64_t> shape;  // empty for a 0-d array (one element)
  std::vector<float> values;    // row-major
};

// Parses the bytes of a .npy file; `name` (the path) is only for messages.
absl::StatusOr<NpyArray> ParseNpy(absl::string_view bytes, absl::string_view name);
// The .npy (version 1.0) encoding of a float32 array of `shape` with `values`; the element
// count must match the shape.
absl::StatusOr<std::string> EncodeNpy(absl::Span<const uint64_t> shape,
                                      absl::Span<const float> values);

// File versions: errors name the path (NOT_FOUND, PERMISSION_DENIED, ... with strerror). Writes
// are atomic (a reader never sees half a file).
absl::StatusOr<NpyArray> ReadNpyFile(const std::string& path);
absl::Status WriteNpyFile(const std::string& path, absl::Span<const uint64_t> shape,
                          absl::Span<const float> values);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_NPY_FILE_H_
