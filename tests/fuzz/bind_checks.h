// What the inference fuzz targets (native_infer_request, v2_infer_request) check of a bound
// call, whatever protocol carried it: the promises of InferCall (server/call/infer_call.h) and
// of request validation (core/serving/request/request_validation.h). Each check aborts when
// broken, so the fuzzer reports it as a crash.
//
// Thread safety: plain functions of their arguments. Ownership: nothing is kept.
#ifndef NEURON_SERVE_TESTS_FUZZ_BIND_CHECKS_H_
#define NEURON_SERVE_TESTS_FUZZ_BIND_CHECKS_H_

#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/call/infer_call.h"

namespace neuronserve::fuzz {

inline void Require(bool condition) {
  if (!condition) std::abort();
}

// A refused bind: INVALID_ARGUMENT (the request), NOT_FOUND (no such model, or not READY) or
// FAILED_PRECONDITION (another version serves), with a message naming the model when the
// request named one (`model` empty: it named none, and the message must say so).
inline void RequireNamedRefusal(const absl::Status& status, std::string_view model) {
  const absl::StatusCode code = status.code();
  Require(code == absl::StatusCode::kInvalidArgument || code == absl::StatusCode::kNotFound ||
          code == absl::StatusCode::kFailedPrecondition);
  Require(!status.message().empty());
  if (!model.empty()) {
    Require(status.message().find(absl::StrCat("'", std::string(model), "'")) !=
            absl::string_view::npos);
  }
}

// A bound call's inputs and outputs against the model it leased: each input exactly its
// tensor's byte size; each output exactly its byte size or empty (not asked for), `answered`
// of them non-empty. The device's part is played by filling each output with its index + 1
// (so a response can be checked for what a device wrote), then the call is answered OK, as a
// core worker answers it; the caller checks the response's fields.
inline void RequireBoundAndAnswer(InferCall& call, const LoadedModel& model, int answered) {
  for (size_t i = 0; i < model.inputs().size(); ++i) {
    Require(call.Input(i).size() == model.inputs()[i].byte_size);
  }
  int filled = 0;
  for (size_t j = 0; j < model.outputs().size(); ++j) {
    const absl::Span<uint8_t> output = call.Output(j);
    if (output.empty()) continue;
    Require(output.size() == model.outputs()[j].byte_size);
    for (uint8_t& byte : output) byte = static_cast<uint8_t>(j + 1);
    ++filled;
  }
  Require(filled == answered);
  Require(call.FillResponse(absl::OkStatus(), ExecutionTiming{}).ok());
}

// True when every byte of `bytes` is `value` (an output the device filled, returned raw).
inline bool AllBytesAre(std::string_view bytes, uint8_t value) {
  for (const char byte : bytes) {
    if (static_cast<uint8_t>(byte) != value) return false;
  }
  return true;
}

}  // namespace neuronserve::fuzz

#endif  // NEURON_SERVE_TESTS_FUZZ_BIND_CHECKS_H_
