#include "server/v2/v2_infer_call.h"

#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/grpc/raw_message.h"
#include "server/grpc/repeated_field_resize.h"
#include "server/oip/v2_datatype.h"
#include "server/oip/v2_request_rules.h"
#include "server/shared_memory/shared_memory_reference.h"

namespace neuronserve {
namespace {

bool HasContents(const inference::InferTensorContents& c) {
  return c.bool_contents_size() > 0 || c.int_contents_size() > 0 || c.int64_contents_size() > 0 ||
         c.uint_contents_size() > 0 || c.uint64_contents_size() > 0 || c.fp32_contents_size() > 0 ||
         c.fp64_contents_size() > 0 || c.bytes_contents_size() > 0;
}

// INVALID_ARGUMENT for an input that carries typed contents in a request that also carries
// raw_input_contents: Triton's text first (scripts written for Triton match it), then how to mend.
absl::Status ContentsBesideRawError(absl::string_view model, absl::string_view input) {
  return absl::InvalidArgumentError(absl::StrCat(
      "contents field must not be specified when using raw_input_contents for '", input,
      "' for model '", model,
      "': send every input's values one way, all in raw_input_contents (one entry per input, in "
      "order) or all in their contents fields"));
}

// The queue-time limit of request parameter "timeout" (microseconds), or zero for none. The
// parameter's oneof is this carrier's own; what its value may be is the protocol's
// (server/oip/v2_request_rules.h), shared with REST.
absl::StatusOr<absl::Duration> QueueTimeout(const std::string& model,
                                            const inference::ModelInferRequest& request) {
  const auto found = request.parameters().find("timeout");
  if (found == request.parameters().end()) return absl::ZeroDuration();
  const inference::InferParameter& parameter = found->second;
  switch (parameter.parameter_choice_case()) {
    case inference::InferParameter::kInt64Param:
      return V2QueueTimeout(model, parameter.int64_param());
    case inference::InferParameter::kUint64Param:
      return V2QueueTimeout(model, V2TimeoutFromUnsigned(parameter.uint64_param()));
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("model '", model, "': ", kV2TimeoutMustBeAnInteger));
  }
}

// The shared-memory reference a tensor's parameters make (shared_memory_reference.h), read
// from this carrier's InferParameter oneof; nullopt when the tensor names no region. Errors name
// the model's `role` ("input", "output") `tensor_name`; the name is built only then, so the
// common request (no parameters) costs one check and no allocation.
absl::StatusOr<std::optional<SharedMemoryReference>> SharedMemoryOf(
    const google::protobuf::Map<std::string, inference::InferParameter>& parameters,
    const std::string& model, absl::string_view role, const std::string& tensor_name) {
  if (parameters.empty()) return std::nullopt;
  const std::string tensor =
      absl::StrCat("model '", model, "' ", std::string(role), " '", tensor_name, "'");
  GivenParameter<absl::string_view> region;
  GivenParameter<int64_t> offset;
  GivenParameter<int64_t> byte_size;
  if (const auto found = parameters.find(std::string(kSharedMemoryRegionParameter));
      found != parameters.end()) {
    if (found->second.parameter_choice_case() == inference::InferParameter::kStringParam) {
      region.value = found->second.string_param();
    } else {
      region.wrong_type = "another type than string_param";
    }
  }
  const auto integer = [&](absl::string_view name, GivenParameter<int64_t>& given) {
    const auto found = parameters.find(std::string(name));
    if (found == parameters.end()) return;
    const inference::InferParameter& parameter = found->second;
    if (parameter.parameter_choice_case() == inference::InferParameter::kInt64Param) {
      given.value = parameter.int64_param();
    } else if (parameter.parameter_choice_case() == inference::InferParameter::kUint64Param &&
               parameter.uint64_param() <=
                   static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      given.value = static_cast<int64_t>(parameter.uint64_param());
    } else if (parameter.parameter_choice_case() == inference::InferParameter::kUint64Param) {
      given.wrong_type = "a uint64_param too large for any byte count";
    } else {
      given.wrong_type = "another type than int64_param or uint64_param";
    }
  };
  integer(kSharedMemoryOffsetParameter, offset);
  integer(kSharedMemoryByteSizeParameter, byte_size);
  return ReadSharedMemoryReference(tensor, region, offset, byte_size);
}

}  // namespace

void V2InferCall::BeginUnbound(const InferContext& context, const Request& request,
                               Response& response) {
  Begin(context, request.model_name(), request.id());
  response_ = &response;
  response.set_id(request.id());
  response.set_model_name(request.model_name());
}

