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
                "dtype '<f8' is not float32"},
        BadFile{NpyV1("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }",
                      std::string(4, '\0')),
                "dtype '<i4' is not float32"},
        BadFile{NpyV1("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
                      std::string(4, '\0')),
                "dtype '>f4'"},
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
