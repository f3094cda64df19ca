#include "server/rest/v2_rest_infer_call.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "server/admission/drain_gate.h"
#include "server/http/http_status.h"
#include "server/logs/traceparent.h"
#include "server/oip/v2_datatype.h"
#include "server/oip/v2_request_rules.h"
#include "server/rest/v2_rest_body.h"
#include "server/rest/v2_rest_data.h"
#include "server/shared_memory/shared_memory_reference.h"
#include "util/json_escape.h"

namespace neuronserve {
namespace {

// `text` as a JSON string, quotes included; bytes that are not UTF-8 become U+FFFD.
std::string JsonString(std::string_view text) {
  std::string out = "\"";
  AppendJsonEscaped(text, out);
  out += '"';
  return out;
}

template <typename T>
void AppendNumber(std::string& out, T value) {
  char buffer[64];
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(value)) {
      out += "null";  // JSON has no number for it
      return;
    }
  }
  const std::to_chars_result written = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, written.ptr);
}

template <typename T>
void AppendValues(std::string& out, const void* values, size_t count) {
  const auto* bytes = static_cast<const uint8_t*>(values);
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) out += ',';
    T value;
    std::memcpy(&value, bytes + i * sizeof(T), sizeof(T));
    AppendNumber(out, value);
  }
}

// The output's elements as JSON numbers, widened where the element is narrower than a JSON
// number's C++ type (float16 and bfloat16 to float, int8/int16 to int32, ...), exactly.
void AppendData(std::string& out, DataType dtype, const std::string& bytes, size_t count) {
  const ValueField field = TypedFieldOf(dtype);
  const auto elements =
      absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  const void* values = bytes.data();
  std::vector<uint8_t> widened;
  if (!FieldIsElementLayout(field, dtype)) {
    widened.resize(count * ValueFieldElementSize(field));
    WidenToField(dtype, elements, widened.data(), count);
    values = widened.data();
  }
  switch (field) {
    case ValueField::kFloat:
      return AppendValues<float>(out, values, count);
    case ValueField::kInt32:
      return AppendValues<int32_t>(out, values, count);
    case ValueField::kUInt32:
      return AppendValues<uint32_t>(out, values, count);
    case ValueField::kInt64:
      return AppendValues<int64_t>(out, values, count);
    case ValueField::kUInt64:
      return AppendValues<uint64_t>(out, values, count);
    default:
      break;
  }
}

}  // namespace

V2RestInferCall::V2RestInferCall(const InferContext& infer, HttpExchange& exchange)
    : infer_(infer),
      exchange_(exchange),
      model_(exchange.param("name")),
      version_(exchange.param("version")) {}

void V2RestInferCall::Start(const InferContext& infer, HttpExchange& exchange) {
  auto* call = new V2RestInferCall(infer, exchange);
  absl::Status status;
  call->entered_gate_ = infer.gate == nullptr || infer.gate->TryEnter();
  if (call->entered_gate_) {
    status = call->Bind();
    if (status.ok()) {
      // Runs at most once, and never after Answer's Respond returned (which waits for it), so
      // the call is alive whenever it runs; it may answer the call itself (Respond from inside
      // on_gone does not wait).
      exchange.OnClientGone([call] {
        call->client_gone_.store(true, std::memory_order_release);
        call->WithdrawIfQueued();
      });
    }
    // Once queued, the call is the core worker's: it may be answered and gone already.
    if (status.ok()) status = call->Submit();
    if (status.ok()) return;
  } else {
    call->Begin(infer, call->model_, call->request_.id);
    status = ShuttingDownError();
  }
  call->Refuse(status);  // counted, then answered (and the call deleted) here
}

namespace {

// The shared-memory reference of a tensor's parameters as the REST parser kept them.
absl::StatusOr<std::optional<SharedMemoryReference>> RestSharedMemory(
    const std::string& where, const RestSharedMemoryParameters& parameters) {
  GivenParameter<absl::string_view> region;
  if (parameters.region.has_value()) region.value = *parameters.region;
  if (parameters.region_wrong_type != nullptr) region.wrong_type = parameters.region_wrong_type;
  GivenParameter<int64_t> offset{parameters.offset,
                                 parameters.offset_wrong_type != nullptr
                                     ? absl::string_view(parameters.offset_wrong_type)
                                     : absl::string_view()};
  GivenParameter<int64_t> byte_size{parameters.byte_size,
                                    parameters.byte_size_wrong_type != nullptr
                                        ? absl::string_view(parameters.byte_size_wrong_type)
                                        : absl::string_view()};
  return ReadSharedMemoryReference(where, region, offset, byte_size);
}

}  // namespace

