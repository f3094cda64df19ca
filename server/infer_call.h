// InferCall: one InferRequest/InferResponse pair seen as core's InferenceJob.
//
// Bind() runs on the gRPC thread: it finds the model, checks the request against the model's
// tensors (nothing invalid reaches the device), points each model input at the request's own
// bytes and names the response's outputs. The core worker then copies the request's bytes into
// the device tensors and the device's outputs straight into the response message: one copy in,
// one copy out. Where a tensor's field is wider than its elements (float16 in float_data, int8
// in int32_data, ...) the input is converted in Bind, on the gRPC thread, and the output after
// the read, in FillResponse, from a staging buffer. Subclasses finish the gRPC call in
// Complete().
#ifndef NEURON_SERVE_SERVER_INFER_CALL_H_
#define NEURON_SERVE_SERVER_INFER_CALL_H_

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "core/lifecycle/model_registry.h"
#include "core/serving/inference_job.h"
#include "core/serving/request_validation.h"
#include "neuronserve/v1/neuron_serving.pb.h"
#include "server/infer_context.h"

namespace neuronserve {

class InferCall : public InferenceJob {
 public:
  // Validates `request` against the model it names and prepares `response` (id, model, and
  // the wanted outputs' names and shapes). Both messages must outlive the call. On an error
  // the call keeps its lease (if it found the model) until FillResponse.
  absl::Status Bind(const InferContext& context, const v1::InferRequest& request,
                    v1::InferResponse& response);
  // What Bind does first, alone: for a call refused before it could look at the model (the
  // daemon is draining). The caller then answers it through FillResponse.
  void BeginUnbound(const InferContext& context, const v1::InferRequest& request,
                    v1::InferResponse& response);
  // Queues the bound call for the model's cores. On an error the call was not queued (the
  // caller answers it through FillResponse).
  absl::Status Submit();

  absl::Span<const uint8_t> Input(size_t index) const override { return inputs_[index]; }
  absl::Span<uint8_t> Output(size_t index) override;

  // Records the timing in the response, and on an error drops any partial outputs; counts
  // the outcome (RecordRequestOutcome: the model's succeeded/failed and the metrics), then
  // lets the model go (an unload waits for it). Every call's outcome passes here exactly once
  // (Bind and Submit errors included): the one place a call's outcome is counted.
  void FillResponse(const absl::Status& status, const ExecutionTiming& timing);
  // The access log line of the finished call, when the daemon keeps one. The response must
  // still exist. `identity`: the caller's name (call_guard.h), empty when it has none.
  void LogAccess(std::string_view method, std::string_view peer,
                 std::string_view identity) const;

 protected:
  v1::InferResponse* response() const { return response_; }

 private:
  // Converts the staged outputs into their response fields.
  void FinishOutputs();

  const InferContext* context_ = nullptr;
  LoadedModel::Lease lease_;  // from Bind until FillResponse
  // The model version's metrics once the lease is taken, else the unknown model's.
  const ModelRequestMetrics* request_metrics_ = nullptr;
  v1::InferResponse* response_ = nullptr;
  absl::Time started_;
  absl::StatusCode outcome_ = absl::StatusCode::kOk;
  ExecutionTiming timing_;
  absl::Duration total_;
  uint64_t bytes_in_ = 0;
  uint64_t bytes_out_ = 0;
  // Per model input, its device bytes: the request's own, or those of converted_inputs_.
  absl::InlinedVector<absl::Span<const uint8_t>, 4> inputs_;
  absl::InlinedVector<std::vector<uint8_t>, 4> converted_inputs_;
  // Per model output, its index in the response or -1, and the field its values go in.
  absl::InlinedVector<int, 4> output_slots_;
  absl::InlinedVector<ValueField, 4> output_fields_;
  // Per model output that needs a conversion, the elements as the device wrote them; empty
  // for the others (and until the first such output).
  std::vector<std::vector<uint8_t>> staged_outputs_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_INFER_CALL_H_
