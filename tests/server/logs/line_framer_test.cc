#include "server/logs/line_framer.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace neuronserve {
namespace {

using Records = std::vector<std::pair<std::string, bool>>;  // text, continued

// Feeds `pieces` one Append each, then Finish().
Records Frame(const std::vector<std::string>& pieces, size_t max_line_bytes = 16) {
  Records records;
  auto emit = [&](std::string_view text, bool continued) {
    records.emplace_back(std::string(text), continued);
  };
  LineFramer framer(max_line_bytes);
  for (const std::string& piece : pieces) framer.Append(piece, emit);
  framer.Finish(emit);
  return records;
}

TEST(LineFramerTest, WholeLinesInOnePiece) {
  EXPECT_EQ(Frame({"one\ntwo\n"}), (Records{{"one", false}, {"two", false}}));
}

TEST(LineFramerTest, LinesSplitAcrossPiecesAreJoined) {
  EXPECT_EQ(Frame({"o", "ne\ntw", "o", "\n"}), (Records{{"one", false}, {"two", false}}));
}

TEST(LineFramerTest, CrlfLosesItsCarriageReturn) {
  EXPECT_EQ(Frame({"one\r\ntwo\r", "\n"}), (Records{{"one", false}, {"two", false}}));
  // A carriage return inside a line is the writer's business.
  EXPECT_EQ(Frame({"50%\r100%\n"}), (Records{{"50%\r100%", false}}));
}

TEST(LineFramerTest, EmptyLinesAreDropped) {
  EXPECT_EQ(Frame({"\n\none\n\r\n\n"}), (Records{{"one", false}}));
  EXPECT_EQ(Frame({}), Records{});
}

TEST(LineFramerTest, AnUnterminatedLastLineIsEmittedAtTheEnd) {
  EXPECT_EQ(Frame({"one\nabort: the ", "end"}),
            (Records{{"one", false}, {"abort: the end", false}}));
  EXPECT_EQ(Frame({"no newline\r"}), (Records{{"no newline", false}}));
}

TEST(LineFramerTest, OverlongLinesAreCutIntoContinuedPieces) {
  const std::string line(40, 'x');
  EXPECT_EQ(Frame({line + "\nnext\n"}), (Records{{std::string(16, 'x'), true},
                                                 {std::string(16, 'x'), true},
                                                 {std::string(8, 'x'), false},
                                                 {"next", false}}));
  // Exactly the limit is one record.
  EXPECT_EQ(Frame({std::string(16, 'y') + "\n"}), (Records{{std::string(16, 'y'), false}}));
}

TEST(LineFramerTest, AnOpenLineIsCutBeforeItsNewlineArrives) {
  // The buffer never holds more than the limit: pieces go out as the bytes come.
  Records records;
  auto emit = [&](std::string_view text, bool continued) {
    records.emplace_back(std::string(text), continued);
  };
  LineFramer framer(16);
  framer.Append(std::string(20, 'a'), emit);
  EXPECT_EQ(records, (Records{{std::string(16, 'a'), true}}));
  framer.Append(std::string(4, 'b') + "\n", emit);
  EXPECT_EQ(records, (Records{{std::string(16, 'a'), true}, {"aaaabbbb", false}}));
  // A continued piece followed directly by the end of its line: an empty record closes it.
  records.clear();
  framer.Append(std::string(16, 'c') + "\r", emit);
  framer.Append("\n", emit);
  EXPECT_EQ(records, (Records{{std::string(16, 'c'), true}, {"", false}}));
}

TEST(LineFramerTest, CutsDoNotSplitUtf8Sequences) {
  // 15 ASCII bytes, then "é" (2 bytes) and "€" (3 bytes): a cut at 16 would split "é".
  const std::string line = std::string(15, 'a') + "\xC3\xA9" + "\xE2\x82\xAC" + "z";
  EXPECT_EQ(Frame({line + "\n"}), (Records{{std::string(15, 'a'), true},
                                           {"\xC3\xA9\xE2\x82\xAC"
                                            "z",
                                            false}}));
  // Bytes that are not UTF-8 at all are cut at the limit.
  const std::string binary(20, '\x80');
  EXPECT_EQ(Frame({binary + "\n"}),
            (Records{{std::string(16, '\x80'), true}, {std::string(4, '\x80'), false}}));
}

}  // namespace
}  // namespace neuronserve
