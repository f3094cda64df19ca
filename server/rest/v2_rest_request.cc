// The parser of a REST inference request is one class (a request's parameters, inputs and
// outputs read in one pass over the JSON, each refusal naming the model and the field): one
// state machine. The parts that stand alone live beside it: v2_rest_data.cc (a "data" array's
// values into typed fields), v2_rest_data_shape.cc (its nesting) and v2_rest_body.cc (the
// binary extension's split of the body).
#include "server/rest/v2_rest_request.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "server/oip/v2_request_rules.h"
#include "server/rest/v2_rest_data.h"
#include "server/rest/v2_rest_data_shape.h"
#include "server/shared_memory/shared_memory_reference.h"

namespace neuronserve {
namespace {

using Json = nlohmann::json;

// Where the parser is: one frame per open array or object.
enum class Frame : uint8_t {
  kTop,           // the request object
  kParameters,    // its "parameters"
  kInputs,        // "inputs"
  kInput,         // one of them
  kShape,         // its "shape"
  kData,          // its "data", or an array nested in it
  kInputParams,   // its "parameters"
  kOutputs,       // "outputs"
  kOutput,        // one of them
  kOutputParams,  // its "parameters"
  kSkip,          // a value of a key this parser does not read
};

class Handler final : public nlohmann::json_sax<Json> {
 public:
  Handler(std::string_view model, RestInferRequest& out) : model_(model), out_(out) {}

  const absl::Status& status() const { return status_; }

  bool null() override { return Scalar(nullptr, "null"); }
  bool boolean(bool value) override {
    RestScalar scalar{RestScalar::Kind::kBool, {}};
    scalar.b = value;
    return Scalar(&scalar, value ? "true" : "false");
  }
  bool number_integer(number_integer_t value) override {
    RestScalar scalar{RestScalar::Kind::kInt, {}};
    scalar.i = value;
    return Scalar(&scalar, "a number");
  }
  bool number_unsigned(number_unsigned_t value) override {
    RestScalar scalar{RestScalar::Kind::kUInt, {}};
    scalar.u = value;
    return Scalar(&scalar, "a number");
  }
  bool number_float(number_float_t value, const string_t& /*text*/) override {
    RestScalar scalar{RestScalar::Kind::kFloat, {}};
    scalar.d = value;
    return Scalar(&scalar, "a number");
  }
  bool string(string_t& value) override { return String(value); }
  bool binary(binary_t& /*value*/) override { return Fail("the body holds binary JSON"); }

  bool start_object(std::size_t /*elements*/) override { return Open(/*object=*/true); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t /*elements*/) override { return Open(/*object=*/false); }
  bool end_array() override { return Close(); }
  bool key(string_t& name) override {
    key_ = name;
    return true;
  }

  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& error) override {
    // nlohmann's message names the byte offset and what it expected ("[json.exception.
    // parse_error.101] parse error at line 1, column 7: syntax error ...").
    return Fail(absl::StrCat("the request body is not JSON: ", error.what()));
  }

 private:
  struct Open_ {
    Frame frame;
    bool object;
  };

  RestInput& input() { return out_.inputs.back(); }
  size_t input_index() const { return out_.inputs.size() - 1; }
  std::string InputWhere() { return RestInputWhere(model_, input(), input_index()); }

  bool Fail(std::string message) {
    if (status_.ok()) {
      status_ = absl::InvalidArgumentError(
          absl::StrCat("model '", std::string(model_), "': ", std::move(message)));
    }
    return false;
  }
  bool FailInput(std::string message) {
    if (status_.ok()) {
      status_ = absl::InvalidArgumentError(absl::StrCat(InputWhere(), ": ", std::move(message)));
    }
    return false;
  }

