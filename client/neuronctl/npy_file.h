// Tensors in NumPy's .npy format (versions 1.0 to 3.0), the files `neuronctl infer` reads its
// inputs from and writes its outputs to, so that numpy.load / numpy.save on the other side need
// no conversion.
//
// The dtypes of Neuron tensors that numpy has are accepted, little-endian ('<', or '=' since
// native order is little-endian on every Neuron host; '|' for the one-byte ones), C order:
//   '|i1' int8   '<i2' int16   '<i4' int32   '<i8' int64   '<f2' float16
//   '|u1' uint8  '<u2' uint16  '<u4' uint32  '<u8' uint64  '<f4' float32
// numpy has no bfloat16: a bfloat16 tensor travels as '<u2', each element the format's 16 bits
// (what `array.view(numpy.uint16)` of an ml_dtypes.bfloat16 array gives). fp8 tensors likewise
// travel as '|u1' bits. Anything else ('<f8', '|b1', big-endian, Fortran order, ...) is an error
// that names the file and says what it holds instead, never a silent conversion.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_NPY_FILE_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_NPY_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "base/dtype.h"

namespace neuronserve::neuronctl {

struct NpyArray {
  std::vector<uint64_t> shape;  // empty for a 0-d array (one element)
  // The file's dtype in the form neuronctl writes it ('<f4', '|i1', '<u2', ...), and the Neuron
  // dtype it names ('<u2' is uint16; a bfloat16 tensor accepts it too).
  std::string descr;
  DataType dtype = DataType::kFloat32;
  std::vector<uint8_t> bytes;  // row-major elements, little-endian
  std::vector<float> values;   // float32 files only: the same elements as numbers
};

// The .npy dtype neuronctl reads and writes for a Neuron dtype: '<u2' for bfloat16, '|u1' for
// the fp8 formats and '<f4' for fp32r (their bits); nullopt for kUnknown, which has none.
std::optional<std::string> NpyDescrFor(DataType type);

// Parses the bytes of a .npy file; `name` (the path) is only for messages.
absl::StatusOr<NpyArray> ParseNpy(absl::string_view bytes, absl::string_view name);
// The .npy (version 1.0) encoding of a float32 array of `shape` with `values`; the element
// count must match the shape.
absl::StatusOr<std::string> EncodeNpy(absl::Span<const uint64_t> shape,
                                      absl::Span<const float> values);
// The same for elements of any dtype ParseNpy reads: `descr` is one of the list above, `bytes`
// the elements, little-endian; their size must be the shape's element count times the dtype's.
absl::StatusOr<std::string> EncodeNpy(absl::Span<const uint64_t> shape, absl::string_view descr,
                                      absl::Span<const uint8_t> bytes);

// File versions: errors name the path (NOT_FOUND, PERMISSION_DENIED, ... with strerror). Writes
// are atomic (a reader never sees half a file).
absl::StatusOr<NpyArray> ReadNpyFile(const std::string& path);
absl::Status WriteNpyFile(const std::string& path, absl::Span<const uint64_t> shape,
                          absl::Span<const float> values);
absl::Status WriteNpyFile(const std::string& path, absl::Span<const uint64_t> shape,
                          absl::string_view descr, absl::Span<const uint8_t> bytes);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_NPY_FILE_H_
