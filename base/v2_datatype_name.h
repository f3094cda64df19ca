// The Open Inference Protocol's (KServe v2) datatype names of the tensor dtypes, both ways:
// "FP32", "FP16", "BF16", "INT8".."INT64", "UINT8".."UINT64", and for a dtype without a v2
// name (fp8, fp32r, unknown) its own name upper-cased ("FP8_E4", "FP32R", "UNKNOWN"), which is
// how neuron-serve reports such tensors. Here in base because the daemon's v2 front end
// (server/oip/v2_datatype.h) and the client library's v2 path (client/lib) both need them.
//
// Thread safety: pure functions.
#ifndef NEURON_SERVE_BASE_V2_DATATYPE_NAME_H_
#define NEURON_SERVE_BASE_V2_DATATYPE_NAME_H_

#include <optional>
#include <string>
#include <string_view>

#include "base/dtype.h"

namespace neuronserve {

// "FP32", "FP16", "BF16", "INT8".."INT64", "UINT8".."UINT64"; for a dtype without a v2 name,
// its DataTypeName upper-cased.
std::string V2DatatypeName(DataType dtype);

// The inverse of V2DatatypeName; nullopt for "UNKNOWN" and for any other name (BOOL, FP64 and
// BYTES included: no tensor dtype is one of them).
std::optional<DataType> DataTypeFromV2Name(std::string_view name);

}  // namespace neuronserve

#endif  // NEURON_SERVE_BASE_V2_DATATYPE_NAME_H_