  // The frame a value opening inside the current frame (under key_) starts, or nullopt with
  // the status set for a value of the wrong kind.
  bool Open(bool object) {
    if (stack_.size() >= kRestMaxDepth) {
      return Fail(absl::StrCat("the request nests arrays and objects deeper than ", kRestMaxDepth,
                               " levels"));
    }
    Frame next = Frame::kSkip;
    if (stack_.empty()) {
      if (!object) return Fail("the request body must be a JSON object ($inference_request)");
      next = Frame::kTop;
    } else {
      const Frame here = stack_.back().frame;
      switch (here) {
        case Frame::kTop:
          if (key_ == "parameters") {
            if (!object) return Fail("'parameters' must be an object");
            next = Frame::kParameters;
          } else if (key_ == "inputs") {
            if (object) return Fail("'inputs' must be an array of objects");
            next = Frame::kInputs;
          } else if (key_ == "outputs") {
            if (object) return Fail("'outputs' must be an array of objects");
            next = Frame::kOutputs;
          } else if (key_ == "id") {
            return Fail("'id' must be a string");
          }
          break;
        case Frame::kInputs:
          if (!object) return Fail("each of 'inputs' must be an object");
          out_.inputs.emplace_back();
          next = Frame::kInput;
          break;
        case Frame::kInput:
          if (key_ == "shape") {
            if (object) return FailInput("'shape' must be an array of sizes");
            if (input().has_shape) return FailInput("'shape' is given twice");
            input().has_shape = true;
            next = Frame::kShape;
          } else if (key_ == "data") {
            if (object) return FailInput("'data' must be an array of values, flat or nested");
            if (input().has_data) return FailInput("'data' is given twice");
            input().has_data = true;
            StartData();
            next = Frame::kData;
          } else if (key_ == "parameters") {
            if (!object) return FailInput("'parameters' must be an object");
            next = Frame::kInputParams;
          } else if (key_ == "name" || key_ == "datatype") {
            return FailInput(absl::StrCat("'", key_, "' must be a string"));
          }
          break;
        case Frame::kData:
          if (object) return FailInput("'data' holds an object; give numbers or booleans");
          next = Frame::kData;
          break;
        case Frame::kShape:
          return FailInput("'shape' must be a flat array of sizes");
        case Frame::kOutputs:
          if (!object) return Fail("each of 'outputs' must be an object");
          out_.outputs.emplace_back();
          next = Frame::kOutput;
          break;
        case Frame::kOutput:
          if (key_ == "parameters") {
            if (!object) return Fail("an output's 'parameters' must be an object");
            next = Frame::kOutputParams;
          } else if (key_ == "name") {
            return Fail("an output's 'name' must be a string");
          }
          break;
        case Frame::kInputParams:
          SharedMemoryParameter(input().shared_memory, nullptr, nullptr,
                                object ? "an object" : "an array");
          break;
        case Frame::kOutputParams:
          SharedMemoryParameter(out_.outputs.back().shared_memory, nullptr, nullptr,
                                object ? "an object" : "an array");
          break;
        case Frame::kParameters:
        case Frame::kSkip:
          break;
      }
    }
    if (next == Frame::kData && !data_shape_.OpenArray()) return Ragged();
    stack_.push_back({next, object});
    return true;
  }

  bool Close() {
    const Frame closing = stack_.back().frame;
    stack_.pop_back();
    if (closing == Frame::kData) {
      if (!data_shape_.CloseArray(input().nested_dims)) return Ragged();
    } else if (closing == Frame::kInput) {
      if (!input().pending.empty() && !input().name.empty() &&
          RestDataField(input().datatype) != ValueField::kNone) {
        // Name and datatype came after the data: convert it now.
        if (absl::Status finished = FinishRestInput(model_, input()); !finished.ok()) {
          status_ = finished;
          return false;
        }
      }
    }
    return true;
  }

  void StartData() {
    data_shape_.Reset();
    RestInput& in = input();
    // Straight into the typed buffer when the name and datatype came first (as clients write
    // them); otherwise the values wait (FinishRestInput).
    in.field = in.name.empty() ? ValueField::kNone : RestDataField(in.datatype);
  }

