// The values of a REST input's `data`: each JSON scalar (RestScalar) into the typed field of the
// input's datatype (RestDataField), checked for its kind and range, and the field names request
// validation uses in REST words. The parser (v2_rest_request.h) appends values as it reads them
// or, when an input's datatype comes after its data, keeps them and converts them here once the
// datatype is known (FinishRestInput). gRPC-free.
//
// Thread safety: pure functions over the input they are given. Ownership: the input owns its
// values.
#ifndef NEURON_SERVE_SERVER_REST_V2_REST_DATA_H_
#define NEURON_SERVE_SERVER_REST_V2_REST_DATA_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "core/serving/request/request_validation.h"
#include "core/serving/request/tensor_fields.h"
#include "server/rest/v2_rest_request.h"

namespace neuronserve {

// The field JSON `data` of `datatype` goes in; kNone for the datatypes JSON cannot carry
// (BYTES, FP64, FP8_*, FP32R, UNKNOWN, a name the protocol does not have).
ValueField RestDataField(std::string_view datatype);

// Converts `input`'s pending values into its field (its datatype must have one). The
// out-of-range and wrong-type errors as ParseRestInferRequest's.
absl::Status FinishRestInput(std::string_view model, RestInput& input);

// Request validation's messages in REST words: "data" for the JSON values, "binary data" for
// the bytes after the JSON, the v2 datatype names.
const FieldNaming& RestFieldNaming();

// "model 'm' input 'x'", or "model 'm' inputs[2]" while the input's name is not known yet
// (`index` is its place in "inputs"): how errors name an input.
std::string RestInputWhere(std::string_view model, const RestInput& input, size_t index);

// A scalar as the JSON had it ("3", "-1.5", "true"), for errors.
std::string RestScalarText(const RestScalar& scalar);

// Appends `scalar` to `input`'s field (input.field, set from its datatype), checking that it is
// of the datatype's kind and fits: INVALID_ARGUMENT naming the input, the value and why
// otherwise, or that the datatype cannot travel as JSON data.
absl::Status AppendRestScalar(std::string_view model, size_t index, RestInput& input,
                              const RestScalar& scalar);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REST_V2_REST_DATA_H_
