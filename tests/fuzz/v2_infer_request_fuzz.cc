// libFuzzer target: an Open Inference Protocol inference.ModelInferRequest as the daemon
// receives it over gRPC, bound with V2InferCall::Bind against the models of sim_serving.h,
// loaded READY on the simulated runtime: datatypes, shapes, raw_input_contents or typed
// contents, the `timeout` parameter and the outputs asked for.
//
// Input: the request's wire bytes (unparseable: skipped). Checks, besides the sanitizers: a
// refusal is INVALID_ARGUMENT, NOT_FOUND or FAILED_PRECONDITION naming the model, and leaves no
// output; a bound call's inputs are exactly their tensors' sizes (a raw input its own bytes),
// its outputs those asked for (all when none); answered as a core worker answers it, the
// response is raw whatever form the request took (one raw_output_contents per output, no
// contents), as Triton answers. Shared memory (sim_serving.h's regions): an input named in a
// region is bound to the region's bytes in place, and an output named in one is written there
// with an empty raw entry.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "base/v2_datatype_name.h"
#include "google/protobuf/stubs/logging.h"
#include "inference/grpc_service.pb.h"
#include "server/shared_memory/shared_memory_registry.h"
#include "server/v2/v2_infer_call.h"
#include "tests/fuzz/bind_checks.h"
#include "tests/fuzz/sim_serving.h"

namespace {

using neuronserve::fuzz::AllBytesAre;
using neuronserve::fuzz::Require;

// Bind is all this target runs: the call is never queued, so nothing completes (and answers) it.
class UnsubmittedCall final : public neuronserve::V2InferCall {
 public:
  bool Cancelled() const override { return false; }
  void Answer(const absl::Status& /*status*/, bool /*final*/) override { std::abort(); }
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

// The shared-memory range a tensor's parameters name (the call bound, so they are valid), or
// an empty span when they name none.
absl::Span<uint8_t> SharedRange(
    const google::protobuf::Map<std::string, inference::InferParameter>& parameters) {
  const auto region = parameters.find("shared_memory_region");
  if (region == parameters.end()) return {};
  const auto integer = [&](const char* name) -> uint64_t {
    const auto found = parameters.find(name);
    if (found == parameters.end()) return 0;
    return found->second.parameter_choice_case() == inference::InferParameter::kInt64Param
               ? static_cast<uint64_t>(found->second.int64_param())
               : found->second.uint64_param();
  };
  const std::shared_ptr<const neuronserve::SharedMemoryRegion> held =
      neuronserve::fuzz::SimServingContext().shared_memory->Find(region->second.string_param());
  Require(held != nullptr);
  absl::StatusOr<absl::Span<uint8_t>> range =
      held->Slice(integer("shared_memory_offset"), integer("shared_memory_byte_size"), "fuzz");
  Require(range.ok());
  return *range;
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
    (void)call.FillResponse(status, ExecutionTiming{});  // the refusal, counted
    Require(response.outputs_size() == 0 && response.raw_output_contents_size() == 0);
    return 0;
  }

  absl::StatusOr<LoadedModel::Lease> lease = context.registry->Acquire(request.model_name());
  Require(lease.ok());
  const LoadedModel& model = **lease;
  Require(response.model_version() == model.identity().version);
  const bool raw_request = request.raw_input_contents_size() > 0;
  // An input in shared memory is bound to its region's bytes in place; the others take the
  // raw_input_contents entries in order.
  for (size_t i = 0; i < model.inputs().size(); ++i) {
    int raw_index = 0;
    for (int k = 0; k < request.inputs_size(); ++k) {
      const absl::Span<uint8_t> range = SharedRange(request.inputs(k).parameters());
      if (request.inputs(k).name() == model.inputs()[i].name) {
        const absl::Span<const uint8_t> bound = call.Input(i);
        if (range.data() != nullptr) {
          Require(bound.data() == range.data() && bound.size() == range.size());
        } else if (raw_request) {
          const std::string& given = request.raw_input_contents(raw_index);
          Require(bound.size() == given.size() &&
                  std::memcmp(bound.data(), given.data(), bound.size()) == 0);
        }
      }
      if (range.data() == nullptr) ++raw_index;
    }
  }
  const int answered = request.outputs_size() > 0 ? request.outputs_size()
                                                  : static_cast<int>(model.outputs().size());
  Require(response.outputs_size() == answered);
  fuzz::RequireBoundAndAnswer(call, model, answered);

  Require(response.raw_output_contents_size() == response.outputs_size());
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
    const absl::Span<uint8_t> region = request.outputs_size() > 0
                                           ? SharedRange(request.outputs(k).parameters())
                                           : absl::Span<uint8_t>();
    if (region.data() != nullptr) {
      // Written into its region, where the answer put its bytes; its place in the message empty.
      Require(carried == 0 && response.raw_output_contents(k).empty());
      Require(region.size() >= spec->byte_size);
      Require(AllBytesAre(
          std::string_view(reinterpret_cast<const char*>(region.data()), spec->byte_size),
          static_cast<uint8_t>(index + 1)));
    } else {
      Require(carried == 0);
      Require(response.raw_output_contents(k).size() == spec->byte_size);
      Require(AllBytesAre(response.raw_output_contents(k), static_cast<uint8_t>(index + 1)));
    }
  }
  return 0;
}
