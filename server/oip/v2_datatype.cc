#include "server/oip/v2_datatype.h"

#include "absl/strings/str_cat.h"

namespace neuronserve {

bool HasV2TypedContents(DataType dtype) {
  // The protocol has no contents field for a float narrower than FP32: FP16 and BF16, which the
  // native API carries in float_data, travel here only as raw bytes.
  return DataTypeHasTypedField(dtype) && !DataTypeNarrowFloatFormat(dtype).has_value();
}

absl::Status CheckV2Datatype(absl::string_view model, absl::string_view kind,
                             absl::string_view tensor, DataType dtype, absl::string_view given) {
  const std::string own = V2DatatypeName(dtype);
  if (given == own) return absl::OkStatus();
  if (given == "BOOL" && (dtype == DataType::kInt8 || dtype == DataType::kUInt8)) {
    return absl::OkStatus();
  }
  const std::string where = absl::StrCat("model '", model, "' ", kind, " '", tensor, "' is ", own);
  if (given.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ", but the request gives no datatype"));
  }
  if (given == "FP64" || given == "BYTES") {
    return absl::InvalidArgumentError(absl::StrCat(where, ", but the request gives ", given,
                                                   ", which no NeuronCore tensor holds; send ",
                                                   own));
  }
  return absl::InvalidArgumentError(absl::StrCat(where, ", but the request gives ", given));
}

std::string_view V2ContentsFieldName(ValueField field) {
  switch (field) {
    case ValueField::kNone:
      return "no values";
    case ValueField::kRaw:
      return "raw_input_contents";
    case ValueField::kFloat:
      return "fp32_contents";
    case ValueField::kInt32:
      return "int_contents";
    case ValueField::kUInt32:
      return "uint_contents";
    case ValueField::kInt64:
      return "int64_contents";
    case ValueField::kUInt64:
      return "uint64_contents";
    case ValueField::kBool:
      return "bool_contents";
  }
  return "no values";
}

namespace {
std::string V2FieldName(ValueField field) { return std::string(V2ContentsFieldName(field)); }
}  // namespace

const FieldNaming& V2FieldNaming() {
  static constexpr FieldNaming kV2{&V2FieldName, &V2DatatypeName};
  return kV2;
}

}  // namespace neuronserve
