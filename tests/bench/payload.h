// The request every cell sends, to the echo server and to the daemon alike, and the checks of
// what comes back: an identity model's output is its input, byte for byte.
#ifndef NEURON_SERVE_TESTS_BENCH_PAYLOAD_H_
#define NEURON_SERVE_TESTS_BENCH_PAYLOAD_H_

#include <cstdint>
#include <string>

#include "inference/grpc_service.pb.h"
#include "neuronserve/v1/neuron_serving.pb.h"
#include "tests/bench/http_load.h"
#include "tests/bench/load_generator.h"

namespace neuronserve::bench {

// The identity models' tensor names (as neuronctl sim-model --identity names them).
inline constexpr char kInputName[] = "input";
inline constexpr char kOutputName[] = "output";
// The binary data extension's header: the length of the JSON part before the bytes.
inline constexpr char kInferenceHeaderLength[] = "Inference-Header-Content-Length";

enum class TensorForm { kRaw, kFloat };

// An InferRequest for `model` with one float32 input "input" of shape [1, tensor_bytes / 4]
// in `form`, asking for the same form back. The values are finite and not all equal, so a
// response that is not a faithful copy fails CompareOutput.
v1::InferRequest MakeRequest(const std::string& model, uint64_t tensor_bytes, TensorForm form);

// The per-response check of the load: exactly one output with the input's size in the input's
// form (sizes only: cheap enough not to be the client's bottleneck at 16 MiB).
CheckResponse ExpectSameSize(const v1::InferRequest& request);

// Empty when the response's single output equals the request's input exactly, else why not.
std::string CompareOutput(const v1::InferRequest& request, const v1::InferResponse& response);

// The same request for the Open Inference Protocol's ModelInfer: the same model, id, input
// name, shape and values, datatype FP32, in raw_input_contents (raw_data) or fp32_contents
// (float_data), so that the two protocols carry the same bytes.
inference::ModelInferRequest MakeV2Request(const v1::InferRequest& native);

// ExpectSameSize and CompareOutput for a ModelInfer response: one output, in the request's form.
V2CheckResponse V2ExpectSameSize(const inference::ModelInferRequest& request);
std::string V2CompareOutput(const inference::ModelInferRequest& request,
                            const inference::ModelInferResponse& response);

// The same request for the REST front end with the binary data extension:
// POST /v2/models/{model}/infer, a JSON part naming the input (binary_data_size) and asking for
// binary output, then the raw_input_contents bytes; Inference-Header-Content-Length says where
// the JSON ends. Sent unchanged to the HTTP echo server too, so both get the same bytes.
HttpPost MakeRestBinaryRequest(const inference::ModelInferRequest& v2);

// The per-answer check of the load: 200, and a body of the JSON part the answer's
// Inference-Header-Content-Length announces plus `tensor_bytes` (sizes only, as on gRPC).
HttpCheck RestBinaryExpectSameSize(uint64_t tensor_bytes);

// Empty when the answer is 200 and its body ends with `bytes` (the binary output is the
// input), else why not.
std::string RestBinaryCompareOutput(const std::string& bytes, const HttpAnswer& answer);

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_PAYLOAD_H_
