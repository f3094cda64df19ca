// neuronctl's .npy reader and writer: the byte layout numpy.save produces (written out by hand
// here, not by the code under test), every header version, and the files it must refuse.
#include "client/neuronctl/npy_file.h"

#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve::neuronctl {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string FloatBytes(const std::vector<float>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

// A version 1.0 file as numpy writes it: magic, version, 2-byte length, the dict padded with
// spaces and a newline to a multiple of 64 bytes, then the data.
std::string NpyV1(const std::string& dict, const std::string& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  return bytes + header + data;
}

std::string NpyV2(const std::string& dict, const std::string& data) {
  std::string header = dict + "\n";
  std::string bytes = "\x93NUMPY";
  bytes += '\x02';
  bytes += '\x00';
  const uint32_t length = static_cast<uint32_t>(header.size());
  for (int i = 0; i < 4; ++i) bytes += static_cast<char>((length >> (8 * i)) & 0xff);
  return bytes + header + data;
}

TEST(NpyFileTest, ReadsWhatNumpySaveWrites) {
  const std::vector<float> values = {1.5f, -2.0f, 0.25f, 3.0f, 4.0f, -0.125f};
  absl::StatusOr<NpyArray> array = ParseNpy(
      NpyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", FloatBytes(values)),
      "x.npy");
  ASSERT_TRUE(array.ok()) << array.status();
  EXPECT_THAT(array->shape, ElementsAre(2, 3));
  EXPECT_EQ(array->values, values);
}

TEST(NpyFileTest, ReadsOneDimensionalZeroDimensionalAndVersionTwoFiles) {
  absl::StatusOr<NpyArray> vector = ParseNpy(
      NpyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", FloatBytes({7, 8})), "v");
  ASSERT_TRUE(vector.ok()) << vector.status();
  EXPECT_THAT(vector->shape, ElementsAre(2));

  absl::StatusOr<NpyArray> scalar = ParseNpy(
      NpyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", FloatBytes({9})), "s");
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_THAT(scalar->values, ElementsAre(9));

  // Key order is not fixed by the format.
  absl::StatusOr<NpyArray> v2 = ParseNpy(
      NpyV2("{'shape': (1, 2), 'fortran_order': False, 'descr': '<f4'}", FloatBytes({1, 2})), "w");
  ASSERT_TRUE(v2.ok()) << v2.status();
  EXPECT_THAT(v2->shape, ElementsAre(1, 2));
  EXPECT_THAT(v2->values, ElementsAre(1, 2));
}

TEST(NpyFileTest, EncodeWritesTheLayoutNumpyReads) {
  absl::StatusOr<std::string> bytes = EncodeNpy(std::vector<uint64_t>{1, 2}, {0.5f, -1.0f});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, NpyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }",
                          FloatBytes({0.5f, -1.0f})));
  EXPECT_EQ(bytes->size() % 64, 8u);  // header block of 64 bytes + 8 bytes of data

  absl::StatusOr<std::string> vector = EncodeNpy(std::vector<uint64_t>{3}, {1, 2, 3});
  ASSERT_TRUE(vector.ok());
  EXPECT_THAT(*vector, HasSubstr("'shape': (3,)"));

  absl::StatusOr<NpyArray> back = ParseNpy(*vector, "round trip");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_THAT(back->values, ElementsAre(1, 2, 3));

  EXPECT_FALSE(EncodeNpy(std::vector<uint64_t>{2, 2}, {1, 2, 3}).ok());
}

struct BadFile {
  std::string bytes;
  std::string message;
};

class NpyFileRejectsTest : public ::testing::TestWithParam<BadFile> {};

TEST_P(NpyFileRejectsTest, NamingTheFileAndWhy) {
  absl::StatusOr<NpyArray> array = ParseNpy(GetParam().bytes, "in.npy");
  ASSERT_FALSE(array.ok());
  EXPECT_EQ(array.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(array.status().message(), HasSubstr("in.npy"));
  EXPECT_THAT(array.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Files, NpyFileRejectsTest,
    ::testing::Values(
        BadFile{"", "magic"}, BadFile{"PK\x03\x04 a zip file", "magic"},
        BadFile{NpyV1("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
                      std::string(8, '\0')),
                "dtype '<f8' is not one neuronctl reads"},
        BadFile{NpyV1("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }",
                      std::string(1, '\0')),
                "dtype '|b1' is not one neuronctl reads"},
        BadFile{NpyV1("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                      std::string(8, '\0')),
                "dtype '<c8' is not one neuronctl reads; it reads int8 to int64"},
        BadFile{NpyV1("{'descr': '|i2', 'fortran_order': False, 'shape': (1,), }",
                      std::string(2, '\0')),
                "dtype '|i2' is not one neuronctl reads"},
        BadFile{NpyV1("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
                      std::string(4, '\0')),
                "dtype '>f4' is big-endian"},
        BadFile{NpyV1("{'descr': '>i8', 'fortran_order': False, 'shape': (1,), }",
                      std::string(8, '\0')),
                "dtype '>i8' is big-endian"},
        BadFile{NpyV1("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                      std::string(4, '\0')),
                "is not a simple dtype"},
        BadFile{NpyV1("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }",
                      std::string(24, '\0')),
                "shape (2, 3) of int64 needs 48 bytes of data, the file has 24"},
        BadFile{NpyV1("{'descr': '<i8', 'fortran_order': True, 'shape': (2, 2), }",
                      std::string(32, '\0')),
                "Fortran"},
        BadFile{NpyV1("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
                      std::string(16, '\0')),
                "Fortran"},
        BadFile{NpyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                      std::string(20, '\0')),
                "needs 24 bytes of data, the file has 20"},
        BadFile{NpyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                      std::string(8, '\0')),
                "needs 4 bytes of data, the file has 8"},
        BadFile{NpyV1("{'descr': '<f4', 'fortran_order': False}", ""), "no 'shape'"},
        BadFile{NpyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (a, 2), }", ""),
                "'a' is not a number"},
        BadFile{std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 17), "cut off"},
        BadFile{std::string("\x93NUMPY\x07\x00", 8), "version 7"}));