  // Records one of Triton's shared-memory parameters of `into` when `key_` names one: a
  // scalar (null when `scalar` is), a string (`text`), or an array or object (`what` only).
  void SharedMemoryParameter(RestSharedMemoryParameters& into, const RestScalar* scalar,
                             const std::string* text, const char* what) {
    if (key_ == kSharedMemoryRegionParameter) {
      if (text != nullptr) {
        into.region = *text;
      } else {
        into.region_wrong_type = what;
      }
      return;
    }
    std::optional<int64_t>* value = nullptr;
    const char** wrong_type = nullptr;
    if (key_ == kSharedMemoryOffsetParameter) {
      value = &into.offset;
      wrong_type = &into.offset_wrong_type;
    } else if (key_ == kSharedMemoryByteSizeParameter) {
      value = &into.byte_size;
      wrong_type = &into.byte_size_wrong_type;
    } else {
      return;
    }
    if (scalar != nullptr && scalar->kind == RestScalar::Kind::kInt) {
      *value = scalar->i;
    } else if (scalar != nullptr && scalar->kind == RestScalar::Kind::kUInt &&
               scalar->u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      *value = static_cast<int64_t>(scalar->u);
    } else {
      *wrong_type = scalar != nullptr && scalar->kind == RestScalar::Kind::kUInt
                        ? "a number too large for any byte count"
                        : what;
    }
  }

  bool Ragged() {
    return FailInput(
        "nested 'data' is not a regular array (its arrays at one depth differ in length, or "
        "values and arrays are mixed); give a flat array or one nested as the shape");
  }

  bool Scalar(const RestScalar* scalar, const char* what) {
    if (stack_.empty()) return Fail("the request body must be a JSON object ($inference_request)");
    const Frame here = stack_.back().frame;
    switch (here) {
      case Frame::kTop:
        if (key_ == "id") return Fail("'id' must be a string");
        if (key_ == "inputs" || key_ == "outputs") {
          return Fail(absl::StrCat("'", key_, "' must be an array of objects"));
        }
        return true;
      case Frame::kParameters:
        if (key_ == "timeout") {
          if (scalar == nullptr ||
              (scalar->kind != RestScalar::Kind::kInt && scalar->kind != RestScalar::Kind::kUInt)) {
            return Fail(kV2TimeoutMustBeAnInteger);
          }
          out_.timeout_us =
              scalar->kind == RestScalar::Kind::kInt ? scalar->i : V2TimeoutFromUnsigned(scalar->u);
        } else if (key_ == "binary_data_output") {
          if (scalar == nullptr || scalar->kind != RestScalar::Kind::kBool) {
            return Fail("request parameter 'binary_data_output' must be true or false");
          }
          out_.binary_data_output = scalar->b;
        }
        return true;
      case Frame::kInput:
        if (key_ == "name" || key_ == "datatype") {
          return FailInput(absl::StrCat("'", key_, "' must be a string, not ", what));
        }
        if (key_ == "shape" || key_ == "data") {
          return FailInput(absl::StrCat("'", key_, "' must be an array, not ", what));
        }
        return true;
      case Frame::kShape:
        if (scalar == nullptr || !((scalar->kind == RestScalar::Kind::kInt && scalar->i >= 0 &&
                                    scalar->i <= std::numeric_limits<uint32_t>::max()) ||
                                   (scalar->kind == RestScalar::Kind::kUInt &&
                                    scalar->u <= std::numeric_limits<uint32_t>::max()))) {
          return FailInput(absl::StrCat("'shape' holds ",
                                        scalar == nullptr ? "null" : RestScalarText(*scalar),
                                        ", which is not a size"));
        }
        input().shape.push_back(static_cast<uint32_t>(
            scalar->kind == RestScalar::Kind::kInt ? static_cast<uint64_t>(scalar->i) : scalar->u));
        return true;
      case Frame::kData: {
        if (scalar == nullptr) {
          return FailInput(absl::StrCat("data[", input().count + input().pending.size(),
                                        "] is null; give numbers or booleans"));
        }
        if (!data_shape_.Value()) return Ragged();
        RestInput& in = input();
        if (in.field == ValueField::kNone) {
          in.pending.push_back(*scalar);
          return true;
        }
        if (absl::Status appended = AppendRestScalar(model_, input_index(), in, *scalar);
            !appended.ok()) {
          status_ = appended;
          return false;
        }
        return true;
      }
      case Frame::kInputParams:
        SharedMemoryParameter(input().shared_memory, scalar, nullptr, what);
        if (key_ == "binary_data_size") {
          if (scalar == nullptr || !(scalar->kind == RestScalar::Kind::kUInt ||
                                     (scalar->kind == RestScalar::Kind::kInt && scalar->i >= 0))) {
            return FailInput("parameter 'binary_data_size' must be a number of bytes");
          }
          input().binary_data_size = scalar->kind == RestScalar::Kind::kUInt
                                         ? scalar->u
                                         : static_cast<uint64_t>(scalar->i);
        }
        return true;
      case Frame::kOutput:
        if (key_ == "name")
          return Fail(absl::StrCat("an output's 'name' must be a string, not ", what));
        return true;
      case Frame::kOutputParams:
        SharedMemoryParameter(out_.outputs.back().shared_memory, scalar, nullptr, what);
        if (key_ == "binary_data") {
          if (scalar == nullptr || scalar->kind != RestScalar::Kind::kBool) {
            return Fail(absl::StrCat("output '", out_.outputs.back().name,
                                     "': parameter 'binary_data' must be true or false"));
          }
          out_.outputs.back().binary_data = scalar->b;
        }
        return true;
      case Frame::kInputs:
      case Frame::kOutputs:
        return Fail(absl::StrCat("each of '", here == Frame::kInputs ? "inputs" : "outputs",
                                 "' must be an object, not ", what));
      case Frame::kSkip:
        return true;
    }
    return true;
  }