absl::Status V2RestInferCall::Bind() {
  // The JSON part and the binary part after it.
  const std::string_view body = exchange_.body();
  const std::string_view header = exchange_.header(kRestHeaderLength);
  const absl::StatusOr<RestBodyParts> parts = SplitRestBody(body, header, model_);
  absl::Status framing = parts.status();
  std::string_view binary;
  if (parts.ok()) binary = parts->binary;
  if (framing.ok()) framing = ParseRestInferRequest(parts->json, model_, request_);
  // Begin once the id is read (its view must stay put); a refused parse still counts.
  Begin(infer_, model_, request_.id);
  if (!framing.ok()) return framing;
  absl::Status status = AcquireModel(model_, version_);
  if (model_acquired()) served_version_ = model().version_number();
  if (!status.ok()) return status;
  const std::string& name = model().identity().name;
  if (request_.timeout_us.has_value()) {
    absl::StatusOr<absl::Duration> timeout = V2QueueTimeout(name, *request_.timeout_us);
    if (!timeout.ok()) return timeout.status();
    if (*timeout > absl::ZeroDuration()) LimitQueueTime(*timeout);
  }
  if (header.empty()) {
    for (const RestInput& input : request_.inputs) {
      if (input.binary_data_size.has_value()) {
        return absl::InvalidArgumentError(
            absl::StrCat("model '", name, "' input '", input.name,
                         "' has binary_data_size but the request has no ",
                         std::string(kRestHeaderLength), " header saying where the JSON ends"));
      }
    }
  }
  std::vector<GivenInput> given;
  if (absl::Status decoded = DecodeInputs(binary, given); !decoded.ok()) return decoded;
  absl::InlinedVector<absl::string_view, 4> wanted;
  for (const RestOutput& output : request_.outputs) {
    wanted.push_back(output.name);
    if (!output.shared_memory.any()) continue;  // the common case: no name built
    const std::string where = absl::StrCat("model '", name, "' output '", output.name, "'");
    absl::StatusOr<std::optional<SharedMemoryReference>> shared =
        RestSharedMemory(where, output.shared_memory);
    if (!shared.ok()) return shared.status();
    if (!shared->has_value()) continue;
    if (output.binary_data) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " names shared memory region '", (*shared)->region,
                       "' and asks for binary_data; an output goes to one place"));
    }
    AddSharedOutput(output.name, **shared);
  }
  return BindTensors(given, wanted, OutputForm::kRaw, RestFieldNaming());
}

absl::Status V2RestInferCall::DecodeInputs(std::string_view binary,
                                           std::vector<GivenInput>& given) {
  const std::string& name = model().identity().name;
  given.resize(request_.inputs.size());
  shapes_.resize(request_.inputs.size());
  size_t offset = 0;
  for (size_t i = 0; i < request_.inputs.size(); ++i) {
    RestInput& tensor = request_.inputs[i];
    if (tensor.name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("model '", name, "' inputs[", i, "] has no name"));
    }
    const std::string where = absl::StrCat("model '", name, "' input '", tensor.name, "'");
    GivenInput& input = given[i];
    input.name = tensor.name;
    // An unknown name is left for validation to report with the list of the model's inputs.
    const TensorSpec* spec = V2FindTensor(model().inputs(), tensor.name);
    if (spec != nullptr) {
      if (absl::Status checked =
              CheckV2Datatype(name, "input", tensor.name, spec->dtype, tensor.datatype);
          !checked.ok()) {
        return checked;
      }
      if (!tensor.has_shape) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": 'shape' is missing; expected ", ShapeToString(spec->shape)));
      }
      if (absl::Status shaped = V2CheckEmptyShape(where, *spec, tensor.shape.size());
          !shaped.ok()) {
        return shaped;
      }
    }
    if (!tensor.nested_dims.empty() && tensor.nested_dims != tensor.shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": 'data' is nested as ", ShapeToString(tensor.nested_dims), " but 'shape' is ",
          ShapeToString(tensor.shape), "; nest it as the shape or send it flat"));
    }
    shapes_[i].assign(tensor.shape.begin(), tensor.shape.end());
    input.shape = absl::MakeConstSpan(shapes_[i]);
    absl::StatusOr<std::optional<SharedMemoryReference>> shared =
        RestSharedMemory(where, tensor.shared_memory);
    if (!shared.ok()) return shared.status();
    if (shared->has_value()) {
      if (tensor.has_data || tensor.binary_data_size.has_value()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, " names shared memory region '", (*shared)->region,
                         "' and also carries ", tensor.has_data ? "'data'" : "binary_data_size",
                         "; an input in shared memory carries no values"));
      }
      if (absl::Status bound = BindSharedInput(tensor.name, **shared, input); !bound.ok()) {
        return bound;
      }
      continue;
    }
    if (tensor.binary_data_size.has_value()) {
      if (tensor.has_data) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, " has both 'data' and binary_data_size; send its values one way"));
      }
      const uint64_t size = *tensor.binary_data_size;
      if (size > binary.size() - offset) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": binary_data_size ", size, " runs past the end of the body (",
            binary.size() - offset, " bytes of binary data are left after the inputs before it)"));
      }
      input.NoteField(ValueField::kRaw, binary.data() + offset, size);
      if (size == 0) input.field = ValueField::kRaw;  // zero bytes: validation says what is due
      offset += size;
      continue;
    }
    if (absl::Status finished = FinishRestInput(name, tensor); !finished.ok()) return finished;
    input.NoteField(tensor.field, tensor.values.data(), tensor.count);
  }
  if (offset != binary.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", name, "': the inputs' binary_data_size add up to ", offset,
                     " bytes, but the body has ", binary.size(), " bytes after the JSON (",
                     std::string(kRestHeaderLength), ")"));
  }
  return absl::OkStatus();
}