// One file per dtype neuronctl reads, as numpy.save writes it: the element bytes come back as they
// are, with the dtype the descr names, and EncodeNpy writes the same file back.
struct DtypeCase {
  std::string descr;  // as numpy writes it
  DataType dtype;
  size_t size;
};

class NpyFileDtypeTest : public ::testing::TestWithParam<DtypeCase> {};

TEST_P(NpyFileDtypeTest, ReadsAndWritesTheElementBytesAsTheyAre) {
  const DtypeCase& c = GetParam();
  // Two rows of three elements, each byte distinct so that a swap or a shift shows.
  std::string data;
  for (size_t i = 0; i < 6 * c.size; ++i) data += static_cast<char>(0x80 + i);
  const std::string file = NpyV1(
      "{'descr': '" + c.descr + "', 'fortran_order': False, 'shape': (2, 3), }", data);
  absl::StatusOr<NpyArray> array = ParseNpy(file, "x.npy");
  ASSERT_TRUE(array.ok()) << array.status();
  EXPECT_THAT(array->shape, ElementsAre(2, 3));
  EXPECT_EQ(array->dtype, c.dtype);
  EXPECT_EQ(array->descr, c.descr);
  EXPECT_EQ(std::string(array->bytes.begin(), array->bytes.end()), data);
  EXPECT_EQ(array->values.size(), c.dtype == DataType::kFloat32 ? 6u : 0u);

  absl::StatusOr<std::string> encoded = EncodeNpy(std::vector<uint64_t>{2, 3}, c.descr,
                                                  array->bytes);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_EQ(*encoded, file);
  // The wrong number of bytes for the shape is refused.
  EXPECT_FALSE(EncodeNpy(std::vector<uint64_t>{2, 2}, c.descr, array->bytes).ok());
}

INSTANTIATE_TEST_SUITE_P(
    Dtypes, NpyFileDtypeTest,
    ::testing::Values(DtypeCase{"|i1", DataType::kInt8, 1}, DtypeCase{"<i2", DataType::kInt16, 2},
                      DtypeCase{"<i4", DataType::kInt32, 4}, DtypeCase{"<i8", DataType::kInt64, 8},
                      DtypeCase{"|u1", DataType::kUInt8, 1},
                      DtypeCase{"<u2", DataType::kUInt16, 2},
                      DtypeCase{"<u4", DataType::kUInt32, 4},
                      DtypeCase{"<u8", DataType::kUInt64, 8},
                      DtypeCase{"<f2", DataType::kFloat16, 2},
                      DtypeCase{"<f4", DataType::kFloat32, 4}),
    [](const ::testing::TestParamInfo<DtypeCase>& info) {
      return std::string(DataTypeName(info.param.dtype));
    });

TEST(NpyFileTest, OtherSpellingsOfTheSameDtypeAreRead) {
  // '<i1' and '=i1' for int8 (numpy writes '|i1'), '=' for native little-endian.
  for (const std::string descr : {"<i1", "=i1"}) {
    absl::StatusOr<NpyArray> array = ParseNpy(
        NpyV1("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2,), }", "\x01\xff"),
        descr);
    ASSERT_TRUE(array.ok()) << array.status();
    EXPECT_EQ(array->dtype, DataType::kInt8);
    EXPECT_EQ(array->descr, "|i1");
  }
  absl::StatusOr<NpyArray> u8 = ParseNpy(
      NpyV1("{'descr': '=u8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\1')),
      "u8");
  ASSERT_TRUE(u8.ok()) << u8.status();
  EXPECT_EQ(u8->dtype, DataType::kUInt64);
  EXPECT_EQ(u8->descr, "<u8");
}

TEST(NpyFileTest, EveryNeuronDtypeHasItsNpyDtype) {
  EXPECT_EQ(NpyDescrFor(DataType::kFloat32), "<f4");
  EXPECT_EQ(NpyDescrFor(DataType::kFloat16), "<f2");
  EXPECT_EQ(NpyDescrFor(DataType::kBFloat16), "<u2");  // numpy has no bfloat16: its bits
  EXPECT_EQ(NpyDescrFor(DataType::kFp32R), "<f4");
  EXPECT_EQ(NpyDescrFor(DataType::kFp8E4), "|u1");
  EXPECT_EQ(NpyDescrFor(DataType::kInt8), "|i1");
  EXPECT_EQ(NpyDescrFor(DataType::kUInt8), "|u1");
  EXPECT_EQ(NpyDescrFor(DataType::kInt64), "<i8");
  EXPECT_EQ(NpyDescrFor(DataType::kUInt32), "<u4");
  EXPECT_EQ(NpyDescrFor(DataType::kUnknown), std::nullopt);
}

TEST(NpyFileTest, FilesThatCannotBeReadAreNamed) {
  absl::StatusOr<NpyArray> missing = ReadNpyFile("/nonexistent/x.npy");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("/nonexistent/x.npy"));

  absl::StatusOr<NpyArray> directory = ReadNpyFile("/tmp");
  ASSERT_FALSE(directory.ok());
  EXPECT_THAT(directory.status().message(), HasSubstr("is a directory"));
}

}  // namespace
}  // namespace neuronserve::neuronctl
