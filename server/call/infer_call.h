// InferCall: one inference request and its response, seen as core's InferenceJob, whatever
// protocol carried it. The front ends (NativeInferCall for neuronserve.v1, V2InferCall for the
// Open Inference Protocol) decode their messages into the one request form (GivenInput per
// input, the wanted outputs, the output form) and write the answer back into their messages
// through the hooks below; everything else is here, once: finding the model and its version,
// validation (core/serving/request/request_validation.h), queueing, outcome counting, metrics
// and the access log.
//
// Binding runs on the gRPC thread: it finds the model, checks the request against the model's
// tensors (nothing invalid reaches the device), points each model input at the request's own
// bytes and names the response's outputs. The core worker then copies the request's bytes into
// the device tensors and the device's outputs straight into the response message: one copy in,
// one copy out. Where a tensor's field is wider than its elements (float16 in float_data, int8
// in int32_data, ...) the input is converted while binding, on the gRPC thread, and the output
// after the read, in FillResponse, from a staging buffer.
//
// Answers: a call answers through its protocol's adapter (the gRPC reactors, the REST call),
// which implements Answer(status, final). The shape is decided here for every front end: one
// call may answer many times, and its last answer has final=true. A later issue streams
// generated tokens through it (a gRPC stream, server-sent events, the native stream), one
// non-final answer per step; today every call answers once, with final=true.
// - Who calls what, when: the call's job ends once, through Complete (the core worker or a
//   responder thread, or the thread that withdraws it), or through Refuse when it was refused
//   before it reached a queue (a request that does not parse, a binding or Submit error, a
//   draining daemon), on the refusing thread. Both count the outcome (FillResponse) and then
//   give the final answer, with FillResponse's status; nothing answers after it. Non-final
//   answers come before it, from the thread that runs the call, always with an OK status; no
//   producer sends one yet, and an adapter whose protocol carries one answer per request (all
//   of today's) sends nothing for them: its message keeps the outputs for the final answer.
// - Outputs: an answer carries no outputs of its own. They are already where the protocol
//   sends them from (the adapter's message, or its OutputBytesHook's buffers), written by the
//   device through Output(); an answer says they are complete up to here. A failed final
//   answer comes after DropOutputs.
// - After the final answer the call is the adapter's alone: InferCall touches nothing of it
//   (the lease and the regions were let go in FillResponse), and the adapter may delete it
//   inside Answer (the REST call does) or keep it for the access log (LogAccess) until its
//   protocol is done with it.
// - Thread safety: answers of one call never overlap (they come from the one thread that
//   holds the call at the time: the queue's hand-offs order them); an adapter that also reacts
//   to its protocol's events (a cancel, a client gone) guards what those share itself.
//
// Shared memory: a front end that reads a tensor's shared-memory parameters
// (server/shared_memory/shared_memory_reference.h) binds an input with BindSharedInput (its
// bytes go to the device straight from the client's mapping) and an output with
// AddSharedOutput (the device's bytes go straight into the mapping; the response still lists
// the output, without values, so indexes line up). The call holds each region it uses until
// FillResponse, so unregistering one never pulls a mapping from under a request, and a region
// whose object shrank meanwhile (SharedMemoryRegion::lost) fails the call there.
//
// Thread safety: a call is bound on one thread, then touched by one core worker at a time, then
// finished; the queue's handoff orders those. Ownership: borrows the request and response
// messages (the subclass or its reactor owns them), which outlive the call.
#ifndef NEURON_SERVE_SERVER_CALL_INFER_CALL_H_
#define NEURON_SERVE_SERVER_CALL_INFER_CALL_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/lifecycle/model_registry.h"
#include "core/metrics/serving_metrics.h"
#include "core/serving/request/inference_job.h"
#include "core/serving/request/request_validation.h"
#include "core/serving/scheduling/job_withdrawal.h"
#include "server/call/infer_context.h"
#include "server/call/output_bytes_hook.h"
#include "server/shared_memory/shared_memory_reference.h"
#include "server/shared_memory/shared_memory_region.h"

