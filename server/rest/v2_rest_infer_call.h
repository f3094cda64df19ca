// V2RestInferCall: an InferCall (server/call/infer_call.h) whose request and answer are the
// Open Inference Protocol's REST form, POST /v2/models/{name}[/versions/{version}]/infer, with
// Triton's binary tensor extension: the third front end beside NativeInferCall and V2InferCall.
//
// The HTTP thread parses the JSON part (v2_rest_request.h: a streaming parser into typed
// buffers), points binary inputs at the exchange's body (no copy), binds, queues and returns;
// the core worker that runs the call builds the answer and responds, so no HTTP thread waits on
// the device. Refused calls (parse and binding errors, a full queue, a draining daemon) are
// answered at once on the HTTP thread, {"error": "..."} with HttpStatusOf(code).
//
// Binary extension: with header Inference-Header-Content-Length: N the body's first N bytes are
// the JSON; the inputs that carry parameters.binary_data_size follow, in the order of `inputs`,
// and must fill the rest of the body exactly. Outputs asked for binary (request parameter
// binary_data_output, or the output's parameters.binary_data), and those whose datatype JSON
// cannot carry (FP8_*, FP32R, UNKNOWN), follow the JSON answer in the order of its `outputs`,
// each with parameters.binary_data_size; the device's buffers go out as they are (HttpResponse::
// more_body). The others are JSON `data`, flat, FP16/BF16 as numbers; a NaN or an infinity
// (which JSON has no number for) is null.
//
// A client that closes its connection while its call waits cancels the call: the HTTP server
// watches the suspended connection (HttpExchange::OnClientGone) and the call leaves its model's
// queue at once (InferCall::WithdrawIfQueued), or, when a worker has it already, is answered
// CANCELLED before it touches the device if it has not yet.
//
// Thread safety: bound on the HTTP thread, then run by one core worker, then answered; the
// queue orders those. Ownership: owns itself (deleted once it has responded); borrows the
// exchange, whose body its binary inputs view, until it responds.
#ifndef NEURON_SERVE_SERVER_REST_V2_REST_INFER_CALL_H_
#define NEURON_SERVE_SERVER_REST_V2_REST_INFER_CALL_H_

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

#include "server/call/infer_call.h"
#include "server/call/infer_context.h"
#include "server/http/http_exchange.h"
#include "server/rest/v2_rest_request.h"

namespace neuronserve {

class V2RestInferCall final : public InferCall {
 public:
  // The access log's method.
  static constexpr std::string_view kMethod = "RestModelInfer";

  // Handles the exchange: answers it at once (refused) or from the core worker.
  static void Start(const InferContext& infer, HttpExchange& exchange);

 private:
  V2RestInferCall(const InferContext& infer, HttpExchange& exchange);

  // Parses the body and binds the call (Begin included).
  absl::Status Bind();
  // The inputs, bound to their values (views into request_ and the exchange's body).
  absl::Status DecodeInputs(std::string_view binary, std::vector<GivenInput>& given);
  // The final answer builds the HTTP answer, logs the access, leaves the drain gate, responds
  // and deletes the call; a non-final one sends nothing (one HTTP answer per request: the
  // outputs stay for the final).
  void Answer(const absl::Status& status, bool final) override;
  HttpResponse BuildAnswer();

  bool Cancelled() const override { return client_gone_.load(std::memory_order_acquire); }

  void AddOutput(const TensorSpec& spec, absl::Span<const uint32_t> shape,
                 ValueField field) override;
  void* OutputValues(int slot, ValueField field, size_t count) override;
  void DropOutputs() override;
  RequestProtocol protocol() const override { return RequestProtocol::kV2Http; }

  // One output of the answer, copied from the model's spec (the lease ends before the answer
  // is built) with the bytes the device wrote.
  struct Output {
    std::string name;
    DataType dtype;
    std::vector<uint32_t> shape;
    bool binary = false;
    std::string bytes;
    // Written to this shared-memory region rather than the answer (byte_size: the output's).
    std::string region;
    uint64_t region_bytes = 0;
  };

  const InferContext& infer_;
  HttpExchange& exchange_;
  bool entered_gate_ = false;
  // Set on the HTTP server's watcher thread when the client closed its connection.
  std::atomic<bool> client_gone_{false};
  const std::string model_;    // the path's {name}
  const std::string version_;  // the path's {version}, empty when none
  std::string served_version_;
  RestInferRequest request_;
  std::vector<absl::InlinedVector<uint32_t, 4>> shapes_;
  std::vector<Output> outputs_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REST_V2_REST_INFER_CALL_H_
