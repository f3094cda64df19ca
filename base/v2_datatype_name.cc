#include "base/v2_datatype_name.h"

#include <cctype>

namespace neuronserve {
namespace {

constexpr DataType kAllTypes[] = {
    DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16, DataType::kFp32R,
    DataType::kFp8E3,   DataType::kFp8E4,   DataType::kFp8E5,    DataType::kInt8,
    DataType::kUInt8,   DataType::kInt16,   DataType::kUInt16,   DataType::kInt32,
    DataType::kUInt32,  DataType::kInt64,   DataType::kUInt64,
};

}  // namespace

std::string V2DatatypeName(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32:
      return "FP32";
    case DataType::kFloat16:
      return "FP16";
    case DataType::kBFloat16:
      return "BF16";
    case DataType::kInt8:
      return "INT8";
    case DataType::kUInt8:
      return "UINT8";
    case DataType::kInt16:
      return "INT16";
    case DataType::kUInt16:
      return "UINT16";
    case DataType::kInt32:
      return "INT32";
    case DataType::kUInt32:
      return "UINT32";
    case DataType::kInt64:
      return "INT64";
    case DataType::kUInt64:
      return "UINT64";
    case DataType::kUnknown:
    case DataType::kFp32R:
    case DataType::kFp8E3:
    case DataType::kFp8E4:
    case DataType::kFp8E5:
      break;
  }
  std::string name(DataTypeName(dtype));
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

std::optional<DataType> DataTypeFromV2Name(std::string_view name) {
  // Fifteen names: a scan is as fast as a table and cannot disagree with V2DatatypeName.
  for (DataType type : kAllTypes) {
    if (V2DatatypeName(type) == name) return type;
  }
  return std::nullopt;
}

}  // namespace neuronserve
