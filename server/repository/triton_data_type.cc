#include "server/repository/triton_data_type.h"

namespace neuronserve {

inference::DataType TritonDataType(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32:
      return inference::TYPE_FP32;
    case DataType::kFloat16:
      return inference::TYPE_FP16;
    case DataType::kBFloat16:
      return inference::TYPE_BF16;
    case DataType::kInt8:
      return inference::TYPE_INT8;
    case DataType::kUInt8:
      return inference::TYPE_UINT8;
    case DataType::kInt16:
      return inference::TYPE_INT16;
    case DataType::kUInt16:
      return inference::TYPE_UINT16;
    case DataType::kInt32:
      return inference::TYPE_INT32;
    case DataType::kUInt32:
      return inference::TYPE_UINT32;
    case DataType::kInt64:
      return inference::TYPE_INT64;
    case DataType::kUInt64:
      return inference::TYPE_UINT64;
    case DataType::kUnknown:
    case DataType::kFp32R:
    case DataType::kFp8E3:
    case DataType::kFp8E4:
    case DataType::kFp8E5:
      break;
  }
  return inference::TYPE_INVALID;
}

std::optional<DataType> DataTypeFromTriton(inference::DataType type) {
  // Fifteen dtypes: a scan cannot disagree with TritonDataType.
  for (int i = 0; i <= static_cast<int>(DataType::kUInt64); ++i) {
    const DataType dtype = static_cast<DataType>(i);
    if (type != inference::TYPE_INVALID && TritonDataType(dtype) == type) return dtype;
  }
  return std::nullopt;
}

}  // namespace neuronserve
