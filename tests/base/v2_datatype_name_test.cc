// The v2 datatype names both ways: every dtype's name, the inverse, and the names no tensor
// dtype has (BOOL, FP64, BYTES, lower-case names) that the inverse refuses.
#include "base/v2_datatype_name.h"

#include "gtest/gtest.h"

namespace neuronserve {
namespace {

TEST(V2DatatypeNameTest, EveryDtypeHasItsName) {
  EXPECT_EQ(V2DatatypeName(DataType::kFloat32), "FP32");
  EXPECT_EQ(V2DatatypeName(DataType::kFloat16), "FP16");
  EXPECT_EQ(V2DatatypeName(DataType::kBFloat16), "BF16");
  EXPECT_EQ(V2DatatypeName(DataType::kInt8), "INT8");
  EXPECT_EQ(V2DatatypeName(DataType::kInt16), "INT16");
  EXPECT_EQ(V2DatatypeName(DataType::kInt32), "INT32");
  EXPECT_EQ(V2DatatypeName(DataType::kInt64), "INT64");
  EXPECT_EQ(V2DatatypeName(DataType::kUInt8), "UINT8");
  EXPECT_EQ(V2DatatypeName(DataType::kUInt16), "UINT16");
  EXPECT_EQ(V2DatatypeName(DataType::kUInt32), "UINT32");
  EXPECT_EQ(V2DatatypeName(DataType::kUInt64), "UINT64");
  // No v2 name: the NRT name upper-cased.
  EXPECT_EQ(V2DatatypeName(DataType::kFp8E4), "FP8_E4");
  EXPECT_EQ(V2DatatypeName(DataType::kFp32R), "FP32R");
  EXPECT_EQ(V2DatatypeName(DataType::kUnknown), "UNKNOWN");
}

TEST(V2DatatypeNameTest, InverseOfEveryKnownDtype) {
  for (DataType type : {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16,
                        DataType::kFp32R, DataType::kFp8E3, DataType::kFp8E4, DataType::kFp8E5,
                        DataType::kInt8, DataType::kUInt8, DataType::kInt16, DataType::kUInt16,
                        DataType::kInt32, DataType::kUInt32, DataType::kInt64, DataType::kUInt64}) {
    EXPECT_EQ(DataTypeFromV2Name(V2DatatypeName(type)), type) << V2DatatypeName(type);
  }
}

TEST(V2DatatypeNameTest, NamesOfNoTensorDtype) {
  for (const char* name : {"UNKNOWN", "BOOL", "FP64", "BYTES", "fp32", "float32", ""}) {
    EXPECT_EQ(DataTypeFromV2Name(name), std::nullopt) << name;
  }
}

}  // namespace
}  // namespace neuronserve
