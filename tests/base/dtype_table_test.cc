// Every row of the dtype table (base/dtype.cc), column by column against an expectation written
// out here independently, and the round trips between a dtype and each of its names and codes.
#include <cctype>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "base/dtype.h"
#include "gtest/gtest.h"

namespace neuronserve {
namespace dtype_table_test {
namespace {

constexpr int kTypeCount = static_cast<int>(DataType::kUInt64) + 1;

DataType TypeAt(int index) { return static_cast<DataType>(index); }

struct ExpectedRow {
  DataType type;
  std::string_view name;
  std::string_view v2_name;
  size_t size;
  NumberKind kind;
  std::optional<FloatFormat> narrow_float;
  bool typed_field;
  std::optional<std::string_view> npy_descr;
  std::optional<nrt_dtype_t> sequential;
  std::optional<nrt_dtype_t> runtime230;
};

constexpr std::optional<FloatFormat> kNoFormat = std::nullopt;
constexpr std::optional<nrt_dtype_t> kNoCode = std::nullopt;

const ExpectedRow kExpected[] = {
    {DataType::kUnknown, "unknown", "UNKNOWN", 0, NumberKind::kNone, kNoFormat, false, std::nullopt,
     0, 0x0},
    {DataType::kFloat32, "float32", "FP32", 4, NumberKind::kFloat, kNoFormat, true, "<f4", 1, 0xA},
    {DataType::kFloat16, "float16", "FP16", 2, NumberKind::kFloat, kFloat16Format, true, "<f2", 2,
     0x7},
    {DataType::kBFloat16, "bfloat16", "BF16", 2, NumberKind::kFloat, kBFloat16Format, true, "<u2",
     3, 0x6},
    {DataType::kFp32R, "fp32r", "FP32R", 4, NumberKind::kFloat, kNoFormat, false, "<f4", kNoCode,
     0xB},
    {DataType::kFp8E3, "fp8_e3", "FP8_E3", 1, NumberKind::kFloat, kFp8E3M4Format, false, "|u1",
     kNoCode, 0xD},
    {DataType::kFp8E4, "fp8_e4", "FP8_E4", 1, NumberKind::kFloat, kFp8E4M3Format, false, "|u1",
     kNoCode, 0xE},
    {DataType::kFp8E5, "fp8_e5", "FP8_E5", 1, NumberKind::kFloat, kFp8E5M2Format, false, "|u1",
     kNoCode, 0xF},
    {DataType::kInt8, "int8", "INT8", 1, NumberKind::kSigned, kNoFormat, true, "|i1", 4, 0x2},
    {DataType::kUInt8, "uint8", "UINT8", 1, NumberKind::kUnsigned, kNoFormat, true, "|u1", 5, 0x3},
    {DataType::kInt16, "int16", "INT16", 2, NumberKind::kSigned, kNoFormat, true, "<i2", 6, 0x4},
    {DataType::kUInt16, "uint16", "UINT16", 2, NumberKind::kUnsigned, kNoFormat, true, "<u2", 7,
     0x5},
    {DataType::kInt32, "int32", "INT32", 4, NumberKind::kSigned, kNoFormat, true, "<i4", 8, 0x8},
    {DataType::kUInt32, "uint32", "UINT32", 4, NumberKind::kUnsigned, kNoFormat, true, "<u4", 9,
     0x9},
    {DataType::kInt64, "int64", "INT64", 8, NumberKind::kSigned, kNoFormat, true, "<i8", 10, 0xC},
    {DataType::kUInt64, "uint64", "UINT64", 8, NumberKind::kUnsigned, kNoFormat, true, "<u8", 11,
     0x1},
};
static_assert(std::size(kExpected) == kTypeCount, "one expected row per DataType");

bool SameFormat(const std::optional<FloatFormat>& a, const std::optional<FloatFormat>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->exponent_bits == b->exponent_bits && a->mantissa_bits == b->mantissa_bits &&
                a->specials == b->specials);
}

std::string UpperCased(std::string_view text) {
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

TEST(DtypeTableTest, EveryRowHasTheExpectedColumns) {
  for (const ExpectedRow& row : kExpected) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(DataTypeName(row.type), row.name);
    EXPECT_EQ(DataTypeV2Name(row.type), row.v2_name);
    EXPECT_EQ(DataTypeSize(row.type), row.size);
    EXPECT_EQ(DataTypeNumberKind(row.type), row.kind);
    EXPECT_TRUE(SameFormat(DataTypeNarrowFloatFormat(row.type), row.narrow_float));
    EXPECT_EQ(DataTypeHasTypedField(row.type), row.typed_field);
    EXPECT_EQ(DataTypeNpyDescr(row.type), row.npy_descr);
    EXPECT_EQ(ToNrtDtype(row.type, DtypeNumbering::kSequential), row.sequential);
    EXPECT_EQ(ToNrtDtype(row.type, DtypeNumbering::kRuntime230), row.runtime230);
  }
}

TEST(DtypeTableTest, EveryNameRoundTrips) {
  for (int i = 1; i < kTypeCount; ++i) {
    const DataType type = TypeAt(i);
    EXPECT_EQ(DataTypeFromName(DataTypeName(type)), type) << DataTypeName(type);
    EXPECT_EQ(DataTypeFromV2Name(DataTypeV2Name(type)), type) << DataTypeV2Name(type);
  }
  // kUnknown's names name no type.
  EXPECT_EQ(DataTypeFromName("unknown"), std::nullopt);
  EXPECT_EQ(DataTypeFromV2Name("UNKNOWN"), std::nullopt);
}

TEST(DtypeTableTest, NamesAreDistinctAndAV2NameOutsideTheProtocolIsTheNameUpperCased) {
  std::set<std::string_view> names, v2_names;
  for (int i = 0; i < kTypeCount; ++i) {
    const DataType type = TypeAt(i);
    EXPECT_TRUE(names.insert(DataTypeName(type)).second) << DataTypeName(type);
    EXPECT_TRUE(v2_names.insert(DataTypeV2Name(type)).second) << DataTypeV2Name(type);
  }
  for (DataType type : {DataType::kUnknown, DataType::kFp32R, DataType::kFp8E3, DataType::kFp8E4,
                        DataType::kFp8E5}) {
    EXPECT_EQ(DataTypeV2Name(type), UpperCased(DataTypeName(type)));
  }
}

TEST(DtypeTableTest, EveryCodeRoundTripsInEveryNumberingThatHasIt) {
  for (DtypeNumbering numbering : {DtypeNumbering::kSequential, DtypeNumbering::kRuntime230}) {
    SCOPED_TRACE(DtypeNumberingName(numbering));
    std::set<nrt_dtype_t> codes;
    for (int i = 0; i < kTypeCount; ++i) {
      const DataType type = TypeAt(i);
      const std::optional<nrt_dtype_t> code = ToNrtDtype(type, numbering);
      if (!code) continue;
      EXPECT_TRUE(codes.insert(*code).second) << DataTypeName(type) << " repeats " << *code;
      EXPECT_EQ(FromNrtDtype(*code, numbering), type) << DataTypeName(type);
    }
  }
}

TEST(DtypeTableTest, ColumnsAgreeWithEachOther) {
  for (int i = 0; i < kTypeCount; ++i) {
    const DataType type = TypeAt(i);
    SCOPED_TRACE(DataTypeName(type));
    const size_t size = DataTypeSize(type);
    const NumberKind kind = DataTypeNumberKind(type);
    // A narrow float format fills the element exactly, and only a float has one.
    if (const std::optional<FloatFormat> format = DataTypeNarrowFloatFormat(type)) {
      EXPECT_EQ(kind, NumberKind::kFloat);
      EXPECT_EQ(8 * size, static_cast<size_t>(1 + format->exponent_bits + format->mantissa_bits));
    } else if (kind == NumberKind::kFloat) {
      EXPECT_EQ(size, 4u);  // float32 bits
    }
    // The npy descr names the element's width, with '|' (no byte order) for one byte.
    if (const std::optional<std::string_view> descr = DataTypeNpyDescr(type)) {
      ASSERT_EQ(descr->size(), 3u);
      EXPECT_EQ(static_cast<size_t>((*descr)[2] - '0'), size);
      EXPECT_EQ((*descr)[0], size == 1 ? '|' : '<');
    } else {
      EXPECT_EQ(kind, NumberKind::kNone);
    }
    EXPECT_TRUE(!DataTypeHasTypedField(type) || kind != NumberKind::kNone);
  }
}

TEST(DtypeTableTest, AValueOutsideTheEnumerationReadsAsUnknown) {
  const DataType bad = static_cast<DataType>(kTypeCount + 3);
  EXPECT_EQ(DataTypeName(bad), "unknown");
  EXPECT_EQ(DataTypeV2Name(bad), "UNKNOWN");
  EXPECT_EQ(DataTypeSize(bad), 0u);
  EXPECT_EQ(DataTypeNumberKind(bad), NumberKind::kNone);
  EXPECT_FALSE(DataTypeHasTypedField(bad));
  EXPECT_EQ(DataTypeNpyDescr(bad), std::nullopt);
}

}  // namespace
}  // namespace dtype_table_test
}  // namespace neuronserve
