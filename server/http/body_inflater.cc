#include "server/http/body_inflater.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace neuronserve {
namespace {

// zlib's window bits: 15 (32 KiB, the most), plus 16 to read a gzip header and trailer instead
// of zlib's.
constexpr int kZlibWindowBits = 15;
constexpr int kGzipWindowBits = 15 + 16;
// Decoded bytes per inflate call: the body grows in steps of at most this size, each cut to
// what the limit leaves, so it never holds more than the limit.
constexpr size_t kStep = 64 * 1024;

}  // namespace

absl::StatusOr<std::optional<ContentEncoding>> ParseContentEncoding(std::string_view header) {
  const std::string coding = absl::AsciiStrToLower(
      absl::StripAsciiWhitespace(absl::string_view(header.data(), header.size())));
  if (coding.empty() || coding == "identity") return std::nullopt;
  if (coding == "gzip" || coding == "x-gzip") return ContentEncoding::kGzip;
  if (coding == "deflate") return ContentEncoding::kDeflate;
  return absl::UnimplementedError(
      absl::StrCat("Content-Encoding '", coding,
                   "' is not supported: send the body as it is, or with gzip or deflate (one "
                   "coding)"));
}

struct BodyInflater::Stream {
  z_stream z{};
};

BodyInflater::BodyInflater(ContentEncoding encoding)
    : encoding_(encoding), stream_(std::make_unique<Stream>()) {
  // inflateInit2 allocates only its state; it fails only without memory, which Append reports.
  initialized_ =
      inflateInit2(&stream_->z,
                   encoding == ContentEncoding::kGzip ? kGzipWindowBits : kZlibWindowBits) == Z_OK;
}

BodyInflater::~BodyInflater() {
  if (initialized_) inflateEnd(&stream_->z);
}

absl::Status BodyInflater::Append(std::string_view compressed, std::string& out, size_t limit) {
  if (!initialized_) {
    return absl::ResourceExhaustedError("no memory to inflate the body");
  }
  z_stream& z = stream_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  z.avail_in = static_cast<uInt>(compressed.size());
  if (!compressed.empty()) started_ = true;
  while (z.avail_in > 0) {
    if (ended_) {
      // gzip: another member follows; deflate has one stream, and nothing may follow it.
      if (encoding_ == ContentEncoding::kDeflate) {
        return absl::InvalidArgumentError("the deflate body goes on after its end");
      }
      inflateReset(&z);
      ended_ = false;
    }
    // At the limit, a one-byte probe: input that decodes to nothing more (a gzip trailer) is
    // still taken; a single byte more is a body past the limit.
    char probe = 0;
    const bool at_limit = out.size() >= limit;
    const size_t room = at_limit ? 1 : std::min(kStep, limit - out.size());
    const size_t before = out.size();
    if (!at_limit) out.resize(before + room);
    z.next_out =
        at_limit ? reinterpret_cast<Bytef*>(&probe) : reinterpret_cast<Bytef*>(out.data() + before);
    z.avail_out = static_cast<uInt>(room);
    const int result = inflate(&z, Z_NO_FLUSH);
    const size_t produced = room - z.avail_out;
    if (at_limit && produced > 0) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the ", name(), " body inflates to more than ", limit, " bytes"));
    }
    if (!at_limit) out.resize(before + produced);
    if (result == Z_STREAM_END) {
      ended_ = true;
      continue;
    }
    if (result == Z_OK || (result == Z_BUF_ERROR && z.avail_out == 0)) continue;
    return absl::InvalidArgumentError(
        absl::StrCat("the body is not valid ", name(),
                     " data (zlib: ", z.msg != nullptr ? z.msg : "no progress", ")"));
  }
  return absl::OkStatus();
}

absl::Status BodyInflater::Finish() const {
  // No bytes at all is no body (a request without one that names a coding anyway), not a
  // truncated stream.
  if (!started_) return absl::OkStatus();
  if (!ended_) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", name(), " body ends before its compressed stream does (truncated?)"));
  }
  return absl::OkStatus();
}

}  // namespace neuronserve