absl::Status V2InferCall::Bind(const InferContext& context, const Request& request,
                               Response& response) {
  BeginUnbound(context, request, response);
  if (request.model_name().empty()) {
    return absl::InvalidArgumentError(
        "ModelInferRequest.model_name is empty: name the model to run");
  }
  absl::Status status = AcquireModel(request.model_name(), request.model_version());
  if (model_acquired()) response.set_model_version(model().version_number());
  if (!status.ok()) return status;  // on an error FillResponse counts it and lets the model go
  const std::string& name = model().identity().name;
  absl::StatusOr<absl::Duration> timeout = QueueTimeout(name, request);
  if (!timeout.ok()) return timeout.status();
  if (*timeout > absl::ZeroDuration()) LimitQueueTime(*timeout);
  absl::InlinedVector<GivenInput, 4> given;
  if (absl::Status decoded = DecodeInputs(request, given); !decoded.ok()) return decoded;
  absl::InlinedVector<absl::string_view, 4> wanted;
  wanted.reserve(request.outputs_size());
  for (const auto& output : request.outputs()) {
    wanted.push_back(output.name());
    absl::StatusOr<std::optional<SharedMemoryReference>> shared =
        SharedMemoryOf(output.parameters(), name, "output", output.name());
    if (!shared.ok()) return shared.status();
    if (shared->has_value()) AddSharedOutput(output.name(), **shared);
  }
  // Every answer is raw, whatever form the inputs came in, as Triton answers: tritonclient's
  // InferResult.as_numpy reads raw_output_contents only.
  return BindTensors(given, wanted, OutputForm::kRaw, V2FieldNaming());
}

absl::Status V2InferCall::DecodeInputs(const Request& request,
                                       absl::InlinedVector<GivenInput, 4>& given) {
  const std::string& name = model().identity().name;
  // Inputs in shared memory carry no bytes in the message: raw_input_contents has an entry for
  // each of the others, in order (as tritonclient sends it). Each input's form is checked
  // before the entries are counted, input by input in Triton's order (its InferGRPCToInput): a
  // client that sends contents beside raw_input_contents (as Triton's
  // grpc_explicit_int_content_client.py does) reads that, in Triton's words, rather than a count
  // that its mistake made wrong.
  const bool raw = request.raw_input_contents_size() > 0;
  absl::InlinedVector<std::optional<SharedMemoryReference>, 4> shared(request.inputs_size());
  int in_message = 0;
  for (int i = 0; i < request.inputs_size(); ++i) {
    const auto& tensor = request.inputs(i);
    absl::StatusOr<std::optional<SharedMemoryReference>> reference =
        SharedMemoryOf(tensor.parameters(), name, "input", tensor.name());
    if (!reference.ok()) return reference.status();
    shared[i] = *reference;
    if (!shared[i].has_value()) ++in_message;
    if (!HasContents(tensor.contents())) continue;
    if (shared[i].has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "model '", name, "' input '", tensor.name(), "' names shared memory region '",
          shared[i]->region, "' and also carries contents; an input in shared memory carries no "
          "values"));
    }
    if (raw) return ContentsBesideRawError(name, tensor.name());
  }
  if (raw && request.raw_input_contents_size() != in_message) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", name, "': raw_input_contents has ",
                     request.raw_input_contents_size(), " entries for ", in_message, " inputs",
                     in_message == request.inputs_size() ? "" : " not in shared memory",
                     "; send one per input, in the order of inputs"));
  }
  given.resize(request.inputs_size());
  shapes_.resize(request.inputs_size());
  int raw_index = 0;
  for (int i = 0; i < request.inputs_size(); ++i) {
    const auto& tensor = request.inputs(i);
    const std::string where = absl::StrCat("model '", name, "' input '", tensor.name(), "'");
    GivenInput& input = given[i];
    input.name = tensor.name();
    // Checks that need the model's tensor; an unknown name is left for validation to report
    // with the list of the model's inputs.
    const TensorSpec* spec = V2FindTensor(model().inputs(), tensor.name());
    if (spec != nullptr) {
      if (absl::Status checked =
              CheckV2Datatype(name, "input", tensor.name(), spec->dtype, tensor.datatype());
          !checked.ok()) {
        return checked;
      }
      if (absl::Status shaped = V2CheckEmptyShape(where, *spec, tensor.shape_size());
          !shaped.ok()) {
        return shaped;
      }
    }
    absl::InlinedVector<uint32_t, 4>& shape = shapes_[i];
    shape.clear();
    for (const int64_t dimension : tensor.shape()) {
      if (dimension < 0 || dimension > std::numeric_limits<uint32_t>::max()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": shape dimension ", dimension, " is not a size"));
      }
      shape.push_back(static_cast<uint32_t>(dimension));
    }
    input.shape = absl::MakeConstSpan(shape);
    const inference::InferTensorContents& contents = tensor.contents();
    // Contents beside shared memory or raw_input_contents were refused above.
    if (shared[i].has_value()) {
      if (absl::Status bound = BindSharedInput(tensor.name(), *shared[i], input); !bound.ok()) {
        return bound;
      }
      continue;
    }
    if (raw) {
      const std::string& bytes = request.raw_input_contents(raw_index++);
      input.NoteField(ValueField::kRaw, bytes.data(), bytes.size());
      continue;
    }
    if (contents.fp64_contents_size() > 0 || contents.bytes_contents_size() > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": ", contents.fp64_contents_size() > 0 ? "fp64_contents" : "bytes_contents",
          " cannot carry a NeuronCore tensor; send ",
          spec != nullptr ? V2DatatypeName(spec->dtype) : "the tensor's datatype",
          " values in its contents field or raw_input_contents"));
    }
    if (spec != nullptr && !HasV2TypedContents(spec->dtype) && HasContents(contents)) {
      return absl::InvalidArgumentError(absl::StrCat(where, " is ", V2DatatypeName(spec->dtype),
                                                     ", which travels only in "
                                                     "raw_input_contents (",
                                                     spec->byte_size, " bytes)"));
    }
    input.NoteField(ValueField::kBool, contents.bool_contents().data(),
                    contents.bool_contents_size());
    input.NoteField(ValueField::kInt32, contents.int_contents().data(),
                    contents.int_contents_size());
    input.NoteField(ValueField::kInt64, contents.int64_contents().data(),
                    contents.int64_contents_size());
    input.NoteField(ValueField::kUInt32, contents.uint_contents().data(),
                    contents.uint_contents_size());
    input.NoteField(ValueField::kUInt64, contents.uint64_contents().data(),
                    contents.uint64_contents_size());
    input.NoteField(ValueField::kFloat, contents.fp32_contents().data(),
                    contents.fp32_contents_size());
    // BOOL and bool_contents go together: a BOOL input in another field, or bools given for
    // an input that says it is not BOOL, would be read as something the client did not mean.
    const bool says_bool = tensor.datatype() == "BOOL";
    if (input.second_field == ValueField::kNone && input.field != ValueField::kNone &&
        says_bool != (input.field == ValueField::kBool)) {
      return absl::InvalidArgumentError(
          says_bool ? absl::StrCat(where, " is BOOL: send its values in bool_contents, not ",
                                   std::string(V2ContentsFieldName(input.field)))
                    : absl::StrCat(where, " is ", tensor.datatype(),
                                   ": bool_contents carries BOOL inputs only"));
    }
  }
  return absl::OkStatus();
}

