// A request body sent with Content-Encoding gzip or deflate (tritonclient's
// request_compression_algorithm), inflated as it streams in, so that the body limit applies to
// the decoded bytes and a decompression bomb is refused without ever holding more than the
// limit. gzip is RFC 1952 (several members one after another, as `cat a.gz b.gz` makes, are
// one body); deflate is zlib's format, RFC 1950, as HTTP defines it and tritonclient sends it.
//
// Thread safety: one exchange's body, fed by one thread at a time (the HTTP server's thread that
// reads the connection). Ownership: owns its zlib stream (RAII).
#ifndef NEURON_SERVE_SERVER_HTTP_BODY_INFLATER_H_
#define NEURON_SERVE_SERVER_HTTP_BODY_INFLATER_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace neuronserve {

enum class ContentEncoding { kGzip, kDeflate };

// The encoding a Content-Encoding header names (any case, surrounding spaces ignored): nullopt
// for none and "identity"; kGzip for "gzip" and "x-gzip"; kDeflate for "deflate". Anything else
// (another coding, or a list of several) is UNIMPLEMENTED naming it, which the server answers
// 415.
absl::StatusOr<std::optional<ContentEncoding>> ParseContentEncoding(std::string_view header);

class BodyInflater {
 public:
  explicit BodyInflater(ContentEncoding encoding);
  ~BodyInflater();
  BodyInflater(const BodyInflater&) = delete;
  BodyInflater& operator=(const BodyInflater&) = delete;

  // Inflates `compressed` (the next bytes of the body) onto the end of `out`, never letting
  // `out` grow past `limit` bytes: RESOURCE_EXHAUSTED the moment the decoded body would (the
  // caller answers 413). INVALID_ARGUMENT when the bytes are not of the encoding, or continue
  // past the end of a deflate stream.
  absl::Status Append(std::string_view compressed, std::string& out, size_t limit);

  // After the last byte: INVALID_ARGUMENT when the stream stopped before its end (a truncated
  // body). No byte at all is an empty body, not an error.
  absl::Status Finish() const;

  const char* name() const { return encoding_ == ContentEncoding::kGzip ? "gzip" : "deflate"; }

 private:
  struct Stream;  // zlib's z_stream, kept out of this header

  const ContentEncoding encoding_;
  std::unique_ptr<Stream> stream_;
  bool initialized_ = false;
  bool ended_ = false;    // the current member (gzip) or the stream (deflate) reached its end
  bool started_ = false;  // any byte arrived
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_HTTP_BODY_INFLATER_H_
