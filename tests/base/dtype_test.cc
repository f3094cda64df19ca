#include "base/dtype.h"

#include "gtest/gtest.h"

namespace neuronserve {
namespace {

TEST(DtypeTest, Runtime230Numbering) {
  const auto n = DtypeNumbering::kRuntime230;
  EXPECT_EQ(*ToNrtDtype(DataType::kFloat32, n), 0xAu);
  EXPECT_EQ(*ToNrtDtype(DataType::kBFloat16, n), 0x6u);
  EXPECT_EQ(*ToNrtDtype(DataType::kUInt64, n), 0x1u);
  EXPECT_EQ(*ToNrtDtype(DataType::kFp8E5, n), 0xFu);
  EXPECT_EQ(*FromNrtDtype(0x8, n), DataType::kInt32);
  EXPECT_FALSE(FromNrtDtype(0x10, n).has_value());
}

TEST(DtypeTest, SequentialNumbering) {
  const auto n = DtypeNumbering::kSequential;
  EXPECT_EQ(*ToNrtDtype(DataType::kFloat32, n), 1u);
  EXPECT_EQ(*ToNrtDtype(DataType::kUInt64, n), 11u);
  EXPECT_EQ(*FromNrtDtype(3, n), DataType::kBFloat16);
  // FP8 did not exist in the sequential table.
  EXPECT_FALSE(ToNrtDtype(DataType::kFp8E4, n).has_value());
  EXPECT_FALSE(FromNrtDtype(12, n).has_value());
}

TEST(DtypeTest, EveryTypeRoundTripsInEveryNumberingThatHasIt) {
  for (auto n : {DtypeNumbering::kSequential, DtypeNumbering::kRuntime230}) {
    for (nrt_dtype_t value = 0; value < 32; ++value) {
      auto type = FromNrtDtype(value, n);
      if (!type.has_value()) continue;
      EXPECT_EQ(*ToNrtDtype(*type, n), value);
      if (*type != DataType::kUnknown) {
        EXPECT_EQ(DataTypeFromName(DataTypeName(*type)), type) << DataTypeName(*type);
      }
    }
  }
}

TEST(DtypeTest, VersionPicksNumbering) {
  EXPECT_EQ(DtypeNumberingForVersion(2, 29), DtypeNumbering::kSequential);
  EXPECT_EQ(DtypeNumberingForVersion(2, 7), DtypeNumbering::kSequential);
  EXPECT_EQ(DtypeNumberingForVersion(2, 30), DtypeNumbering::kRuntime230);
  EXPECT_EQ(DtypeNumberingForVersion(3, 0), DtypeNumbering::kRuntime230);
}

TEST(DtypeTest, NamesAndSizes) {
  EXPECT_EQ(DataTypeName(DataType::kFloat32), "float32");
  EXPECT_EQ(*DataTypeFromName("int32"), DataType::kInt32);
  EXPECT_FALSE(DataTypeFromName("float").has_value());
  EXPECT_FALSE(DataTypeFromName("unknown").has_value());
  EXPECT_EQ(DataTypeSize(DataType::kFloat32), 4u);
  EXPECT_EQ(DataTypeSize(DataType::kBFloat16), 2u);
  EXPECT_EQ(DataTypeSize(DataType::kInt64), 8u);
  EXPECT_EQ(DataTypeSize(DataType::kFp8E4), 1u);
}

}  // namespace
}  // namespace neuronserve
