#include "base/utf8.h"

#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace neuronserve {
namespace {

size_t Length(const std::string& bytes) { return Utf8SequenceLength(bytes); }

TEST(Utf8Test, WellFormedSequencesOfEveryLength) {
  EXPECT_EQ(Length("a"), 1u);
  EXPECT_EQ(Length(std::string(1, '\0')), 1u);
  EXPECT_EQ(Length("\x7F"), 1u);
  EXPECT_EQ(Length("\xC2\x80"), 2u);          // U+0080, the first two-byte code point
  EXPECT_EQ(Length("\xC3\xA9"), 2u);          // é
  EXPECT_EQ(Length("\xE0\xA0\x80"), 3u);      // U+0800
  EXPECT_EQ(Length("\xED\x9F\xBF"), 3u);      // U+D7FF, just below the surrogates
  EXPECT_EQ(Length("\xEF\xBF\xBD"), 3u);      // U+FFFD
  EXPECT_EQ(Length("\xF0\x90\x80\x80"), 4u);  // U+10000
  EXPECT_EQ(Length("\xF4\x8F\xBF\xBF"), 4u);  // U+10FFFF, the last code point
}

TEST(Utf8Test, OnlyTheFirstSequenceCounts) {
  EXPECT_EQ(Length("ab"), 1u);
  EXPECT_EQ(Length("\xC3\xA9\xFF"), 2u);
}

TEST(Utf8Test, IllFormedSequencesAreZero) {
  EXPECT_EQ(Utf8SequenceLength(std::string_view()), 0u);
  EXPECT_EQ(Length("\x80"), 0u);  // a continuation byte alone
  EXPECT_EQ(Length("\xBF"), 0u);
  EXPECT_EQ(Length("\xC0\xAF"), 0u);          // overlong '/'
  EXPECT_EQ(Length("\xC1\xBF"), 0u);          // overlong
  EXPECT_EQ(Length("\xE0\x9F\xBF"), 0u);      // overlong three-byte form
  EXPECT_EQ(Length("\xF0\x8F\xBF\xBF"), 0u);  // overlong four-byte form
  EXPECT_EQ(Length("\xED\xA0\x80"), 0u);      // U+D800, a surrogate
  EXPECT_EQ(Length("\xED\xBF\xBF"), 0u);      // U+DFFF
  EXPECT_EQ(Length("\xF4\x90\x80\x80"), 0u);  // U+110000, past the last code point
  EXPECT_EQ(Length("\xF5\x80\x80\x80"), 0u);  // a lead RFC 3629 removed
  EXPECT_EQ(Length("\xFF"), 0u);
  EXPECT_EQ(Length("\xC3"), 0u);  // cut short by the end of the text
  EXPECT_EQ(Length("\xE2\x82"), 0u);
  EXPECT_EQ(Length("\xF0\x9F\x98"), 0u);
  EXPECT_EQ(Length("\xC3("), 0u);          // a second byte that is no continuation
  EXPECT_EQ(Length("\xE2\x82("), 0u);      // a third byte that is no continuation
  EXPECT_EQ(Length("\xF0\x9F\x98("), 0u);  // a fourth byte that is no continuation
}

}  // namespace
}  // namespace neuronserve
