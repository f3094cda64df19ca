// Triton's tensor data types (inference.DataType, TYPE_FP32 ...) and neuron-serve's DataType, one
// to the other: the names a Triton config.pbtxt declares its inputs and outputs with
// (triton_config.h), and the ones ModelConfig reports (server/oip/v2_model_config.h). The
// mapping stays here, beside Triton's schema, rather than in base/'s dtype table: base/ knows
// nothing of Triton's protos.
//
// Thread safety: pure functions.
#ifndef NEURON_SERVE_SERVER_REPOSITORY_TRITON_DATA_TYPE_H_
#define NEURON_SERVE_SERVER_REPOSITORY_TRITON_DATA_TYPE_H_

#include <optional>

#include "base/dtype.h"
#include "inference/model_config.pb.h"

namespace neuronserve {

// Triton's TYPE_ of a tensor dtype: TYPE_FP32, TYPE_FP16, TYPE_BF16, TYPE_INT8 .. TYPE_UINT64.
// The dtypes Triton has no type for (fp8_e3, fp8_e4, fp8_e5, fp32r, unknown) are TYPE_INVALID.
inference::DataType TritonDataType(DataType dtype);
// The inverse; nullopt for TYPE_INVALID and the types no NEFF tensor holds (BOOL, FP64, STRING).
std::optional<DataType> DataTypeFromTriton(inference::DataType type);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REPOSITORY_TRITON_DATA_TYPE_H_
