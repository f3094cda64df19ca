// The JSON part of an Open Inference Protocol REST inference request (Triton's
// $inference_request, with the binary tensor extension's parameters), parsed by a streaming
// (SAX) parser straight into per-input typed buffers: no document tree is built, so a large
// `data` array costs its values and nothing more, and the nesting depth is bounded (kMaxDepth)
// so a deeply nested body is a 400, never a stack overflow.
//
//   {"id": "...", "parameters": {"timeout": <int64 us>, "binary_data_output": <bool>, ...},
//    "inputs": [{"name", "shape": [..], "datatype", "data": [flat or nested],
//                "parameters": {"binary_data_size": <bytes>}}],
//    "outputs": [{"name", "parameters": {"binary_data": <bool>}}]}
// An input's or output's parameters may name a shared-memory region instead
// ("shared_memory_region", "shared_memory_byte_size", "shared_memory_offset").
//
// Values go into the field of the input's datatype (RestDataField): FP32/FP16/BF16 as floats
// (narrowed by request validation, as float_data is), INT8..INT32 as int32, UINT8..UINT32 as
// uint32, INT64, UINT64 exactly, BOOL as true/false. When an input's name and datatype come
// after its data, its values wait as tagged scalars and are converted once both are known
// (FinishRestInput, v2_rest_data.h). Unknown keys are skipped, as the protocol allows extra
// parameters. gRPC-free.
//
// Thread safety: a parse runs on one thread; the result is a plain value. Ownership: the
// result owns its buffers.
#ifndef NEURON_SERVE_SERVER_REST_V2_REST_REQUEST_H_
#define NEURON_SERVE_SERVER_REST_V2_REST_REQUEST_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/serving/request/tensor_fields.h"  // ValueField

namespace neuronserve {

// One JSON scalar of `data` kept until its input's datatype is known.
struct RestScalar {
  enum class Kind : uint8_t { kInt, kUInt, kFloat, kBool } kind;
  union {
    int64_t i;
    uint64_t u;
    double d;
    bool b;
  };
};

// Triton's shared-memory parameters of a tensor (shared_memory_region, shared_memory_offset,
// shared_memory_byte_size) as the request gave them: each a value, or, when given with another
// JSON type, that type ("a number", "a string", ...), for ReadSharedMemoryReference
// (server/shared_memory/shared_memory_reference.h) to refuse.
struct RestSharedMemoryParameters {
  std::optional<std::string> region;
  std::optional<int64_t> offset;
  std::optional<int64_t> byte_size;
  const char* region_wrong_type = nullptr;
  const char* offset_wrong_type = nullptr;
  const char* byte_size_wrong_type = nullptr;

  // True when the request gave any of the three, of any type.
  bool any() const {
    return region.has_value() || offset.has_value() || byte_size.has_value() ||
           region_wrong_type != nullptr || offset_wrong_type != nullptr ||
           byte_size_wrong_type != nullptr;
  }
};

struct RestInput {
  std::string name;
  std::string datatype;
  bool has_shape = false;
  std::vector<uint32_t> shape;
  bool has_data = false;
  // The values of `data`, `count` of them in `field` (RestDataField of the datatype), packed.
  ValueField field = ValueField::kNone;
  std::vector<uint8_t> values;
  size_t count = 0;
  // Values seen before the name and datatype were (converted by FinishRestInput).
  std::vector<RestScalar> pending;
  // The array lengths of nested `data`, outermost first; empty when `data` is flat.
  std::vector<uint32_t> nested_dims;
  std::optional<uint64_t> binary_data_size;
  RestSharedMemoryParameters shared_memory;
};

struct RestOutput {
  std::string name;
  bool binary_data = false;  // parameters.binary_data
  RestSharedMemoryParameters shared_memory;
};

struct RestInferRequest {
  std::string id;
  std::optional<int64_t> timeout_us;  // parameters.timeout
  bool binary_data_output = false;    // parameters.binary_data_output
  std::vector<RestInput> inputs;
  std::vector<RestOutput> outputs;
};

// The deepest nesting of arrays and objects a request may have.
inline constexpr size_t kRestMaxDepth = 64;

// Parses `json` into `out`. INVALID_ARGUMENT naming the model (and the input, when the error is
// one input's) and what is wrong: not JSON, too deep, a wrong type, a value that does not fit
// its datatype, ragged nested data.
absl::Status ParseRestInferRequest(std::string_view json, std::string_view model,
                                   RestInferRequest& out);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REST_V2_REST_REQUEST_H_