void V2InferCall::SetStreamError(StreamResponse& response, const absl::Status& status) {
  response.set_error_message(std::string(status.message()));
}

void V2InferCall::AddOutput(const TensorSpec& spec, absl::Span<const uint32_t> shape,
                            ValueField /*field*/) {
  auto* output = response_->add_outputs();
  output->set_name(spec.name);
  output->set_datatype(V2DatatypeName(spec.dtype));
  output->mutable_shape()->Add(shape.begin(), shape.end());
  // Every output has its raw_output_contents entry; one in shared memory (kNone) keeps its
  // place, empty, so the entries line up with the outputs, as Triton answers.
  response_->add_raw_output_contents();
}

void* V2InferCall::OutputValues(int slot, ValueField /*field*/, size_t count) {
  // Every output is raw (Bind): its bytes go in its raw_output_contents entry, or in a buffer
  // spliced into the answer in its place.
  if (char* detached = OutputBytesOutsideMessage(slot, count); detached != nullptr) return detached;
  return ResizeForOverwrite(*response_->mutable_raw_output_contents(slot), count);
}

absl::Status V2InferCall::SerializeUnary(std::string_view rpc, Response& response,
                                         DetachedBytes& detached, grpc::ByteBuffer& raw) {
  if (detached.empty()) return SerializeMessage(rpc, response, raw);
  // The other fields first, then every raw_output_contents entry in order, the detached ones
  // as slices (see server/grpc/detached_bytes.h). The entries are lent out of the message
  // meanwhile.
  google::protobuf::RepeatedPtrField<std::string> contents;
  contents.Swap(response.mutable_raw_output_contents());
  SplicedMessageWriter writer;
  writer.AppendMessage(response);
  constexpr int kRawOutputContents = inference::ModelInferResponse::kRawOutputContentsFieldNumber;
  for (int slot = 0; slot < contents.size(); ++slot) {
    std::optional<grpc::Slice> bytes = detached.Take(slot);
    if (!bytes.has_value()) {
      writer.AppendFieldHeader(kRawOutputContents, contents.Get(slot).size());
      writer.AppendBytes(contents.Get(slot));
      continue;
    }
    writer.AppendFieldHeader(kRawOutputContents, bytes->size());
    writer.AppendSlice(std::move(*bytes));
  }
  contents.Swap(response.mutable_raw_output_contents());
  return writer.Finish(rpc, response.GetTypeName(), raw);
}

void V2InferCall::DropOutputs() {
  response_->clear_outputs();
  response_->clear_raw_output_contents();
}

}  // namespace neuronserve
