// libFuzzer target: an Open Inference Protocol inference.ModelInferRequest as the daemon
// receives it over gRPC, bound with V2InferCall::Bind against the models of sim_serving.h,
// loaded READY on the simulated runtime: datatypes, shapes, raw_input_contents or typed
// contents, the `timeout` parameter and the outputs asked for.
//
// Input: the request's wire bytes (unparseable: skipped). Checks, besides the sanitizers: a
// refusal is INVALID_ARGUMENT, NOT_FOUND or FAILED_PRECONDITION naming the model, and leaves no
// output; a bound call's inputs are exactly their tensors' sizes (a raw input its own bytes),
// its outputs those asked for (all when none); answered as a core worker answers it, a raw
// request's response is raw, and the response is raw (one raw_output_contents per output, no
// contents) or typed (each output's elements in exactly one contents field), never a mix.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "base/v2_datatype_name.h"
#include "google/protobuf/stubs/logging.h"
#include "inference/grpc_service.pb.h"
#include "server/v2/v2_infer_call.h"
#include "tests/fuzz/bind_checks.h"
#include "tests/fuzz/sim_serving.h"

namespace {

using neuronserve::fuzz::AllBytesAre;
using neuronserve::fuzz::Require;

// Bind is all this target runs: the call is never queued, so nothing completes it.
class UnsubmittedCall final : public neuronserve::V2InferCall {
 public:
  bool Cancelled() const override { return false; }
  void Complete(absl::Status /*status*/, const neuronserve::ExecutionTiming& /*timing*/) override {
    std::abort();
  }
};

// The number of values `contents` carries, 0 when none; more than one field filled aborts.
size_t CarriedValues(const inference::InferTensorContents& contents) {
  const int counts[] = {contents.bool_contents_size(),   contents.int_contents_size(),
                        contents.int64_contents_size(),  contents.uint_contents_size(),
                        contents.uint64_contents_size(), contents.fp32_contents_size(),
                        contents.fp64_contents_size(),   contents.bytes_contents_size()};
  size_t carried = 0;
  int fields = 0;
  for (const int count : counts) {
    if (count == 0) continue;
    carried = static_cast<size_t>(count);
    ++fields;
  }
  Require(fields <= 1);
  return carried;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  // Protobuf logs every string field of invalid UTF-8 it parses to stderr; the fuzzer's output
  // is for findings.
  google::protobuf::SetLogHandler(nullptr);
  (void)neuronserve::fuzz::SimServingContext();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace neuronserve;
  inference::ModelInferRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  const InferContext& context = fuzz::SimServingContext();

  UnsubmittedCall call;
  inference::ModelInferResponse response;
  const absl::Status status = call.Bind(context, request, response);
  Require(response.id() == request.id());
  Require(response.model_name() == request.model_name());
  if (!status.ok()) {
    fuzz::RequireNamedRefusal(status, request.model_name());
    call.FillResponse(status, ExecutionTiming{});
    Require(response.outputs_size() == 0 && response.raw_output_contents_size() == 0);
    return 0;
  }

  absl::StatusOr<LoadedModel::Lease> lease = context.registry->Acquire(request.model_name());
  Require(lease.ok());
  const LoadedModel& model = **lease;
  Require(response.model_version() == model.identity().version);
  const bool raw_request = request.raw_input_contents_size() > 0;
  if (raw_request) {
    for (size_t i = 0; i < model.inputs().size(); ++i) {
      for (int k = 0; k < request.inputs_size(); ++k) {
        if (request.inputs(k).name() != model.inputs()[i].name) continue;
        const std::string& given = request.raw_input_contents(k);
        const absl::Span<const uint8_t> bound = call.Input(i);
        Require(bound.size() == given.size() &&
                std::memcmp(bound.data(), given.data(), bound.size()) == 0);
      }
    }
  }
  const int answered = request.outputs_size() > 0 ? request.outputs_size()
                                                  : static_cast<int>(model.outputs().size());
  Require(response.outputs_size() == answered);
  fuzz::RequireBoundAndAnswer(call, model, answered);

  const bool raw_response = response.raw_output_contents_size() > 0;
  if (raw_request) Require(raw_response);
  if (raw_response) Require(response.raw_output_contents_size() == response.outputs_size());
  for (int k = 0; k < response.outputs_size(); ++k) {
    const auto& output = response.outputs(k);
    const auto spec = std::find_if(model.outputs().begin(), model.outputs().end(),
                                   [&](const TensorSpec& s) { return s.name == output.name(); });
    Require(spec != model.outputs().end());
    const size_t index = static_cast<size_t>(spec - model.outputs().begin());
    Require(output.datatype() == V2DatatypeName(spec->dtype));
    Require(std::equal(output.shape().begin(), output.shape().end(), spec->shape.begin(),
                       spec->shape.end()));
    const size_t carried = CarriedValues(output.contents());
    if (raw_response) {
      Require(carried == 0);
      Require(response.raw_output_contents(k).size() == spec->byte_size);
      Require(AllBytesAre(response.raw_output_contents(k), static_cast<uint8_t>(index + 1)));
    } else {
      Require(carried == ElementCount(spec->shape));
    }
  }
  return 0;
}