namespace neuronserve {

class InferCall : public InferenceJob {
 public:
  // Queues the bound call for the model's cores. On an error the call was not queued (the
  // caller ends it with Refuse). A call already Cancelled() is withdrawn at once (answered
  // CANCELLED through Complete, on this thread).
  absl::Status Submit();
  // The job ended (InferenceJob): counts the outcome (FillResponse), then the final answer.
  // An adapter that overrides it does its own bookkeeping and calls this.
  void Complete(absl::Status status, const ExecutionTiming& timing) override {
    End(std::move(status), timing);
  }
  // Ends a call refused before it reached a queue, on this thread: as Complete, with no
  // timing (see the file comment).
  void Refuse(absl::Status status) { End(std::move(status), ExecutionTiming{}); }
  // The caller gave up (Cancelled() is true now): takes the call out of its model's queue at
  // once, freeing its slot, and completes it CANCELLED on this thread; no effect when it is
  // not queued (not submitted yet, executing, or answered). Any thread; the call must be alive
  // (a reactor's OnCancel, before OnDone). Returns true when it withdrew the call.
  bool WithdrawIfQueued();
  // WithdrawIfQueued in two steps (JobWithdrawal::TakeBack, then AnswerWithdrawn), for a
  // stream that finds its queued calls under a lock of its own.
  std::vector<JobRows> TakeBackIfQueued(absl::string_view* model) {
    return withdrawal_.TakeBack(*this, model);
  }

  // Raw outputs go where `hook` places them outside the response message when it takes them
  // (output_bytes_hook.h: for a gRPC unary answer, the large ones, which its SerializeUnary
  // splices in). Before Bind; without a hook every output stays in the message. `hook`
  // outlives the call.
  void PlaceOutputBytes(OutputBytesHook* hook) { output_bytes_hook_ = hook; }

  absl::Span<const uint8_t> Input(size_t index) const override { return inputs_[index]; }
  absl::Span<uint8_t> Output(size_t index) override;

  // Complete and Refuse do this first (tests and fuzzers call it alone, with no answer).
  // Records the timing in the response, and on an error drops any partial outputs; counts
  // the outcome (RecordRequestOutcome: the model's succeeded/failed and the metrics), then
  // lets the model and the shared-memory regions go (an unload waits for it). Every call's
  // outcome passes here exactly once (binding and Submit errors included): the one place a
  // call's outcome is counted. Returns the outcome to answer: `status`, or FAILED_PRECONDITION
  // when a region the call used lost its object's pages meanwhile.
  absl::Status FillResponse(absl::Status status, const ExecutionTiming& timing);
  // The access log line of the finished call, when the daemon keeps one. The request must
  // still exist. `identity`: the caller's name (server/grpc/call_guard.h; the HTTP exchange's
  // for REST), empty when it has none;
  // `traceparent`: the request's, checked (server/logs/traceparent.h), empty when none.
  void LogAccess(std::string_view method, std::string_view peer, std::string_view identity,
                 std::string_view traceparent) const;

 protected:
  // The first step of every call, bound or refused: `model` and `id` are views into the
  // request, which outlives the call.
  void Begin(const InferContext& context, absl::string_view model, absl::string_view id);
  // Takes a lease on `model` (NOT_FOUND, UNAVAILABLE, ... from the registry) and checks that
  // `version`, when given, is the one serving (FAILED_PRECONDITION naming both otherwise).
  absl::Status AcquireModel(absl::string_view model, absl::string_view version);
  // True once AcquireModel found the model (even when the version it asked for is not the one
  // serving); model() is the leased model then.
  bool model_acquired() const { return static_cast<bool>(lease_); }
  const LoadedModel& model() const { return *lease_; }
  // Matches `given` to the model's inputs, selects the `wanted` outputs (all when empty) and
  // adds each to the response (AddOutput) in the field `form` gives it. `naming`: the
  // protocol's words for fields and dtypes in error messages. For a batched model the request's
  // rows (its inputs' leading dimension, 1..max_batch_size) become the job's `rows`, and every
  // output has as many.
  absl::Status BindTensors(absl::Span<const GivenInput> given,
                           absl::Span<const absl::string_view> wanted, OutputForm form,
                           const FieldNaming& naming);
  // Bounds the time the call may wait in the queue (a request parameter of the protocol).
  void LimitQueueTime(absl::Duration limit);

  // Points `given` (the model input `input`, as the request names it) at `reference.byte_size`
  // bytes of the region, as raw element bytes; the region is held until FillResponse. After
  // AcquireModel (errors name the model). INVALID_ARGUMENT when the daemon has no shared
  // memory, the region is not registered or the range is outside it; FAILED_PRECONDITION when
  // its object shrank.
  absl::Status BindSharedInput(absl::string_view input, const SharedMemoryReference& reference,
                               GivenInput& given);
  // Sends the model output `output` (as the request names it) into the region rather than the
  // response; checked in BindTensors, which must follow (an output the call does not return,
  // or a region smaller than the output, is INVALID_ARGUMENT naming it).
  void AddSharedOutput(absl::string_view output, const SharedMemoryReference& reference);

