// Between the plain inference types (infer_types.h) and the messages of both protocols (the
// native neuronserve.v1 and the Open Inference Protocol's inference.ModelInfer*): one place that
// knows the tensor forms (raw bytes, and the typed fields of each dtype), so unary calls and
// sessions of either protocol encode and decode alike. Its parts: element_bytes.h (elements as
// little-endian bytes), typed_fields.h (the protocols' typed fields) and output_decoder.h (one
// output checked and decoded, for both protocols).
//
// Thread safety: pure functions.
#ifndef NEURON_SERVE_CLIENT_LIB_INFER_CODEC_H_
#define NEURON_SERVE_CLIENT_LIB_INFER_CODEC_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/dtype.h"
#include "client/lib/infer_types.h"
#include "inference/grpc_service.pb.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve::client {

// The dtype a NamedTensor says it has: float32 when it names none; nullopt for a name this
// client does not know (its bytes go raw, and the server judges it).
std::optional<DataType> TensorDataType(const NamedTensor& tensor);

// True when the tensor's elements are its float32 `values` rather than its `bytes`.
bool CarriesValues(const NamedTensor& tensor);

// The request as given (inputs in shared memory as SharedMemoryRef, outputs sent there as
// output_shared_memory and among the outputs asked for); nothing is checked here, so that every
// mistake gets the server's own error (it knows the model's tensors, the client does not). The
// request and response form follow options.raw (TENSOR_FORM_RAW, else TENSOR_FORM_TYPED).
// options.timeout is not part of the message.
v1::InferRequest BuildInferRequest(const std::string& model, const std::vector<NamedTensor>& inputs,
                                   const InferOptions& options);

// Outputs decoded to their element bytes (and float numbers for float32, float16 and bfloat16)
// whichever field carries them. INTERNAL when an output's values do not fit its shape times its
// dtype's size, sit in a field that cannot carry its dtype (or in more than one field), or are
// out of its dtype's range: the response is malformed, and guessing would hand the caller wrong
// numbers.
absl::StatusOr<InferResult> DecodeInferResponse(const v1::InferResponse& response);

// The v2 request: datatypes by their v2 names ("FP32" for float32 values), int64 shapes, values
// in raw_input_contents (options.raw) or in each input's contents (fp32_contents, int_contents
// for int8..int32, uint_contents for uint8..uint32, int64_contents, uint64_contents), requested
// outputs, version and id; tensors in shared memory name their range in the three parameters of
// Triton's extension (shared_memory_region, _offset, _byte_size), and an input there has no
// raw_input_contents entry. The protocol lets a request use only one form, so a typed request
// with an input that has no typed field (float16, bfloat16, fp8, unknown) goes all raw. As for
// v1, nothing is checked here.
inference::ModelInferRequest BuildModelInferRequest(const std::string& model,
                                                    const std::vector<NamedTensor>& inputs,
                                                    const InferOptions& options);

// The same InferResult as DecodeInferResponse, from raw_output_contents or each output's
// contents, with the dtypes named as the native API names them ("float32", "int64", ...). The
// response is taken by value so that its bytes move rather than copy. INTERNAL for a malformed
// response: what DecodeInferResponse refuses, plus raw_output_contents that do not pair with the
// outputs, a negative dimension, or values in fp64_contents or bytes_contents.
// `shared_outputs` is the request's InferOptions::output_shared_memory: the protocol's answer
// does not say which outputs went to shared memory (their raw_output_contents entries are
// empty), so the caller tells.
absl::StatusOr<InferResult> DecodeModelInferResponse(
    inference::ModelInferResponse response,
    const std::map<std::string, SharedMemorySpan>& shared_outputs = {});

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_INFER_CODEC_H_
