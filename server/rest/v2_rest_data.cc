#include "server/rest/v2_rest_data.h"

#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "server/oip/v2_datatype.h"

namespace neuronserve {
namespace {

template <typename T>
void Append(RestInput& input, T value) {
  const size_t at = input.values.size();
  input.values.resize(at + sizeof(T));
  std::memcpy(input.values.data() + at, &value, sizeof(T));
  ++input.count;
}

std::string RestFieldName(ValueField field) {
  return field == ValueField::kRaw ? "binary data" : "data";
}

}  // namespace

std::string RestInputWhere(std::string_view model, const RestInput& input, size_t index) {
  if (!input.name.empty()) {
    return absl::StrCat("model '", std::string(model), "' input '", input.name, "'");
  }
  return absl::StrCat("model '", std::string(model), "' inputs[", index, "]");
}

std::string RestScalarText(const RestScalar& scalar) {
  switch (scalar.kind) {
    case RestScalar::Kind::kInt:
      return absl::StrCat(scalar.i);
    case RestScalar::Kind::kUInt:
      return absl::StrCat(scalar.u);
    case RestScalar::Kind::kFloat:
      return absl::StrCat(scalar.d);
    case RestScalar::Kind::kBool:
      return scalar.b ? "true" : "false";
  }
  return "?";
}

absl::Status AppendRestScalar(std::string_view model, size_t index, RestInput& input,
                              const RestScalar& scalar) {
  const auto refuse = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(RestInputWhere(model, input, index), " is ", input.datatype, ": data[",
                     input.count, "] = ", RestScalarText(scalar), " ", std::string(why)));
  };
  const auto integer_in = [&](int64_t min, uint64_t max) -> absl::Status {
    switch (scalar.kind) {
      case RestScalar::Kind::kInt:
        if (scalar.i < min || (scalar.i >= 0 && static_cast<uint64_t>(scalar.i) > max)) break;
        return absl::OkStatus();
      case RestScalar::Kind::kUInt:
        if (scalar.u > max) break;
        return absl::OkStatus();
      case RestScalar::Kind::kFloat:
        return refuse("is not an integer");
      case RestScalar::Kind::kBool:
        return refuse("is a boolean; only BOOL inputs take true/false");
    }
    return refuse(absl::StrCat("is outside its range [", min, ", ", max, "]"));
  };
  switch (input.field) {
    case ValueField::kFloat:
      switch (scalar.kind) {
        case RestScalar::Kind::kInt:
          Append<float>(input, static_cast<float>(scalar.i));
          return absl::OkStatus();
        case RestScalar::Kind::kUInt:
          Append<float>(input, static_cast<float>(scalar.u));
          return absl::OkStatus();
        case RestScalar::Kind::kFloat:
          Append<float>(input, static_cast<float>(scalar.d));
          return absl::OkStatus();
        case RestScalar::Kind::kBool:
          return refuse("is a boolean; only BOOL inputs take true/false");
      }
      break;
    case ValueField::kInt32:
      if (absl::Status ok =
              integer_in(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
          !ok.ok()) {
        return ok;
      }
      Append<int32_t>(input, static_cast<int32_t>(scalar.kind == RestScalar::Kind::kInt
                                                      ? scalar.i
                                                      : static_cast<int64_t>(scalar.u)));
      return absl::OkStatus();
    case ValueField::kUInt32:
      if (absl::Status ok = integer_in(0, std::numeric_limits<uint32_t>::max()); !ok.ok()) {
        return ok;
      }
      Append<uint32_t>(input, static_cast<uint32_t>(scalar.kind == RestScalar::Kind::kInt
                                                        ? static_cast<uint64_t>(scalar.i)
                                                        : scalar.u));
      return absl::OkStatus();
    case ValueField::kInt64:
      if (absl::Status ok =
              integer_in(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
          !ok.ok()) {
        return ok;
      }
      Append<int64_t>(
          input, scalar.kind == RestScalar::Kind::kInt ? scalar.i : static_cast<int64_t>(scalar.u));
      return absl::OkStatus();
    case ValueField::kUInt64:
      if (absl::Status ok = integer_in(0, std::numeric_limits<uint64_t>::max()); !ok.ok()) {
        return ok;
      }
      Append<uint64_t>(input, scalar.kind == RestScalar::Kind::kInt
                                  ? static_cast<uint64_t>(scalar.i)
                                  : scalar.u);
      return absl::OkStatus();
    case ValueField::kBool:
      if (scalar.kind != RestScalar::Kind::kBool) return refuse("is not true or false");
      Append<uint8_t>(input, scalar.b ? 1 : 0);
      return absl::OkStatus();
    case ValueField::kRaw:
    case ValueField::kNone:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(RestInputWhere(model, input, index), ": datatype '", input.datatype,
                   "' cannot be sent as JSON data; JSON data is for BOOL, INT8, INT16, INT32, "
                   "INT64, UINT8, UINT16, UINT32, UINT64, FP16, BF16 and FP32 (send other "
                   "tensors as binary data with binary_data_size)"));
}

ValueField RestDataField(std::string_view datatype) {
  if (datatype == "FP32" || datatype == "FP16" || datatype == "BF16") return ValueField::kFloat;
  if (datatype == "INT8" || datatype == "INT16" || datatype == "INT32") return ValueField::kInt32;
  if (datatype == "UINT8" || datatype == "UINT16" || datatype == "UINT32") {
    return ValueField::kUInt32;
  }
  if (datatype == "INT64") return ValueField::kInt64;
  if (datatype == "UINT64") return ValueField::kUInt64;
  if (datatype == "BOOL") return ValueField::kBool;
  return ValueField::kNone;
}

absl::Status FinishRestInput(std::string_view model, RestInput& input) {
  if (input.pending.empty()) return absl::OkStatus();
  input.field = RestDataField(input.datatype);
  input.values.clear();
  input.count = 0;
  for (const RestScalar& scalar : input.pending) {
    // The index only names the input when it has no name; by now it has one.
    if (absl::Status appended = AppendRestScalar(model, 0, input, scalar); !appended.ok()) {
      return appended;
    }
  }
  input.pending.clear();
  input.pending.shrink_to_fit();
  return absl::OkStatus();
}

const FieldNaming& RestFieldNaming() {
  static constexpr FieldNaming kRest{&RestFieldName, &V2DatatypeName};
  return kRest;
}

}  // namespace neuronserve
