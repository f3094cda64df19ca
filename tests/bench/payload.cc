#include "tests/bench/payload.h"

#include <cstring>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace neuronserve::bench {
namespace {

float ValueAt(uint64_t index) { return static_cast<float>(index % 1000) * 0.25f - 100.0f; }

}  // namespace

v1::InferRequest MakeRequest(const std::string& model, uint64_t tensor_bytes, TensorForm form) {
  const uint64_t elements = tensor_bytes / 4;
  v1::InferRequest request;
  request.set_id("bench");
  request.set_model(model);
  v1::InputTensor* input = request.add_inputs();
  input->set_name(kInputName);
  input->add_shape(1);
  input->add_shape(static_cast<uint32_t>(elements));
  if (form == TensorForm::kFloat) {
    input->mutable_float_data()->Reserve(static_cast<int>(elements));
    for (uint64_t i = 0; i < elements; ++i) input->add_float_data(ValueAt(i));
    request.set_response_form(v1::TENSOR_FORM_FLOAT);
  } else {
    // Little-endian IEEE-754, which is the host's layout on every machine this runs on.
    std::string bytes(tensor_bytes, '\0');
    for (uint64_t i = 0; i < elements; ++i) {
      const float value = ValueAt(i);
      std::memcpy(bytes.data() + i * 4, &value, 4);
    }
    input->set_raw_data(std::move(bytes));
    request.set_response_form(v1::TENSOR_FORM_RAW);
  }
  return request;
}

CheckResponse ExpectSameSize(const v1::InferRequest& request) {
  const bool floats = request.inputs(0).float_data_size() > 0;
  const size_t expected = floats ? static_cast<size_t>(request.inputs(0).float_data_size())
                                 : request.inputs(0).raw_data().size();
  return [floats, expected](const v1::InferResponse& response) -> std::string {
    if (response.outputs_size() != 1) {
      return absl::StrCat("expected 1 output, got ", response.outputs_size());
    }
    const v1::OutputTensor& output = response.outputs(0);
    const size_t got =
        floats ? static_cast<size_t>(output.float_data_size()) : output.raw_data().size();
    if (got != expected) {
      return absl::StrCat("output has ", got, floats ? " floats" : " bytes", ", expected ",
                          expected);
    }
    return "";
  };
}

std::string CompareOutput(const v1::InferRequest& request, const v1::InferResponse& response) {
  std::string size_error = ExpectSameSize(request)(response);
  if (!size_error.empty()) return size_error;
  const v1::InputTensor& input = request.inputs(0);
  const v1::OutputTensor& output = response.outputs(0);
  if (input.float_data_size() > 0) {
    if (std::memcmp(input.float_data().data(), output.float_data().data(),
                    static_cast<size_t>(input.float_data_size()) * sizeof(float)) != 0) {
      return "output float_data differs from the input";
    }
  } else if (input.raw_data() != output.raw_data()) {
    return "output raw_data differs from the input";
  }
  return "";
}

inference::ModelInferRequest MakeV2Request(const v1::InferRequest& native) {
  inference::ModelInferRequest request;
  request.set_id(native.id());
  request.set_model_name(native.model());
  const v1::InputTensor& from = native.inputs(0);
  inference::ModelInferRequest::InferInputTensor* input = request.add_inputs();
  input->set_name(from.name());
  input->set_datatype("FP32");
  for (uint32_t dim : from.shape()) input->add_shape(dim);
  if (from.float_data_size() > 0) {
    *input->mutable_contents()->mutable_fp32_contents() = from.float_data();
  } else {
    request.add_raw_input_contents(from.raw_data());
  }
  return request;
}

V2CheckResponse V2ExpectSameSize(const inference::ModelInferRequest& request) {
  const bool floats = request.raw_input_contents_size() == 0;
  const size_t expected =
      floats ? static_cast<size_t>(request.inputs(0).contents().fp32_contents_size())
             : request.raw_input_contents(0).size();
  return [floats, expected](const inference::ModelInferResponse& response) -> std::string {
    if (response.outputs_size() != 1) {
      return absl::StrCat("expected 1 output, got ", response.outputs_size());
    }
    if (!floats && response.raw_output_contents_size() != 1) {
      return absl::StrCat("expected 1 raw_output_contents, got ",
                          response.raw_output_contents_size());
    }
    const size_t got =
        floats ? static_cast<size_t>(response.outputs(0).contents().fp32_contents_size())
               : response.raw_output_contents(0).size();
    if (got != expected) {
      return absl::StrCat("output has ", got, floats ? " floats" : " bytes", ", expected ",
                          expected);
    }
    return "";
  };
}

std::string V2CompareOutput(const inference::ModelInferRequest& request,
                            const inference::ModelInferResponse& response) {
  std::string size_error = V2ExpectSameSize(request)(response);
  if (!size_error.empty()) return size_error;
  if (request.raw_input_contents_size() == 0) {
    const auto& in = request.inputs(0).contents().fp32_contents();
    const auto& out = response.outputs(0).contents().fp32_contents();
    if (std::memcmp(in.data(), out.data(), static_cast<size_t>(in.size()) * sizeof(float)) != 0) {
      return "output fp32_contents differs from the input";
    }
  } else if (request.raw_input_contents(0) != response.raw_output_contents(0)) {
    return "output raw_output_contents differs from the input";
  }
  return "";
}

HttpPost MakeRestBinaryRequest(const inference::ModelInferRequest& v2) {
  const std::string& bytes = v2.raw_input_contents(0);
  const std::vector<int64_t> shape(v2.inputs(0).shape().begin(), v2.inputs(0).shape().end());
  const std::string json =
      nlohmann::json{{"inputs",
                      {{{"name", v2.inputs(0).name()},
                        {"shape", shape},
                        {"datatype", v2.inputs(0).datatype()},
                        {"parameters", {{"binary_data_size", bytes.size()}}}}}},
                     {"parameters", {{"binary_data_output", true}}}}
          .dump();
  return HttpPost{"/v2/models/" + v2.model_name() + "/infer",
                  {absl::StrCat(kInferenceHeaderLength, ": ", json.size())},
                  json + bytes};
}

HttpCheck RestBinaryExpectSameSize(uint64_t tensor_bytes) {
  return [tensor_bytes](const HttpAnswer& answer) -> std::string {
    if (answer.status != 200) return absl::StrCat("HTTP ", answer.status, ": ", answer.body);
    uint64_t json_bytes = 0;
    bool announced = false;
    for (const auto& [name, value] : answer.headers) {
      if (absl::EqualsIgnoreCase(name, kInferenceHeaderLength)) {
        announced = absl::SimpleAtoi(value, &json_bytes);
      }
    }
    if (!announced) return absl::StrCat("no ", kInferenceHeaderLength, " in the answer");
    if (answer.body.size() != json_bytes + tensor_bytes) {
      return absl::StrCat("the answer has ", answer.body.size(), " bytes, expected ", json_bytes,
                          " of JSON and ", tensor_bytes, " of output");
    }
    return "";
  };
}

std::string RestBinaryCompareOutput(const std::string& bytes, const HttpAnswer& answer) {
  if (answer.status != 200) return absl::StrCat("HTTP ", answer.status, ": ", answer.body);
  if (answer.body.size() < bytes.size() ||
      answer.body.compare(answer.body.size() - bytes.size(), bytes.size(), bytes) != 0) {
    return "the binary output is not the input";
  }
  return "";
}

}  // namespace neuronserve::bench