void V2RestInferCall::AddOutput(const TensorSpec& spec, absl::Span<const uint32_t> shape,
                                ValueField field) {
  Output& output = outputs_.emplace_back();
  output.name = spec.name;
  output.dtype = spec.dtype;
  output.shape.assign(shape.begin(), shape.end());
  if (field == ValueField::kNone) {  // in shared memory: named in the answer, no values
    for (const RestOutput& wanted : request_.outputs) {
      if (wanted.name == spec.name && wanted.shared_memory.region.has_value()) {
        output.region = *wanted.shared_memory.region;
      }
    }
    output.region_bytes = uint64_t{spec.byte_size} * rows;
    return;
  }
  output.binary =
      request_.binary_data_output || RestDataField(V2DatatypeName(spec.dtype)) == ValueField::kNone;
  for (const RestOutput& wanted : request_.outputs) {
    if (wanted.name == spec.name && wanted.binary_data) output.binary = true;
  }
}

void* V2RestInferCall::OutputValues(int slot, ValueField /*field*/, size_t count) {
  // Every output is raw (OutputForm::kRaw): `count` bytes, as the device writes them.
  std::string& bytes = outputs_[slot].bytes;
  bytes.resize(count);
  return bytes.data();
}

void V2RestInferCall::DropOutputs() { outputs_.clear(); }

HttpResponse V2RestInferCall::BuildAnswer() {
  HttpResponse response;
  std::string& json = response.body;
  absl::StrAppend(&json, "{\"model_name\":", JsonString(model_),
                  ",\"model_version\":", JsonString(served_version_));
  if (!request_.id.empty()) absl::StrAppend(&json, ",\"id\":", JsonString(request_.id));
  json += ",\"outputs\":[";
  bool any_binary = false;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    Output& output = outputs_[i];
    if (i > 0) json += ',';
    absl::StrAppend(&json, "{\"name\":", JsonString(output.name), ",\"datatype\":\"",
                    V2DatatypeName(output.dtype), "\",\"shape\":[");
    for (size_t d = 0; d < output.shape.size(); ++d) {
      if (d > 0) json += ',';
      AppendNumber(json, output.shape[d]);
    }
    json += ']';
    if (!output.region.empty()) {
      absl::StrAppend(&json,
                      ",\"parameters\":{\"shared_memory_region\":", JsonString(output.region),
                      ",\"shared_memory_byte_size\":", output.region_bytes, "}}");
    } else if (output.binary) {
      absl::StrAppend(&json, ",\"parameters\":{\"binary_data_size\":", output.bytes.size(), "}}");
      any_binary = true;
    } else {
      json += ",\"data\":[";
      AppendData(json, output.dtype, output.bytes, ElementCount(output.shape));
      json += "]}";
    }
  }
  json += "]}";
  if (!any_binary) {
    response.content_type = "application/json";
    return response;
  }
  response.content_type = "application/octet-stream";
  response.headers.emplace_back(std::string(kRestHeaderLength), absl::StrCat(json.size()));
  for (Output& output : outputs_) {
    if (output.binary) response.more_body.push_back(std::move(output.bytes));
  }
  return response;
}

void V2RestInferCall::Answer(const absl::Status& status, bool final) {
  if (!final) return;
  HttpResponse response = status.ok() ? BuildAnswer() : HttpErrorResponse(status);
  LogAccess(kMethod, exchange_.peer(), exchange_.identity(),
            LoggableTraceparent(exchange_.header("traceparent")));
  // Out of the gate before responding: once the exchange is answered the daemon may stop the
  // HTTP server and go on shutting down, and this call must touch nothing of it after that.
  if (entered_gate_ && infer_.gate != nullptr) infer_.gate->Leave();
  HttpExchange& exchange = exchange_;
  // Answered before the call is deleted: until Respond returns, a client that leaves may run
  // the on_gone callback, which touches the call (Respond waits for one that is running). The
  // destructor then frees memory only: the lease and the regions were let go in FillResponse,
  // and the views into the exchange's body are not read.
  exchange.Respond(std::move(response));
  delete this;
}

}  // namespace neuronserve
