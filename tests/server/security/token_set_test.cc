// server/security/token_set: the token file format, labels, errors that never show a token, and
// matching.
#include "server/security/token_set.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace neuronserve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kTokenA[] = "aaaaaaaaaaaaaaaa-first";
constexpr char kTokenB[] = "bbbbbbbbbbbbbbbb-second";
constexpr char kTokenC[] = "cccccccccccccccc:with:colons";

TEST(TokenSetTest, ParsesLabelsCommentsBlankLinesAndWhitespace) {
  const std::string text = std::string("# the infer tokens\n\n  ci-runner : ") + kTokenA +
                           "  \n\t" + kTokenB + "\n   # indented comment\nops:" + kTokenC + "\n";
  absl::StatusOr<TokenSet> set = TokenSet::Parse(text, "/etc/neuron-serve/infer.tokens");
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->size(), 3u);
  // An unlabelled token is named by the file's basename and its line.
  EXPECT_THAT(set->Labels(), ElementsAre("ci-runner", "infer.tokens:4", "ops"));
  ASSERT_NE(set->Match(kTokenA), nullptr);
  EXPECT_EQ(*set->Match(kTokenA), "ci-runner");
  ASSERT_NE(set->Match(kTokenB), nullptr);
  EXPECT_EQ(*set->Match(kTokenB), "infer.tokens:4");
  // Split at the first ':' only: the rest of the line is the token.
  ASSERT_NE(set->Match("cccccccccccccccc:with:colons"), nullptr);
  EXPECT_EQ(*set->Match("cccccccccccccccc:with:colons"), "ops");
}

TEST(TokenSetTest, MatchesOnlyTheWholeToken) {
  absl::StatusOr<TokenSet> set = TokenSet::Parse(std::string("a:") + kTokenA + "\n", "f");
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->Match(""), nullptr);
  EXPECT_EQ(set->Match("aaaaaaaaaaaaaaaa"), nullptr);  // a prefix
  EXPECT_EQ(set->Match(std::string(kTokenA) + "x"), nullptr);
  EXPECT_EQ(set->Match("a:" + std::string(kTokenA)), nullptr);  // the line, not the token
  EXPECT_EQ(set->Match("AAAAAAAAAAAAAAAA-FIRST"), nullptr);
  EXPECT_NE(set->Match(kTokenA), nullptr);
}

TEST(TokenSetTest, AnEmptyFileOrOneOfCommentsHoldsNoTokens) {
  for (const char* text : {"", "\n\n", "# nothing yet\n  \n"}) {
    absl::StatusOr<TokenSet> set = TokenSet::Parse(text, "f");
    ASSERT_TRUE(set.ok()) << set.status();
    EXPECT_EQ(set->size(), 0u);
    EXPECT_EQ(set->Match(kTokenA), nullptr);
  }
}

TEST(TokenSetTest, ErrorsNameTheFileAndLineButNeverTheToken) {
  struct Case {
    std::string line;
    std::string secret;  // what the message must not contain
    std::string what;
  };
  const std::vector<Case> cases = {
      {"shortsecret12", "shortsecret12", "shorter than 16 characters"},
      {"label:shortsecret12", "shortsecret12", "shorter than 16 characters"},
      {"longenoughsecret one more", "longenoughsecret", "whitespace"},
      {"me:longenoughsecret\x01zz", "longenoughsecret", "not printable ASCII"},
      {"ops:", "ops", "the token is empty"},
      {":longenoughsecret99", "longenoughsecret99", "the label before ':' is empty"},
      {"my label:longenoughsecret99", "longenoughsecret99", "the label holds whitespace"},
      {"longenoughsecret\xc3\xa9xx", "longenoughsecret", "not printable ASCII"},
  };
  for (const Case& c : cases) {
    const std::string text = std::string("# header\nok:") + kTokenA + "\n" + c.line + "\n";
    absl::StatusOr<TokenSet> set = TokenSet::Parse(text, "/run/secrets/admin.tokens");
    ASSERT_FALSE(set.ok()) << c.line;
    EXPECT_EQ(set.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string message(set.status().message());
    EXPECT_THAT(message, HasSubstr("/run/secrets/admin.tokens:3: ")) << c.line;
    EXPECT_THAT(message, HasSubstr(c.what)) << c.line;
    EXPECT_THAT(message, Not(HasSubstr(c.secret))) << c.line;
    EXPECT_THAT(message, Not(HasSubstr(kTokenA))) << c.line;
  }
}

TEST(TokenSetTest, ReadFileReadsTheFileAndNamesAMissingOne) {
  testing::TempDir dir;
  const std::string path = dir.Write("tokens", std::string("ci:") + kTokenA + "\n");
  absl::StatusOr<TokenSet> set = TokenSet::ReadFile(path);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_THAT(set->Labels(), ElementsAre("ci"));

  absl::StatusOr<TokenSet> missing = TokenSet::ReadFile(dir.Join("absent"));
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr(dir.Join("absent")));
}

}  // namespace
}  // namespace neuronserve
