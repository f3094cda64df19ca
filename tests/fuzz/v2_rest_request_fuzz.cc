// libFuzzer target: a REST inference body as the daemon receives it, through the binary
// extension's split (SplitRestBody) and the JSON parser (ParseRestInferRequest).
//
// Input: the value of the Inference-Header-Content-Length header up to the first '\n' (an empty
// line: no header), then the body. Checks, besides the sanitizers: the split's parts make up the
// body, and every refusal is INVALID_ARGUMENT naming the model.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "server/rest/v2_rest_body.h"
#include "server/rest/v2_rest_request.h"

namespace {

constexpr std::string_view kModel = "fuzzed";

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
  const std::string_view header = input.substr(0, newline);
  const std::string_view body = input.substr(newline + 1);

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
