// BodyInflater: gzip and deflate bodies inflated as they stream in, in pieces of any size, the
// limit held on the decoded bytes (a bomb stops at it), and the bodies that are not what their
// Content-Encoding says.
#include "server/http/body_inflater.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/zlib_compress.h"

namespace neuronserve {
namespace {

using ::neuronserve::testing::ZlibCompress;
using ::testing::HasSubstr;

std::string Text(size_t size) {
  std::string text;
  for (size_t i = 0; text.size() < size; ++i) text += std::to_string(i * 7919 % 1000) + ",";
  text.resize(size);
  return text;
}

// Feeds `body` in pieces of `piece` bytes; the status of the first failing step or of Finish.
absl::Status Inflate(ContentEncoding encoding, const std::string& body, size_t piece,
                     std::string& out, size_t limit = 1 << 30) {
  BodyInflater inflater(encoding);
  for (size_t at = 0; at < body.size(); at += piece) {
    if (absl::Status step = inflater.Append(std::string_view(body).substr(at, piece), out, limit);
        !step.ok()) {
      return step;
    }
  }
  return inflater.Finish();
}

TEST(BodyInflaterTest, GzipAndDeflateInflateWhateverThePieces) {
  const std::string text = Text(300000);
  for (bool gzip : {true, false}) {
    const std::string body = ZlibCompress(text, gzip);
    ASSERT_FALSE(body.empty());
    ASSERT_LT(body.size(), text.size());
    for (size_t piece : {size_t{1}, size_t{7}, size_t{4096}, body.size()}) {
      std::string out;
      const absl::Status status =
          Inflate(gzip ? ContentEncoding::kGzip : ContentEncoding::kDeflate, body, piece, out);
      ASSERT_TRUE(status.ok()) << status << " gzip " << gzip << " piece " << piece;
      EXPECT_TRUE(out == text) << "gzip " << gzip << " piece " << piece;
    }
  }
}

TEST(BodyInflaterTest, GzipMembersOneAfterAnotherAreOneBody) {
  const std::string body = ZlibCompress("first half, ", true) + ZlibCompress("second half", true);
  std::string out;
  ASSERT_TRUE(Inflate(ContentEncoding::kGzip, body, 5, out).ok());
  EXPECT_EQ(out, "first half, second half");
}

TEST(BodyInflaterTest, TheLimitIsOnTheDecodedBytesAndABombStopsAtIt) {
  const std::string text = Text(100000);
  const std::string body = ZlibCompress(text, true);
  // Exactly the limit: fine, even with the trailer arriving after the last decoded byte.
  std::string exact;
  EXPECT_TRUE(Inflate(ContentEncoding::kGzip, body, 1, exact, text.size()).ok());
  EXPECT_TRUE(exact == text);
  std::string over;
  EXPECT_EQ(Inflate(ContentEncoding::kGzip, body, 1000, over, text.size() - 1).code(),
            absl::StatusCode::kResourceExhausted);
  // 32 MiB of zeros in about 32 KiB: refused having held no more than the limit.
  const std::string bomb = ZlibCompress(std::string(32 << 20, '\0'), true);
  ASSERT_LT(bomb.size(), 64u << 10);
  std::string held;
  const absl::Status refused = Inflate(ContentEncoding::kGzip, bomb, 64 * 1024, held, 1 << 20);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("inflates to more than 1048576 bytes"));
  EXPECT_LE(held.size(), 1u << 20);
  EXPECT_LE(held.capacity(), 2u << 20);
}

TEST(BodyInflaterTest, BodiesThatAreNotTheirEncodingAreRefused) {
  const std::string gzip = ZlibCompress("some text to compress", true);
  const std::string deflate = ZlibCompress("some text to compress", false);
  std::string out;
  // Plain text, or one encoding sent as the other.
  EXPECT_EQ(Inflate(ContentEncoding::kGzip, "plain text", 100, out).code(),
            absl::StatusCode::kInvalidArgument);
  out.clear();
  EXPECT_EQ(Inflate(ContentEncoding::kGzip, deflate, 100, out).code(),
            absl::StatusCode::kInvalidArgument);
  out.clear();
  EXPECT_EQ(Inflate(ContentEncoding::kDeflate, gzip, 100, out).code(),
            absl::StatusCode::kInvalidArgument);
  // Cut short: Finish says so.
  out.clear();
  const absl::Status truncated =
      Inflate(ContentEncoding::kGzip, gzip.substr(0, gzip.size() - 4), 100, out);
  EXPECT_EQ(truncated.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(truncated.message(), HasSubstr("truncated"));
  // Bytes after a deflate stream's end.
  out.clear();
  EXPECT_EQ(Inflate(ContentEncoding::kDeflate, deflate + "x", 100, out).code(),
            absl::StatusCode::kInvalidArgument);
  // No bytes at all: no body, whatever the header says.
  out.clear();
  EXPECT_TRUE(Inflate(ContentEncoding::kDeflate, "", 100, out).ok());
  EXPECT_EQ(out, "");
}

TEST(BodyInflaterTest, ContentEncodingNamesOneCodingOrNone) {
  EXPECT_EQ(*ParseContentEncoding(""), std::nullopt);
  EXPECT_EQ(*ParseContentEncoding("identity"), std::nullopt);
  EXPECT_EQ(*ParseContentEncoding(" GZIP "), ContentEncoding::kGzip);
  EXPECT_EQ(*ParseContentEncoding("x-gzip"), ContentEncoding::kGzip);
  EXPECT_EQ(*ParseContentEncoding("Deflate"), ContentEncoding::kDeflate);
  for (const char* other : {"br", "zstd", "gzip, deflate", "compress"}) {
    const auto parsed = ParseContentEncoding(other);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kUnimplemented) << other;
    EXPECT_THAT(parsed.status().message(), HasSubstr(other));
  }
}

}  // namespace
}  // namespace neuronserve
