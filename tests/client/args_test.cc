#include "client/neuronctl/args.h"

#include <array>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve::neuronctl {
namespace {

using ::testing::HasSubstr;

constexpr auto kSpecs = std::to_array<FlagSpec>({
    {"out", FlagType::kValue, "FILE", "", "where to write"},
    {"seed", FlagType::kValue, "N", "0", "random seed"},
    {"softmax", FlagType::kBoolean, "", "", "add a softmax"},
    {"fault", FlagType::kRepeated, "SPEC", "", "a fault"},
});

absl::StatusOr<ParsedArgs> Parse(std::vector<std::string> args) { return ParseArgs(kSpecs, args); }

TEST(ArgsTest, AcceptsBothValueForms) {
  absl::StatusOr<ParsedArgs> parsed = Parse({"--out=a.neff", "--seed", "7"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Get("out"), "a.neff");
  EXPECT_EQ(parsed->Get("seed"), "7");
  EXPECT_TRUE(parsed->Has("out"));
}

TEST(ArgsTest, ValueAfterEqualsMayContainEqualsAndStartWithDash) {
  absl::StatusOr<ParsedArgs> parsed = Parse({"--out=x=y", "--seed", "-1"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Get("out"), "x=y");
  EXPECT_EQ(parsed->Get("seed"), "-1");
}

TEST(ArgsTest, AbsentFlagGivesDefaultOrNothing) {
  absl::StatusOr<ParsedArgs> parsed = Parse({});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Get("seed"), "0");
  EXPECT_FALSE(parsed->Has("seed"));
  EXPECT_EQ(parsed->Get("out"), std::nullopt);
  EXPECT_FALSE(parsed->GetBool("softmax"));
  EXPECT_TRUE(parsed->GetAll("fault").empty());
}

TEST(ArgsTest, BooleanFlags) {
  absl::StatusOr<ParsedArgs> bare = Parse({"--softmax"});
  ASSERT_TRUE(bare.ok()) << bare.status();
  EXPECT_TRUE(bare->GetBool("softmax"));

  absl::StatusOr<ParsedArgs> off = Parse({"--softmax=false"});
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_FALSE(off->GetBool("softmax"));
  EXPECT_TRUE(off->Has("softmax"));

  absl::StatusOr<ParsedArgs> on = Parse({"--softmax=1"});
  ASSERT_TRUE(on.ok()) << on.status();
  EXPECT_TRUE(on->GetBool("softmax"));
}

TEST(ArgsTest, BooleanNeverConsumesTheNextWord) {
  absl::StatusOr<ParsedArgs> parsed = Parse({"--softmax", "extra"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->GetBool("softmax"));
  EXPECT_THAT(parsed->positional(), ::testing::ElementsAre("extra"));
}

TEST(ArgsTest, BadBooleanValueIsAnError) {
  absl::StatusOr<ParsedArgs> parsed = Parse({"--softmax=maybe"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("--softmax"));
  EXPECT_THAT(parsed.status().message(), HasSubstr("maybe"));
}

TEST(ArgsTest, RepeatedFlagKeepsOrder) {
  absl::StatusOr<ParsedArgs> parsed = Parse({"--fault=a", "--fault", "b"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(parsed->GetAll("fault"), ::testing::ElementsAre("a", "b"));
}

TEST(ArgsTest, UnknownFlagIsNamed) {
  absl::StatusOr<ParsedArgs> parsed = Parse({"--out=x", "--colour=red"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), HasSubstr("unknown flag --colour"));
}

TEST(ArgsTest, SingleDashFlagIsUnknown) {
  absl::StatusOr<ParsedArgs> parsed = Parse({"-o", "x"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("'-o'"));
}

TEST(ArgsTest, MissingValueAtEndIsNamed) {
  absl::StatusOr<ParsedArgs> parsed = Parse({"--out"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("--out needs a value"));
}

TEST(ArgsTest, FlagInPlaceOfValueIsAMissingValue) {
  absl::StatusOr<ParsedArgs> parsed = Parse({"--out", "--seed=1"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("--out needs a value"));
}

TEST(ArgsTest, SingleValueFlagTwiceIsAnError) {
  absl::StatusOr<ParsedArgs> parsed = Parse({"--seed=1", "--seed=2"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("--seed is given more than once"));
}

TEST(ArgsTest, HelpInAnyPosition) {
  for (const char* help : {"--help", "-h"}) {
    absl::StatusOr<ParsedArgs> parsed = Parse({"--out=x", help});
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_TRUE(parsed->help_requested()) << help;
  }
  absl::StatusOr<ParsedArgs> without = Parse({"--out=x"});
  ASSERT_TRUE(without.ok());
  EXPECT_FALSE(without->help_requested());
}

TEST(ArgsTest, DoubleDashEndsFlags) {
  absl::StatusOr<ParsedArgs> parsed = Parse({"--seed=3", "--", "--out", "file"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_FALSE(parsed->Has("out"));
  EXPECT_THAT(parsed->positional(), ::testing::ElementsAre("--out", "file"));
}

TEST(ArgsTest, HelpTextListsFlagsPlaceholdersAndDefaults) {
  const std::string help = FormatFlagHelp(kSpecs);
  EXPECT_THAT(help, HasSubstr("--out=FILE"));
  EXPECT_THAT(help, HasSubstr("--seed=N"));
  EXPECT_THAT(help, HasSubstr("random seed (default: 0)"));
  EXPECT_THAT(help, HasSubstr("--softmax "));
  EXPECT_THAT(help, HasSubstr("(repeatable)"));
  EXPECT_THAT(help, HasSubstr("--help"));
}

}  // namespace
}  // namespace neuronserve::neuronctl