  bool String(std::string& value) {
    if (stack_.empty()) return Fail("the request body must be a JSON object ($inference_request)");
    const Frame here = stack_.back().frame;
    switch (here) {
      case Frame::kTop:
        if (key_ == "id") out_.id = value;
        if (key_ == "inputs" || key_ == "outputs") {
          return Fail(absl::StrCat("'", key_, "' must be an array of objects"));
        }
        return true;
      case Frame::kInput:
        if (key_ == "name") {
          input().name = value;
        } else if (key_ == "datatype") {
          input().datatype = value;
        } else if (key_ == "shape" || key_ == "data") {
          return FailInput(absl::StrCat("'", key_, "' must be an array, not a string"));
        }
        return true;
      case Frame::kOutput:
        if (key_ == "name") out_.outputs.back().name = value;
        return true;
      case Frame::kData:
        return FailInput(absl::StrCat(
            "data[", input().count + input().pending.size(),
            "] is a string; give numbers (or true/false for BOOL); BYTES tensors are not served"));
      case Frame::kShape:
        return FailInput("'shape' holds a string, which is not a size");
      case Frame::kParameters:
        if (key_ == "timeout") {
          return Fail(kV2TimeoutMustBeAnInteger);
        }
        if (key_ == "binary_data_output") {
          return Fail("request parameter 'binary_data_output' must be true or false");
        }
        return true;
      case Frame::kInputParams:
        SharedMemoryParameter(input().shared_memory, nullptr, &value, "a string");
        if (key_ == "binary_data_size") {
          return FailInput("parameter 'binary_data_size' must be a number of bytes");
        }
        return true;
      case Frame::kOutputParams:
        SharedMemoryParameter(out_.outputs.back().shared_memory, nullptr, &value, "a string");
        if (key_ == "binary_data") {
          return Fail(absl::StrCat("output '", out_.outputs.back().name,
                                   "': parameter 'binary_data' must be true or false"));
        }
        return true;
      case Frame::kInputs:
      case Frame::kOutputs:
        return Fail(absl::StrCat("each of '", here == Frame::kInputs ? "inputs" : "outputs",
                                 "' must be an object, not a string"));
      case Frame::kSkip:
        return true;
    }
    return true;
  }

  const std::string_view model_;
  RestInferRequest& out_;
  absl::Status status_;
  std::vector<Open_> stack_;
  std::string key_;
  RestDataShape data_shape_;  // the nesting of the `data` array being read
};

}  // namespace

absl::Status ParseRestInferRequest(std::string_view json, std::string_view model,
                                   RestInferRequest& out) {
  Handler handler(model, out);
  const bool parsed = Json::sax_parse(json.begin(), json.end(), &handler);
  if (!handler.status().ok()) return handler.status();
  if (!parsed) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", std::string(model), "': the request body is not JSON"));
  }
  return absl::OkStatus();
}

}  // namespace neuronserve
