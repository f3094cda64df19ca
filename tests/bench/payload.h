// The request every cell sends, to the echo server and to the daemon alike, and the checks of
// what comes back: an identity model's output is its input, byte for byte.
#ifndef NEURON_SERVE_TESTS_BENCH_PAYLOAD_H_
#define NEURON_SERVE_TESTS_BENCH_PAYLOAD_H_

#include <cstdint>
#include <string>

#include "inference/grpc_service.pb.h"
#include "neuronserve/v1/neuron_serving.pb.h"
#include "tests/bench/load_generator.h"

namespace neuronserve::bench {

// The identity models' tensor names (as neuronctl sim-model --identity names them).
inline constexpr char kInputName[] = "input";
inline constexpr char kOutputName[] = "output";

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

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_PAYLOAD_H_
