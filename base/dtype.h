// Tensor element types, and everything the product decides per type, as one table
// (base/dtype.cc): the element size, the lower-case name, the Open Inference Protocol's (KServe
// v2, Triton) datatype name, the libnrt code in each of its two numberings, how an element
// reads as a number (and is written in JSON), its narrow float format, whether a typed value
// field carries it, and its numpy descr. Each function below answers one question by a lookup
// in that table, so a new dtype is one new row; per-type arithmetic (converting or reading an
// element) stays code in its callers, dispatched on these answers.
//
// nrt_dtype_t was renumbered between runtime 2.29 and 2.30 without a release note: 2.29 and
// earlier number the types sequentially (FLOAT32=1, ...), 2.30 uses the new header's values
// (FLOAT32=0xA, ...). Code above the binding only sees DataType; the binding picks the numbering
// from the runtime's reported version and the simulator reports with the numbering of the
// version it claims to be.
//
// The Triton enum (inference::DataType) is not here: base depends on neither gRPC nor protobuf,
// so server/repository maps it.
//
// Thread safety: pure functions of a constant table; call them from any thread.
#ifndef NEURON_SERVE_BASE_DTYPE_H_
#define NEURON_SERVE_BASE_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "base/float_formats.h"
#include "base/nrt_abi.h"

namespace neuronserve {

// The enumerators are in the order of the table's rows (checked at compile time there);
// kUInt64 is the last.
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

// The Open Inference Protocol's datatype name: "FP32", "FP16", "BF16", "INT8".."INT64",
// "UINT8".."UINT64" (Triton's enum is "TYPE_" and the same name); for a dtype the protocol has
// no name for (fp8, fp32r, unknown), its DataTypeName upper-cased ("FP8_E4", "FP32R",
// "UNKNOWN"), which is how neuron-serve reports such tensors.
std::string_view DataTypeV2Name(DataType type);
// Inverse of DataTypeV2Name; nullopt for "UNKNOWN" and for any other name (BOOL, FP64 and
// BYTES included: no tensor dtype is one of them).
std::optional<DataType> DataTypeFromV2Name(std::string_view name);

// What number an element is: how a client prints it and JSON writes it.
enum class NumberKind {
  kNone,      // kUnknown: its bytes are not a known number
  kFloat,     // float32, float16, bfloat16, fp32r, fp8 (every value is a float32 value)
  kSigned,    // int8..int64, two's complement
  kUnsigned,  // uint8..uint64
};
NumberKind DataTypeNumberKind(DataType type);

// The encoding of a float type narrower than float32 (float16, bfloat16, the three fp8); nullopt
// for float32 and fp32r (float32 bits) and for every non-float type.
std::optional<FloatFormat> DataTypeNarrowFloatFormat(DataType type);

// True when a typed value field of the native API carries the dtype (float_data for float32,
// float16, bfloat16; the 32- or 64-bit integer fields for the integers); false for fp32r, fp8
// and kUnknown, which travel only as raw bytes.
bool DataTypeHasTypedField(DataType type);

// The numpy descr neuronctl reads and writes for the dtype: numpy's own for float32, float16 and
// the integers ("<f4", "|i1", "<u8", ...), and for the others their bits: "<u2" for bfloat16,
// "|u1" for fp8, "<f4" for fp32r; nullopt for kUnknown.
std::optional<std::string_view> DataTypeNpyDescr(DataType type);

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
