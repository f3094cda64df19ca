// The Open Inference Protocol's datatype names ("FP32", "INT64", "BOOL", ...) for the model's
// NRT dtypes, and the InferTensorContents field that carries each.
//
// Every NRT dtype with a v2 equivalent has its v2 name; the others (fp8, fp32r, a dtype the
// runtime reports as unknown) are named by their NRT name upper-cased ("FP8_E4", "FP32R",
// "UNKNOWN") and travel only as raw bytes. A request may also say BOOL for a 1-byte integer
// tensor (int8 or uint8): bools are one byte, 0 or 1. FP64 and BYTES exist in the protocol but
// no NeuronCore tensor holds them, so they are always refused.
//
// Thread safety: pure functions.
#ifndef NEURON_SERVE_SERVER_OIP_V2_DATATYPE_H_
#define NEURON_SERVE_SERVER_OIP_V2_DATATYPE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "base/dtype.h"
#include "base/v2_datatype_name.h"  // V2DatatypeName, shared with the client library
#include "core/serving/request/request_validation.h"
#include "core/serving/request/tensor_fields.h"

namespace neuronserve {

// True when `dtype` has a v2 datatype and a typed InferTensorContents field (every integer and
// FP32); false for FP16 and BF16 (the protocol sends them only as raw bytes) and for the dtypes
// without a v2 name.
bool HasV2TypedContents(DataType dtype);

// Checks the datatype a request gives for the model's tensor: the tensor's own v2 name, or
// BOOL for an int8 or uint8 tensor. INVALID_ARGUMENT naming the model, the tensor, its datatype
// and what was given otherwise (FP64 and BYTES: not servable on a NeuronCore). `kind` is
// "input" or "output".
absl::Status CheckV2Datatype(absl::string_view model, absl::string_view kind,
                             absl::string_view tensor, DataType dtype, absl::string_view given);

// The InferTensorContents field names, by the ValueField that stands for each in request
// validation (core/serving/request/tensor_fields.h): "fp32_contents", "int_contents", ...; "raw_..."
// for kRaw.
std::string_view V2ContentsFieldName(ValueField field);

// Request validation's messages in the protocol's words (V2ContentsFieldName, V2DatatypeName).
const FieldNaming& V2FieldNaming();

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_OIP_V2_DATATYPE_H_
