#include "client/simmodel/sim_model_validation.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace neuronserve::simmodel {
namespace {

// Beyond this a tensor's byte size could overflow size arithmetic in a consumer; no useful
// simulated model comes near it.
constexpr int64_t kMaxElements = int64_t{1} << 40;

absl::Status CheckShape(absl::string_view what, const Shape& shape) {
  int64_t elements = 1;
  for (int64_t dim : shape) {
    if (dim <= 0 || dim > std::numeric_limits<uint32_t>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " has shape ", FormatShape(shape),
                       ": every dimension must be between 1 and 4294967295"));
    }
    if (elements > kMaxElements / dim) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " has shape ", FormatShape(shape), ": more than 2^40 elements"));
    }
    elements *= dim;
  }
  return absl::OkStatus();
}

// The shape of each defined float32 tensor, by name.
using ShapeTable = absl::flat_hash_map<std::string, Shape>;

absl::StatusOr<Shape> InferOpShape(const Op& op, const std::vector<const Shape*>& operands) {
  const std::string where = absl::StrCat("op '", OpKindName(op.kind), "' -> '", op.output, "'");
  const size_t want_operands =
      (op.kind == OpKind::kMatMul || op.kind == OpKind::kAdd || op.kind == OpKind::kMul) ? 2 : 1;
  if (operands.size() != want_operands) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " takes ", want_operands, " inputs, got ", operands.size()));
  }
  switch (op.kind) {
    case OpKind::kMatMul: {
      const Shape& a = *operands[0];
      const Shape& b = *operands[1];
      if (a.size() != 2 || b.size() != 2 || a[1] != b[0]) {
        return absl::InvalidArgumentError(absl::StrCat(where, " needs [M,K] x [K,N], got ",
                                                       FormatShape(a), " x ", FormatShape(b)));
      }
      return Shape{a[0], b[1]};
    }
    case OpKind::kAdd:
    case OpKind::kMul: {
      const Shape& a = *operands[0];
      const Shape& b = *operands[1];
      if (a == b) return a;
      // A rank-1 operand broadcasts over the other's last dimension.
      if (b.size() == 1 && !a.empty() && a.back() == b[0]) return a;
      if (a.size() == 1 && !b.empty() && b.back() == a[0]) return b;
      return absl::InvalidArgumentError(
          absl::StrCat(where,
                       " needs equal shapes or a rank-1 operand matching the other's last "
                       "dimension, got ",
                       FormatShape(a), " and ", FormatShape(b)));
    }
    case OpKind::kSoftmax:
      if (operands[0]->empty()) {
        return absl::InvalidArgumentError(absl::StrCat(where, " needs a tensor of rank >= 1"));
      }
      return *operands[0];
    case OpKind::kIdentity:
    case OpKind::kRelu:
    case OpKind::kTanh:
    case OpKind::kSigmoid:
      return *operands[0];
  }
  return absl::InvalidArgumentError(absl::StrCat(where, ": unknown op"));
}

absl::Status Define(absl::string_view what, const std::string& name, const Shape& shape,
                    absl::flat_hash_map<std::string, std::string>& defined_by) {
  if (name.empty()) return absl::InvalidArgumentError(absl::StrCat(what, " has an empty name"));
  if (name.size() >= NRT_TENSOR_NAME_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(what, " '", name, "' is longer than ",
                                                   NRT_TENSOR_NAME_MAX - 1, " characters"));
  }
  auto [it, inserted] = defined_by.try_emplace(name, std::string(what));
  if (!inserted) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " '", name, "' reuses the name of ", it->second));
  }
  return CheckShape(absl::StrCat(what, " '", name, "'"), shape);
}

