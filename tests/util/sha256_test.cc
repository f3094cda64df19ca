#include "util/sha256.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace neuronserve {
namespace {

// FIPS 180-2, appendix B.
TEST(Sha256Test, OneBlockMessage) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, EmptyMessage) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256().FinalHex(), Sha256Hex(""));
  EXPECT_EQ(Sha256Hex(absl::Span<const uint8_t>()), Sha256Hex(""));
}

TEST(Sha256Test, MultiBlockMessage) {
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, MillionAs) {
  Sha256 sha;
  std::string thousand(1000, 'a');
  for (int i = 0; i < 1000; ++i) sha.Update(thousand);
  EXPECT_EQ(sha.FinalHex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, ChunkedEqualsOneShot) {
  std::mt19937 random(12345);
  std::vector<uint8_t> data(100'003);
  for (uint8_t& byte : data) byte = static_cast<uint8_t>(random());
  std::string expected = Sha256Hex(absl::Span<const uint8_t>(data));
  ASSERT_EQ(expected.size(), 64u);

  for (int trial = 0; trial < 20; ++trial) {
    Sha256 sha;
    size_t offset = 0;
    while (offset < data.size()) {
      size_t chunk = std::min<size_t>(random() % 200, data.size() - offset);  // 0 included
      sha.Update(absl::Span<const uint8_t>(data.data() + offset, chunk));
      offset += chunk;
    }
    EXPECT_EQ(sha.FinalHex(), expected) << "trial " << trial;
  }
}

TEST(Sha256Test, SpanAndStringViewAgree) {
  std::string text("the same bytes\0with a NUL", 25);
  std::vector<uint8_t> bytes(text.begin(), text.end());
  EXPECT_EQ(Sha256Hex(text), Sha256Hex(absl::Span<const uint8_t>(bytes)));
}

TEST(Sha256Test, FinalHexResetsForTheNextMessage) {
  Sha256 sha;
  sha.Update("abc");
  EXPECT_EQ(sha.FinalHex(), Sha256Hex("abc"));
  EXPECT_EQ(sha.FinalHex(), Sha256Hex(""));
  sha.Update("a");
  sha.Update("bc");
  EXPECT_EQ(sha.FinalHex(), Sha256Hex("abc"));
}

TEST(Sha256Test, OutputIsLowerCaseHex) {
  std::string hex = Sha256Hex("neuron-serve");
  ASSERT_EQ(hex.size(), 64u);
  for (char c : hex) EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << hex;
}

TEST(Sha256Test, MoveKeepsTheStateAndLeavesAFreshDigest) {
  Sha256 first;
  first.Update("ab");
  Sha256 second = std::move(first);
  second.Update("c");
  EXPECT_EQ(second.FinalHex(), Sha256Hex("abc"));

  // NOLINTNEXTLINE(bugprone-use-after-move): a moved-from digest is documented as fresh.
  first.Update("abc");
  EXPECT_EQ(first.FinalHex(), Sha256Hex("abc"));

  Sha256 third;
  third.Update("xyz");
  third = std::move(second);
  third.Update("abc");
  EXPECT_EQ(third.FinalHex(), Sha256Hex("abc"));
}

// Larger than one 1 MiB read, so the file is hashed in more than one piece.
TEST(Sha256Test, FileDigestMatchesTheBytesAndCountsThem) {
  std::mt19937 random(7);
  std::string bytes((3 << 20) / 2 + 5, '\0');
  for (char& byte : bytes) byte = static_cast<char>(random());
  std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("sha256_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::ofstream(path, std::ios::binary) << bytes;
  absl::StatusOr<FileSha256> digest = Sha256OfFile(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(digest.ok()) << digest.status();
  EXPECT_EQ(digest->size, bytes.size());
  EXPECT_EQ(digest->hex, Sha256Hex(bytes));
  EXPECT_EQ(Sha256OfFile(path.string()).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace neuronserve
