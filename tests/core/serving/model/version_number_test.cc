#include "core/serving/model/version_number.h"

#include <string>

#include "gtest/gtest.h"

namespace neuronserve {
namespace version_number_test {

TEST(VersionNumberTest, NoLabelIsVersionOne) {
  EXPECT_EQ(VersionNumber(""), "1");
  EXPECT_EQ(DescribeVersion(""), "1 (no label)");
}

TEST(VersionNumberTest, PlainDecimalLabelsAreTheirOwnNumber) {
  EXPECT_EQ(VersionNumber("0"), "0");
  EXPECT_EQ(VersionNumber("3"), "3");
  EXPECT_EQ(VersionNumber("999999999999999"), "999999999999999");  // 15 digits
  EXPECT_EQ(DescribeVersion("3"), "'3'");
}

TEST(VersionNumberTest, OtherLabelsGetTheDocumentedHashedNumber) {
  // Reproduced outside the daemon as the header says: the first 8 bytes of
  // sha256("2024-06-01") are 3b951b590318d747; 10^15 + that mod 8*10^15.
  EXPECT_EQ(VersionNumber("2024-06-01"), "6367888885634887");
  EXPECT_EQ(DescribeVersion("2024-06-01"), "'2024-06-01' (number 6367888885634887)");
  // Not plain decimals: a leading zero, 16 digits, a sign or a dot.
  for (const char* label : {"007", "1000000000000000", "v2", "1.0"}) {
    const std::string number = VersionNumber(label);
    EXPECT_EQ(number.size(), 16u) << label;
    EXPECT_GE(number, "1000000000000000") << label;
    EXPECT_LT(number, "9000000000000000") << label;
    EXPECT_NE(number, label);
  }
  EXPECT_NE(VersionNumber("v2"), VersionNumber("v3"));
  EXPECT_EQ(VersionNumber("v2"), VersionNumber("v2"));
}

TEST(VersionNumberTest, ARequestReachesAVersionByItsLabelOrItsNumber) {
  EXPECT_TRUE(NamesVersion("", "2024-06-01"));
  EXPECT_TRUE(NamesVersion("2024-06-01", "2024-06-01"));
  EXPECT_TRUE(NamesVersion("6367888885634887", "2024-06-01"));
  EXPECT_FALSE(NamesVersion("6367888885634888", "2024-06-01"));
  EXPECT_TRUE(NamesVersion("1", ""));
  EXPECT_FALSE(NamesVersion("2", ""));
  EXPECT_TRUE(NamesVersion("7", "7"));
  EXPECT_FALSE(NamesVersion("07", "7"));
}

TEST(VersionNumberTest, OnlyDecimalDigitsHaveTheFormOfANumber) {
  for (const char* number : {"0", "7", "007", "1000000000000000", "99999999999999999999"}) {
    EXPECT_TRUE(IsVersionNumberForm(number)) << number;
  }
  for (const char* label : {"", "wrong_specification", "v2", "-1", "+1", " 1", "1.0",
                            "2024-06-01", "1e3"}) {
    EXPECT_FALSE(IsVersionNumberForm(label)) << label;
  }
}

}  // namespace version_number_test
}  // namespace neuronserve