absl::Status CheckFault(size_t index, const Fault& fault) {
  const std::string where = absl::StrCat("fault ", index);
  if (const auto* on = std::get_if<FaultOnExecution>(&fault.trigger); on && on->execution == 0) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": on_execution counts from 1"));
  }
  if (const auto* every = std::get_if<FaultEvery>(&fault.trigger); every && every->period == 0) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": every must be at least 1"));
  }
  if (const auto* p = std::get_if<FaultWithProbability>(&fault.trigger);
      p && !(p->probability > 0 && p->probability <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": probability must be in (0, 1]"));
  }
  const bool is_success = std::holds_alternative<int32_t>(fault.status)
                              ? std::get<int32_t>(fault.status) == NRT_SUCCESS
                              : std::get<std::string>(fault.status) == "NRT_SUCCESS";
  if (is_success)
    return absl::InvalidArgumentError(absl::StrCat(where, ": NRT_SUCCESS is no fault"));
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateSimModel(const SimModel& model) {
  if (model.nc_count == 0) return absl::InvalidArgumentError("nc_count must be at least 1");
  if (model.inputs.empty()) return absl::InvalidArgumentError("a model needs at least one input");
  if (model.outputs.empty()) {
    return absl::InvalidArgumentError("a model needs at least one output");
  }

  absl::flat_hash_map<std::string, std::string> defined_by;  // name -> what defined it
  ShapeTable float_tensors;
  for (const TensorSpec& input : model.inputs) {
    if (absl::Status s = Define("input", input.name, input.shape, defined_by); !s.ok()) return s;
    if (input.dtype == DataType::kUnknown) {
      return absl::InvalidArgumentError(absl::StrCat("input '", input.name, "' has no dtype"));
    }
    // Only float32 tensors can feed ops; other inputs are accepted but unused by the graph.
    if (input.dtype == DataType::kFloat32) float_tensors[input.name] = input.shape;
  }
  for (const auto& [name, constant] : model.constants) {
    if (absl::Status s = Define("constant", name, constant.shape, defined_by); !s.ok()) return s;
    if (static_cast<int64_t>(constant.data.size()) != ElementCount(constant.shape)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "constant '", name, "' has shape ", FormatShape(constant.shape), " (",
          ElementCount(constant.shape), " elements) but ", constant.data.size(), " values"));
    }
    float_tensors[name] = constant.shape;
  }

  ShapeTable produced_by_ops;
  for (const Op& op : model.ops) {
    std::vector<const Shape*> operands;
    for (const std::string& input : op.inputs) {
      auto it = float_tensors.find(input);
      if (it == float_tensors.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("op '", OpKindName(op.kind), "' -> '", op.output, "' reads '", input,
                         "', which is not a float32 tensor defined before it"));
      }
      operands.push_back(&it->second);
    }
    absl::StatusOr<Shape> shape = InferOpShape(op, operands);
    if (!shape.ok()) return shape.status();
    const std::string what = absl::StrCat("output of op '", OpKindName(op.kind), "'");
    if (absl::Status s = Define(what, op.output, *shape, defined_by); !s.ok()) return s;
    float_tensors[op.output] = *shape;
    produced_by_ops[op.output] = *std::move(shape);
  }

  for (size_t i = 0; i < model.faults.size(); ++i) {
    if (absl::Status s = CheckFault(i, model.faults[i]); !s.ok()) return s;
  }

  absl::flat_hash_map<std::string, bool> seen_outputs;
  for (const TensorSpec& output : model.outputs) {
    if (!seen_outputs.try_emplace(output.name, true).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("output '", output.name, "' is declared twice"));
    }
    if (output.dtype != DataType::kFloat32) {
      return absl::InvalidArgumentError(absl::StrCat("output '", output.name, "' is ",
                                                     std::string(DataTypeName(output.dtype)),
                                                     "; ops produce float32"));
    }
    auto it = produced_by_ops.find(output.name);
    if (it == produced_by_ops.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("output '", output.name, "' is not produced by any op"));
    }
    if (it->second != output.shape) {
      return absl::InvalidArgumentError(
          absl::StrCat("output '", output.name, "' is declared ", FormatShape(output.shape),
                       " but its op produces ", FormatShape(it->second)));
    }
  }
  return absl::OkStatus();
}

}  // namespace neuronserve::simmodel
