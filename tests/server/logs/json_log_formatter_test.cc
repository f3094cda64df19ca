#include "server/logs/json_log_formatter.h"

#include <chrono>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace neuronserve {
namespace {

std::string Escaped(std::string_view text) {
  std::string out;
  AppendJsonEscaped(text, out);
  return out;
}

TEST(JsonLogFormatterTest, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(Escaped("a\"b\\c\nd\te\x01"), "a\\\"b\\\\c\\nd\\te\\u0001");
}

TEST(JsonLogFormatterTest, ValidUtf8PassesAndInvalidBytesBecomeReplacementCharacters) {
  EXPECT_EQ(Escaped("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(Escaped("a\xFFz"), "a\\ufffdz");
  EXPECT_EQ(Escaped("\xC3"), "\\ufffd");                                   // truncated sequence
  EXPECT_EQ(Escaped("\xC0\xAF"), "\\ufffd\\ufffd");                        // overlong '/'
  EXPECT_EQ(Escaped("\xED\xA0\x80"), "\\ufffd\\ufffd\\ufffd");             // a surrogate
  EXPECT_EQ(Escaped("\xF4\x90\x80\x80"), "\\ufffd\\ufffd\\ufffd\\ufffd");  // above U+10FFFF
}

TEST(JsonLogFormatterTest, LinesParseWhateverTheMessageHolds) {
  std::string bytes;
  for (int c = 0; c < 256; ++c) bytes += static_cast<char>(c);
  std::string line;
  AppendJsonLogLine({.time = std::chrono::system_clock::now(),
                     .level = "warning",
                     .logger = "nrt",
                     .message = bytes,
                     .continued = true},
                    line);
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  const nlohmann::json parsed = nlohmann::json::parse(line);
  EXPECT_EQ(parsed["level"], "warning");
  EXPECT_EQ(parsed["logger"], "nrt");
  EXPECT_EQ(parsed["continued"], true);
  EXPECT_EQ(parsed["message"].get<std::string>().substr(0, 128), bytes.substr(0, 128));
  EXPECT_TRUE(parsed["time"].get<std::string>().ends_with("Z"));

  line.clear();
  AppendJsonLogLine(
      {.time = std::chrono::system_clock::now(), .level = "info", .logger = "x", .message = "m"},
      line);
  EXPECT_FALSE(nlohmann::json::parse(line).contains("continued")) << line;
}

}  // namespace
}  // namespace neuronserve
