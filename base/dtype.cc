#include "base/dtype.h"

#include <array>

namespace neuronserve {
namespace {

struct DataTypeRow {
  DataType type;
  std::string_view name;
  size_t size;
  // Value in each numbering; -1 where the numbering has none.
  int sequential;
  int runtime230;
};

constexpr std::array<DataTypeRow, 16> kRows = {{
    {DataType::kUnknown, "unknown", 0, 0, 0x0},
    {DataType::kFloat32, "float32", 4, 1, 0xA},
    {DataType::kFloat16, "float16", 2, 2, 0x7},
    {DataType::kBFloat16, "bfloat16", 2, 3, 0x6},
    {DataType::kFp32R, "fp32r", 4, -1, 0xB},
    {DataType::kFp8E3, "fp8_e3", 1, -1, 0xD},
    {DataType::kFp8E4, "fp8_e4", 1, -1, 0xE},
    {DataType::kFp8E5, "fp8_e5", 1, -1, 0xF},
    {DataType::kInt8, "int8", 1, 4, 0x2},
    {DataType::kUInt8, "uint8", 1, 5, 0x3},
    {DataType::kInt16, "int16", 2, 6, 0x4},
    {DataType::kUInt16, "uint16", 2, 7, 0x5},
    {DataType::kInt32, "int32", 4, 8, 0x8},
    {DataType::kUInt32, "uint32", 4, 9, 0x9},
    {DataType::kInt64, "int64", 8, 10, 0xC},
    {DataType::kUInt64, "uint64", 8, 11, 0x1},
}};

const DataTypeRow& RowOf(DataType type) {
  for (const DataTypeRow& row : kRows) {
    if (row.type == type) return row;
  }
  return kRows[0];
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
