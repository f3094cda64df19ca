// V2DatatypeName: the Open Inference Protocol's (KServe v2) datatype name of a tensor dtype as a
// std::string, the form request validation's FieldNaming takes as a function pointer
// (core/serving/request/request_validation.h) and that the daemon's v2 front end
// (server/oip/v2_datatype.h) and the client library's v2 path (client/lib) use. The names
// themselves are a column of the dtype table: DataTypeV2Name and its inverse DataTypeFromV2Name
// (base/dtype.h), which this header brings in.
//
// Thread safety: pure functions.
#ifndef NEURON_SERVE_BASE_V2_DATATYPE_NAME_H_
#define NEURON_SERVE_BASE_V2_DATATYPE_NAME_H_

#include <string>

#include "base/dtype.h"

namespace neuronserve {

// DataTypeV2Name as a std::string: "FP32", "FP16", "BF16", "INT8".."INT64", "UINT8".."UINT64";
// for a dtype without a v2 name, its DataTypeName upper-cased ("FP8_E4", "FP32R", "UNKNOWN").
inline std::string V2DatatypeName(DataType dtype) { return std::string(DataTypeV2Name(dtype)); }

}  // namespace neuronserve

#endif  // NEURON_SERVE_BASE_V2_DATATYPE_NAME_H_
