#include "base/dtype.h"

#include <array>

namespace neuronserve {
namespace {

// One row per DataType, in enumerator order (so a type's row is kRows[type]).
struct DataTypeRow {
  DataType type;
  std::string_view name;
  std::string_view v2_name;
  size_t size;
  NumberKind number_kind;
  std::optional<FloatFormat> narrow_float;
  bool typed_field;
  std::string_view npy_descr;  // "" for none
  // Value in each numbering; -1 where the numbering has none.
  int sequential;
  int runtime230;
};

constexpr std::array<DataTypeRow, 16> MakeRows() {
  constexpr std::optional<FloatFormat> kNoFormat = std::nullopt;
  using enum NumberKind;  // here only: a unity batch shares the file's namespace scope
  return {{
      // type, name, v2 name, size, number kind, narrow float, typed field, npy descr, sequential
      // code, runtime 2.30 code
      {DataType::kUnknown, "unknown", "UNKNOWN", 0, kNone, kNoFormat, false, "", 0, 0x0},
      {DataType::kFloat32, "float32", "FP32", 4, kFloat, kNoFormat, true, "<f4", 1, 0xA},
      {DataType::kFloat16, "float16", "FP16", 2, kFloat, kFloat16Format, true, "<f2", 2, 0x7},
      {DataType::kBFloat16, "bfloat16", "BF16", 2, kFloat, kBFloat16Format, true, "<u2", 3, 0x6},
      {DataType::kFp32R, "fp32r", "FP32R", 4, kFloat, kNoFormat, false, "<f4", -1, 0xB},
      {DataType::kFp8E3, "fp8_e3", "FP8_E3", 1, kFloat, kFp8E3M4Format, false, "|u1", -1, 0xD},
      {DataType::kFp8E4, "fp8_e4", "FP8_E4", 1, kFloat, kFp8E4M3Format, false, "|u1", -1, 0xE},
      {DataType::kFp8E5, "fp8_e5", "FP8_E5", 1, kFloat, kFp8E5M2Format, false, "|u1", -1, 0xF},
      {DataType::kInt8, "int8", "INT8", 1, kSigned, kNoFormat, true, "|i1", 4, 0x2},
      {DataType::kUInt8, "uint8", "UINT8", 1, kUnsigned, kNoFormat, true, "|u1", 5, 0x3},
      {DataType::kInt16, "int16", "INT16", 2, kSigned, kNoFormat, true, "<i2", 6, 0x4},
      {DataType::kUInt16, "uint16", "UINT16", 2, kUnsigned, kNoFormat, true, "<u2", 7, 0x5},
      {DataType::kInt32, "int32", "INT32", 4, kSigned, kNoFormat, true, "<i4", 8, 0x8},
      {DataType::kUInt32, "uint32", "UINT32", 4, kUnsigned, kNoFormat, true, "<u4", 9, 0x9},
      {DataType::kInt64, "int64", "INT64", 8, kSigned, kNoFormat, true, "<i8", 10, 0xC},
      {DataType::kUInt64, "uint64", "UINT64", 8, kUnsigned, kNoFormat, true, "<u8", 11, 0x1},
  }};
}

constexpr std::array<DataTypeRow, 16> kRows = MakeRows();

constexpr bool RowsAreInEnumeratorOrder() {
  for (size_t i = 0; i < kRows.size(); ++i) {
    if (static_cast<size_t>(kRows[i].type) != i) return false;
  }
  return static_cast<size_t>(DataType::kUInt64) + 1 == kRows.size();
}
static_assert(RowsAreInEnumeratorOrder(), "kRows must have one row per DataType, in order");

// A value outside the enumeration (a cast from a bad integer) reads as kUnknown's row.
const DataTypeRow& RowOf(DataType type) {
  const auto index = static_cast<size_t>(type);
  return index < kRows.size() ? kRows[index] : kRows[0];
}

int ValueIn(const DataTypeRow& row, DtypeNumbering numbering) {
  return numbering == DtypeNumbering::kSequential ? row.sequential : row.runtime230;
}

}  // namespace

std::string_view DataTypeName(DataType type) { return RowOf(type).name; }

std::optional<DataType> DataTypeFromName(std::string_view name) {
  for (const DataTypeRow& row : kRows) {
    if (row.type != DataType::kUnknown && row.name == name) return row.type;
  }
  return std::nullopt;
}

size_t DataTypeSize(DataType type) { return RowOf(type).size; }

std::string_view DataTypeV2Name(DataType type) { return RowOf(type).v2_name; }

std::optional<DataType> DataTypeFromV2Name(std::string_view name) {
  for (const DataTypeRow& row : kRows) {
    if (row.type != DataType::kUnknown && row.v2_name == name) return row.type;
  }
  return std::nullopt;
}

NumberKind DataTypeNumberKind(DataType type) { return RowOf(type).number_kind; }

std::optional<FloatFormat> DataTypeNarrowFloatFormat(DataType type) {
  return RowOf(type).narrow_float;
}

bool DataTypeHasTypedField(DataType type) { return RowOf(type).typed_field; }

std::optional<std::string_view> DataTypeNpyDescr(DataType type) {
  const std::string_view descr = RowOf(type).npy_descr;
  if (descr.empty()) return std::nullopt;
  return descr;
}

DtypeNumbering DtypeNumberingForVersion(uint64_t major, uint64_t minor) {
  if (major > 2 || (major == 2 && minor >= 30)) return DtypeNumbering::kRuntime230;
  return DtypeNumbering::kSequential;
}

std::string_view DtypeNumberingName(DtypeNumbering numbering) {
  return numbering == DtypeNumbering::kSequential ? "sequential (runtime <= 2.29)" : "runtime 2.30";
}

std::optional<nrt_dtype_t> ToNrtDtype(DataType type, DtypeNumbering numbering) {
  int value = ValueIn(RowOf(type), numbering);
  if (value < 0) return std::nullopt;
  return static_cast<nrt_dtype_t>(value);
}

std::optional<DataType> FromNrtDtype(nrt_dtype_t value, DtypeNumbering numbering) {
  for (const DataTypeRow& row : kRows) {
    if (ValueIn(row, numbering) == static_cast<int>(value)) return row.type;
  }
  return std::nullopt;
}

}  // namespace neuronserve
