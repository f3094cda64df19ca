// Tensor element types, and the two numberings libnrt has used for them.
//
// nrt_dtype_t was renumbered between runtime 2.29 and 2.30 without a release note: 2.29 and
// earlier number the types sequentially (FLOAT32=1, ...), 2.30 uses the new header's values
// (FLOAT32=0xA, ...). Code above the binding only sees DataType; the binding picks the numbering
// from the runtime's reported version and the simulator reports with the numbering of the
// version it claims to be.
#ifndef NEURON_SERVE_BASE_DTYPE_H_
#define NEURON_SERVE_BASE_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "base/nrt_abi.h"

namespace neuronserve {

enum class DataType {
  kUnknown,
  kFloat32,
  kFloat16,
  kBFloat16,
  kFp32R,
  kFp8E3,
  kFp8E4,
  kFp8E5,
  kInt8,
  kUInt8,
  kInt16,
  kUInt16,
  kInt32,
  kUInt32,
  kInt64,
  kUInt64,
};

// Lower-case name: "float32", "bfloat16", "fp8_e4", "int32", ...; "unknown" for kUnknown.
std::string_view DataTypeName(DataType type);
// Inverse of DataTypeName; nullopt for a name that is not a known type (including "unknown").
std::optional<DataType> DataTypeFromName(std::string_view name);
// Bytes per element; 0 for kUnknown.
size_t DataTypeSize(DataType type);

enum class DtypeNumbering {
  kSequential,  // runtime <= 2.29 (nrt_experimental.h, also SDK 2.7)
  kRuntime230,  // runtime >= 2.30 (nrt.h)
};

DtypeNumbering DtypeNumberingForVersion(uint64_t major, uint64_t minor);
std::string_view DtypeNumberingName(DtypeNumbering numbering);

// kUnknown maps to 0 in both numberings. A type the numbering has no value for
// (e.g. FP8 in the sequential table) gives nullopt.
std::optional<nrt_dtype_t> ToNrtDtype(DataType type, DtypeNumbering numbering);
// A value the numbering does not define gives nullopt.
std::optional<DataType> FromNrtDtype(nrt_dtype_t value, DtypeNumbering numbering);

}  // namespace neuronserve

#endif  // NEURON_SERVE_BASE_DTYPE_H_
