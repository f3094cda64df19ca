// libFuzzer target: a neuronserve.v1.InferRequest as the daemon receives it, bound with
// NativeInferCall::Bind against the models of sim_serving.h, loaded READY on the simulated
// runtime (the registry, the validation and the conversions are the daemon's own).
//
// Input: the request's wire bytes (unparseable: skipped). Checks, besides the sanitizers: a
// refusal is INVALID_ARGUMENT, NOT_FOUND or FAILED_PRECONDITION naming the model, and leaves no
// output; a bound call's inputs are exactly their tensors' sizes (a raw_data input its own
// bytes), its outputs those asked for (all when none), and, answered as a core worker answers
// it, each output carries its tensor's elements in exactly one field.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "google/protobuf/stubs/logging.h"
#include "neuronserve/v1/neuron_serving.pb.h"
#include "server/native/native_infer_call.h"
#include "tests/fuzz/bind_checks.h"
#include "tests/fuzz/sim_serving.h"

namespace {

using neuronserve::fuzz::AllBytesAre;
using neuronserve::fuzz::Require;

// Bind is all this target runs: the call is never queued, so nothing completes (and answers) it.
class UnsubmittedCall final : public neuronserve::NativeInferCall {
 public:
  bool Cancelled() const override { return false; }
  void Answer(const absl::Status& /*status*/, bool /*final*/) override { std::abort(); }
};

// The number of values `output` carries, requiring exactly one field to carry them; raw_data's
// values are bytes.
size_t CarriedValues(const neuronserve::v1::OutputTensor& output, bool& raw) {
  const size_t counts[] = {output.raw_data().size(),
                           static_cast<size_t>(output.float_data_size()),
                           static_cast<size_t>(output.int32_data_size()),
                           static_cast<size_t>(output.uint32_data_size()),
                           static_cast<size_t>(output.int64_data_size()),
                           static_cast<size_t>(output.uint64_data_size())};
  size_t carried = 0;
  int fields = 0;
  for (const size_t count : counts) {
    if (count == 0) continue;
    carried = count;
    ++fields;
  }
  Require(fields == 1);
  raw = !output.raw_data().empty();
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
  v1::InferRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  const InferContext& context = fuzz::SimServingContext();

  UnsubmittedCall call;
  v1::InferResponse response;
  const absl::Status status = call.Bind(context, request, response);
  Require(response.id() == request.id());
  Require(response.model() == request.model());
  if (!status.ok()) {
    fuzz::RequireNamedRefusal(status, request.model());
    (void)call.FillResponse(status, ExecutionTiming{});  // the refusal, counted
    Require(response.outputs_size() == 0);
    return 0;
  }

  absl::StatusOr<LoadedModel::Lease> lease = context.registry->Acquire(request.model());
  Require(lease.ok());
  const LoadedModel& model = **lease;
  Require(response.version() == model.identity().version);
  for (size_t i = 0; i < model.inputs().size(); ++i) {
    for (const v1::InputTensor& given : request.inputs()) {
      if (given.name() != model.inputs()[i].name || given.raw_data().empty()) continue;
      const absl::Span<const uint8_t> bound = call.Input(i);
      Require(bound.size() == given.raw_data().size() &&
              std::memcmp(bound.data(), given.raw_data().data(), bound.size()) == 0);
    }
  }
  const int answered = request.outputs_size() > 0 ? request.outputs_size()
                                                  : static_cast<int>(model.outputs().size());
  Require(response.outputs_size() == answered);
  fuzz::RequireBoundAndAnswer(call, model, answered);

  for (const v1::OutputTensor& output : response.outputs()) {
    const TensorSpec* spec = nullptr;
    size_t index = 0;
    for (; index < model.outputs().size(); ++index) {
      if (model.outputs()[index].name == output.name()) {
        spec = &model.outputs()[index];
        break;
      }
    }
    Require(spec != nullptr);
    Require(output.dtype() == DataTypeName(spec->dtype));
    Require(std::equal(output.shape().begin(), output.shape().end(), spec->shape.begin(),
                       spec->shape.end()));
    bool raw = false;
    const size_t carried = CarriedValues(output, raw);
    if (raw) {
      Require(carried == spec->byte_size);
      Require(AllBytesAre(output.raw_data(), static_cast<uint8_t>(index + 1)));
    } else {
      Require(carried == ElementCount(spec->shape));
    }
  }
  return 0;
}
