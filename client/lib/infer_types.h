// The values of an inference call as plain C++ types: what goes in (named tensors of any dtype
// over the caller's memory), how to ask (InferOptions) and what comes back (decoded outputs).
#ifndef NEURON_SERVE_CLIENT_LIB_INFER_TYPES_H_
#define NEURON_SERVE_CLIENT_LIB_INFER_TYPES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace neuronserve::client {

// A byte range of a shared-memory region the server knows (Client::RegisterSharedMemory):
// `offset` is into the region as registered (not into the object), and the tensor's elements are
// its little-endian bytes, exactly as `bytes` would carry them.
struct SharedMemorySpan {
  std::string region;
  uint64_t offset = 0;
  // An input's: exactly its byte size. An output's: room for it (at least its byte size).
  uint64_t byte_size = 0;
};

// A region as the server reports it (Client::SharedMemoryStatus).
struct SharedMemoryRegionStatus {
  std::string name;
  std::string key;
  uint64_t offset = 0;
  uint64_t byte_size = 0;
};

// One model input. Its elements are borrowed, not copied, until the request is built (i.e. for
// the duration of the Infer or Send call). An empty shape sends none; the server then checks
// only the element count against the model's shape.
//
// The elements come from one of two places:
//  - `values`, float32 numbers (the form of every float32 model). With `dtype` empty (the
//    default) nothing more is said; with dtype "float16" or "bfloat16" the floats are converted
//    to that format (round to nearest even: in raw form here, in float_data form by the server).
//  - `bytes`, the tensor's elements as little-endian bytes of `dtype` (a name GetModel reports:
//    "int64", "uint8", "float16", "bfloat16", "fp8_e4", ...), element after element, row-major.
//    Used when `values` is empty.
//  - `shared_memory`, a range of a registered region that already holds those bytes (then
//    `values` and `bytes` are empty, `dtype` names the dtype, and the request carries none of
//    the tensor's bytes: the server writes the device tensor straight from the region).
// A non-empty `dtype` is sent, and the server refuses a request whose dtype is not the tensor's.
struct NamedTensor {
  std::string name;
  std::vector<uint32_t> shape;
  absl::Span<const float> values;
  std::string dtype;
  absl::Span<const uint8_t> bytes;
  std::optional<SharedMemorySpan> shared_memory;
};

// The service a request goes to. Both carry the same tensors and decode to the same InferResult.
enum class Protocol {
  // neuronserve.v1.NeuronServing/Infer and InferStream.
  kNative,
  // The Open Inference Protocol (KServe v2): inference.GRPCInferenceService/ModelInfer and
  // Triton's ModelStreamInfer. Its responses carry no queue or device time (InferResult's are
  // zero unless the server adds "queue_us" / "device_us" response parameters), and a request
  // that fails on a stream comes back with code UNKNOWN (the protocol sends only a message).
  kV2,
};

struct InferOptions {
  // When given, the version that must be serving (else FAILED_PRECONDITION from the server).
  std::string version;
  // The outputs wanted, by name; empty means all of them.
  std::vector<std::string> outputs;
  // Send values as raw_data (little-endian bytes, which the server writes to the device without
  // a per-element copy) rather than typed fields (float_data for float32, int32_data for int8 to
  // int32, ...; float16, bfloat16, fp8 and unknown dtypes go as raw_data either way); responses
  // come back in the same form (TENSOR_FORM_RAW or TENSOR_FORM_TYPED) on the native API, and
  // always raw over v2, as Triton answers. The decoded result is the same in every form. With
  // Protocol::kV2, raw is raw_input_contents and typed is each input's `contents`
  // (fp32_contents, int_contents, ...); the protocol lets a request use only one of the two, so a
  // typed request with a float16, bfloat16, fp8 or unknown input goes all raw.
  bool raw = true;
  // On an InferSession: the session's own (Client::OpenStream's), else Send refuses it.
  Protocol protocol = Protocol::kNative;
  // Echoed in the response. On an InferSession an empty id is assigned ("1", "2", ...).
  std::string id;
  // Deadline of this call; zero means the client's default. Unary Infer only.
  absl::Duration timeout = absl::ZeroDuration();
  // Outputs the server writes into shared memory instead of the response, by output name. The
  // outputs returned are those named in `outputs` and here (all of them when both are empty).
  // Each one here comes back with shape, dtype and `shared_memory`, and no values: read them
  // with ReadSharedMemoryOutput once the answer is in. A request with any tensor in shared
  // memory is answered raw whatever `raw` says.
  std::map<std::string, SharedMemorySpan> output_shared_memory;
};

// One output, decoded from whichever form the server sent.
struct OutputTensor {
  std::vector<uint32_t> shape;
  // As the server reports it ("float32", "int64", "float16", ..., "unknown"); "float32" when the
  // server did not say (servers before dtypes served only float32).
  std::string dtype;
  // Row-major numbers of a float32, float16 or bfloat16 output (the 16-bit formats converted
  // exactly); empty for any other dtype.
  std::vector<float> values;
  // Row-major elements as little-endian bytes of `dtype`, for every dtype: shape's element count
  // times the dtype's size (for "unknown", whatever whole number of bytes per element the server
  // sent).
  std::vector<uint8_t> bytes;
  // Set when the request sent this output to shared memory (InferOptions::output_shared_memory):
  // `values` and `bytes` stay empty until ReadSharedMemoryOutput fills them from the region.
  std::optional<SharedMemorySpan> shared_memory;
};

struct InferResult {
  std::map<std::string, OutputTensor> outputs;  // by output name
  std::string id;
  std::string version;         // the version that served the request
  absl::Duration queue_time;   // waiting for a core
  absl::Duration device_time;  // write, execute and read on the device
  // A batched model's execution this request ran in (native API only; 0 when the server did not
  // say): the requests' rows it carried, padding not counted, and its variant's batch size.
  uint32_t batch_rows = 0;
  uint32_t batch_size = 0;
};

// One answer on an InferSession. `status` is the request's own outcome (the response's error
// field); `result` is filled only when it is OK.
struct InferStreamResult {
  std::string id;
  absl::Status status;
  InferResult result;
};

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_INFER_TYPES_H_