  // The protocol's side of the response.
  // One answer of the call (see the file comment): `final` is true for the last, whose
  // `status` is the call's outcome; a non-final answer's status is OK.
  virtual void Answer(const absl::Status& status, bool final) = 0;
  // Appends the model's output `spec` to the response, of `shape` (spec.shape, its leading
  // dimension times the request's rows for a batched model); its values will travel in
  // `field`, or nowhere when `field` is kNone (the output goes to shared memory: the response
  // lists it without values). `shape` is valid during the call only.
  virtual void AddOutput(const TensorSpec& spec, absl::Span<const uint32_t> shape,
                         ValueField field) = 0;
  // The values of the response's output `slot` (the order AddOutput added them), resized to
  // `count` values of `field` for overwriting. Bytes (a raw output) go outside the message
  // when the call's OutputBytesHook takes them (OutputBytesOutsideMessage).
  virtual void* OutputValues(int slot, ValueField field, size_t count) = 0;
  // The buffer outside the message for a raw output of `bytes` at `slot`, or null when it stays
  // in the message (no hook, or the hook leaves it there).
  char* OutputBytesOutsideMessage(int slot, size_t bytes) {
    return output_bytes_hook_ != nullptr ? output_bytes_hook_->OutsideMessage(slot, bytes)
                                         : nullptr;
  }
  // Drops every output (the call failed).
  virtual void DropOutputs() = 0;
  // The front end, for neuronserve_requests_by_protocol_total.
  virtual RequestProtocol protocol() const = 0;
  // Tells the response how long the call queued and ran, for protocols that carry it.
  virtual void SetTiming(const ExecutionTiming& /*timing*/) {}

 private:
  // The end of the call: FillResponse, then the final answer.
  void End(absl::Status status, const ExecutionTiming& timing) {
    const absl::Status outcome = FillResponse(std::move(status), timing);
    Answer(outcome, /*final=*/true);
  }
  // Converts the staged outputs into their response fields.
  void FinishOutputs();
  // The region `reference` names, held by the call; INVALID_ARGUMENT naming `tensor` when
  // there is none (or no shared memory at all), FAILED_PRECONDITION when it is lost.
  absl::StatusOr<const SharedMemoryRegion*> HoldRegion(absl::string_view tensor,
                                                       const SharedMemoryReference& reference);
  // Resolves the outputs AddSharedOutput named, once the outputs are selected.
  absl::Status BindSharedOutputs(absl::Span<const bool> selected);

  // An output the request sends to shared memory, until BindTensors resolves it.
  struct SharedOutput {
    absl::string_view name;
    SharedMemoryReference reference;
  };

  const InferContext* context_ = nullptr;
  absl::string_view model_name_;  // as the request names it (access log)
  absl::string_view id_;          // the request's id (access log)
  std::string version_;           // the version that served, once the model is found
  LoadedModel::Lease lease_;      // from AcquireModel until FillResponse
  JobWithdrawal withdrawal_;      // where the call waits, from Submit until FillResponse
  // The adapter's (PlaceOutputBytes), or null: every output stays in the message.
  OutputBytesHook* output_bytes_hook_ = nullptr;
  // The model version's metrics once the lease is taken, else the unknown model's.
  const ModelRequestMetrics* request_metrics_ = nullptr;
  absl::Time started_;
  absl::StatusCode outcome_ = absl::StatusCode::kOk;
  ExecutionTiming timing_;
  absl::Duration total_;
  uint64_t bytes_in_ = 0;
  uint64_t bytes_held_ = 0;  // bytes_in_ less the inputs in client shared memory
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
  // An output's shape for AddOutput, kept for its capacity.
  std::vector<uint32_t> output_shape_;
  // Shared memory: the regions the call uses (until FillResponse), the outputs AddSharedOutput
  // named, and per model output its bytes in a region (empty for the others, and until the
  // first such output).
  absl::InlinedVector<std::shared_ptr<const SharedMemoryRegion>, 2> regions_;
  absl::InlinedVector<SharedOutput, 2> shared_outputs_;
  std::vector<absl::Span<uint8_t>> shared_output_bytes_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_CALL_INFER_CALL_H_
