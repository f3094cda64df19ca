// libFuzzer target: a REST inference body as the daemon receives it, inflated when it is
// compressed (BodyInflater, as the HTTP server feeds it), then through the binary extension's
// split (SplitRestBody) and the JSON parser (ParseRestInferRequest).
//
// Input: the value of the Inference-Header-Content-Length header up to the first '\n' (an empty
// line: no header), then the body. A first line that starts with "gzip:" or "deflate:" says the
// body has that Content-Encoding (the header's value follows the colon); it is fed to the
// inflater in pieces whose size the body's first byte picks. Checks, besides the sanitizers: the
// inflated body never exceeds the limit and a refusal of it is INVALID_ARGUMENT or
// RESOURCE_EXHAUSTED; the split's parts make up the body, and every refusal is INVALID_ARGUMENT
// naming the model.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "server/http/body_inflater.h"
#include "server/rest/v2_rest_body.h"
#include "server/rest/v2_rest_request.h"

namespace {

constexpr std::string_view kModel = "fuzzed";
// The daemon's body limit stands at --max-message-bytes; smaller here, so bombs reach it fast.
constexpr size_t kInflateLimit = 1 << 20;

void Require(bool condition) {
  if (!condition) std::abort();
}

void RequireNamedRefusal(const absl::Status& status) {
  Require(status.code() == absl::StatusCode::kInvalidArgument);
  Require(status.message().find("model 'fuzzed'") != absl::string_view::npos);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  if (newline == std::string_view::npos) return 0;
  std::string_view header = input.substr(0, newline);
  std::string_view body = input.substr(newline + 1);

  std::string inflated;
  for (const auto& [prefix, encoding] :
       {std::pair{std::string_view("gzip:"), neuronserve::ContentEncoding::kGzip},
        std::pair{std::string_view("deflate:"), neuronserve::ContentEncoding::kDeflate}}) {
    if (header.substr(0, prefix.size()) != prefix) continue;
    header.remove_prefix(prefix.size());
    neuronserve::BodyInflater inflater(encoding);
    const size_t piece = body.empty() ? 1 : 1 + static_cast<uint8_t>(body[0]) % 64 * 64;
    absl::Status status;
    for (size_t at = 0; at < body.size() && status.ok(); at += piece) {
      status = inflater.Append(body.substr(at, piece), inflated, kInflateLimit);
      Require(inflated.size() <= kInflateLimit);
    }
    if (status.ok()) status = inflater.Finish();
    if (!status.ok()) {
      Require(status.code() == absl::StatusCode::kInvalidArgument ||
              status.code() == absl::StatusCode::kResourceExhausted);
      return 0;
    }
    body = inflated;
    break;
  }

  const absl::StatusOr<neuronserve::RestBodyParts> parts =
      neuronserve::SplitRestBody(body, header, kModel);
  if (!parts.ok()) {
    RequireNamedRefusal(parts.status());
    return 0;
  }
  Require(parts->json.data() == body.data());
  Require(parts->json.size() + parts->binary.size() == body.size());

  neuronserve::RestInferRequest request;
  const absl::Status parsed = neuronserve::ParseRestInferRequest(parts->json, kModel, request);
  if (!parsed.ok()) RequireNamedRefusal(parsed);
  return 0;
}
