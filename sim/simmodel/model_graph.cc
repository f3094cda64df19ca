#include "sim/simmodel/model_graph.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <utility>

#include "base/nrt_status_names.h"
#include "sim/compute/broadcast.h"
#include "sim/compute/element_access.h"

namespace neuronserve::simmodel {
namespace {

// Integer constants are held as doubles, which are exact up to 2^53.
constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

// Thrown inside this file only; CompileModelGraph turns it into a FormatError.
struct RuleViolation {
  std::string message;
};

[[noreturn]] void Fail(const std::string& context, const std::string& problem) {
  throw RuleViolation{context + ": " + problem};
}

std::string DtypeText(DataType dtype) { return std::string(DataTypeName(dtype)); }

// The range of an integer dtype, as doubles, from its number kind and width (int64 and uint64
// cut to the exactly held +-2^53); nullopt for the float types.
std::optional<std::pair<double, double>> IntegerRange(DataType dtype) {
  const NumberKind kind = DataTypeNumberKind(dtype);
  if (kind != NumberKind::kSigned && kind != NumberKind::kUnsigned) return std::nullopt;
  const int bits = 8 * static_cast<int>(DataTypeSize(dtype));
  const double low = kind == NumberKind::kSigned ? -std::ldexp(1.0, bits - 1) : 0.0;
  const double high = std::ldexp(1.0, kind == NumberKind::kSigned ? bits - 1 : bits) - 1.0;
  return std::pair(std::max(low, -kMaxExactInteger), std::min(high, kMaxExactInteger));
}

void CheckName(const std::string& name, const std::string& context) {
  if (name.empty()) Fail(context, "has an empty name");
  // nrt_tensor_info_t.name holds NRT_TENSOR_NAME_MAX bytes including the terminator.
  if (name.size() >= NRT_TENSOR_NAME_MAX || std::memchr(name.data(), '\0', name.size())) {
    Fail(context, "'" + name + "' is longer than " + std::to_string(NRT_TENSOR_NAME_MAX - 1) +
                      " bytes or contains a NUL");
  }
}

void CheckShapeForm(const Shape& shape, const std::string& context) {
  if (shape.empty()) Fail(context, "a shape needs at least one dimension");
  for (uint32_t dim : shape) {
    if (dim == 0) Fail(context, "shape " + ShapeToString(shape) + " has a zero dimension");
  }
}

void CheckFault(size_t index, const Fault& fault) {
  const std::string context = "faults[" + std::to_string(index) + "]";
  if (const auto* on = std::get_if<FaultOnExecution>(&fault.trigger); on && on->execution == 0) {
    Fail(context, "on_execution counts from 1");
  }
  if (const auto* every = std::get_if<FaultEvery>(&fault.trigger); every && every->period == 0) {
    Fail(context, "every must be at least 1");
  }
  if (const auto* p = std::get_if<FaultWithProbability>(&fault.trigger);
      p && !(p->probability >= 0 && p->probability <= 1)) {
    Fail(context, "probability must be from 0 to 1");
  }
  if (fault.latency_us) {
    if (*fault.latency_us > kMaxLatencyUs) {
      Fail(context, "latency_us " + std::to_string(*fault.latency_us) + " is above an hour");
    }
  } else if (const auto* name = std::get_if<std::string>(&fault.status)) {
    std::optional<NRT_STATUS> status = NrtStatusFromName(*name);
    if (!status) {
      Fail(context, "unknown status '" + *name + "' (want an NRT_STATUS name such as "
                                                 "NRT_HW_ERROR, or a non-zero number)");
    }
    if (*status == NRT_SUCCESS) Fail(context, "NRT_SUCCESS is no fault");
  } else if (std::get<int32_t>(fault.status) == NRT_SUCCESS) {
    Fail(context, "status 0 is NRT_SUCCESS, which is no fault");
  }
  if (fault.core && *fault.core > kMaxFaultCore) {
    Fail(context, "core " + std::to_string(*fault.core) + " is above " +
                      std::to_string(kMaxFaultCore));
  }
}

class GraphBuilder {
 public:
  explicit GraphBuilder(const SimModel& model) : model_(model) {}

  ModelGraph Build() {
    CheckModelFields();
    for (size_t i = 0; i < model_.inputs.size(); ++i) {
      const TensorSignature& input = model_.inputs[i];
      const std::string context = "inputs[" + std::to_string(i) + "]";
      CheckTensorSignature(input, context);
      graph_.input_values.push_back(Define(input.name, input.dtype, input.shape, context));
    }
    for (const auto& [name, constant] : model_.constants) AddConstant(name, constant);
    for (size_t i = 0; i < model_.ops.size(); ++i) AddStep(i);
    if (model_.outputs.empty()) Fail("outputs", "a model needs at least one output");
    for (size_t i = 0; i < model_.outputs.size(); ++i) BindOutput(i);
    for (size_t i = 0; i < model_.faults.size(); ++i) CheckFault(i, model_.faults[i]);
    return std::move(graph_);
  }

 private:
  void CheckModelFields() const {
    if (model_.nc_count < 1 || model_.nc_count > kMaxNcCount) {
      Fail("nc_count", std::to_string(model_.nc_count) + " is not from 1 to " +
                           std::to_string(kMaxNcCount));
    }
    if (model_.latency_us > kMaxLatencyUs) {
      Fail("latency_us", "must be at most " + std::to_string(kMaxLatencyUs));
    }
    if (model_.load_latency_ms > kMaxLoadLatencyMs) {
      Fail("load_latency_ms", "must be at most " + std::to_string(kMaxLoadLatencyMs));
    }
  }

  static void CheckTensorSignature(const TensorSignature& tensor, const std::string& context) {
    CheckName(tensor.name, context);
    if (tensor.dtype == DataType::kUnknown) Fail(context, "'" + tensor.name + "' has no dtype");
  }

  size_t Define(const std::string& name, DataType dtype, const Shape& shape,
                const std::string& context) {
    CheckName(name, context);
    CheckShapeForm(shape, context + " '" + name + "'");
    auto [it, inserted] = index_.emplace(name, graph_.values.size());
    if (!inserted) {
      Fail(context, "name '" + name + "' is already defined by " + definer_[it->second]);
    }
    std::optional<uint64_t> count = CheckedElementCount(shape);
    const uint64_t element_size = DataTypeSize(dtype);
    if (!count || *count > kMaxValueBytes / element_size) {
      Fail(context, "'" + name + "' of shape " + ShapeToString(shape) + " is larger than " +
                        std::to_string(kMaxValueBytes) + " bytes");
    }
    graph_.values.push_back(GraphValue{name, dtype, shape, *count, *count * element_size});
    definer_.push_back(context);
    produced_by_op_.push_back(false);
    return graph_.values.size() - 1;
  }

  void AddConstant(const std::string& name, const Constant& constant) {
    const std::string context = "constant '" + name + "'";
    if (constant.dtype == DataType::kUnknown) Fail(context, "has no dtype");
    const size_t value = Define(name, constant.dtype, constant.shape, context);
    const uint64_t count = graph_.values[value].element_count;
    if (constant.data.size() != count) {
      Fail(context, "data has " + std::to_string(constant.data.size()) + " values but shape " +
                        ShapeToString(constant.shape) + " (" + std::to_string(count) +
                        " elements) needs " + std::to_string(count));
    }
    const std::optional<std::pair<double, double>> range = IntegerRange(constant.dtype);
    for (size_t i = 0; i < constant.data.size(); ++i) {
      const double number = constant.data[i];
      if (!range) {
        if (!std::isfinite(static_cast<float>(number))) {
          Fail(context, "value " + std::to_string(i) + " is not a finite float32");
        }
      } else if (number != std::trunc(number) || number < range->first ||
                 number > range->second) {
        Fail(context, "value " + std::to_string(i) + " (" + std::to_string(number) +
                          ") is not a whole number from " + std::to_string(range->first) +
                          " to " + std::to_string(range->second) + " (" +
                          DtypeText(constant.dtype) + ")");
      }
    }
    graph_.constant_bytes += graph_.values[value].byte_size;
    graph_.constants.push_back(GraphConstant{value, name});
  }

  const GraphValue& Value(size_t index) const { return graph_.values[index]; }

  static size_t Arity(OpKind kind) {
    switch (kind) {
      case OpKind::kMatMul:
      case OpKind::kAdd:
      case OpKind::kSub:
      case OpKind::kMul:
      case OpKind::kDiv:
      case OpKind::kGather:
        return 2;
      default:
        return 1;
    }
  }

  static void CheckAttributes(const Op& op, const std::string& context) {
    const bool cast = op.kind == OpKind::kCast;
    const bool reshape = op.kind == OpKind::kReshape;
    const bool reduce = op.kind == OpKind::kReduceSum || op.kind == OpKind::kReduceMean;
    if (cast && (!op.dtype || *op.dtype == DataType::kUnknown)) {
      Fail(context, "needs the dtype to cast to");
    }
    if (!cast && op.dtype) Fail(context, "takes no dtype");
    if (reshape && !op.shape) Fail(context, "needs the shape to reshape to");
    if (!reshape && op.shape) Fail(context, "takes no shape");
    if (reduce && !op.axis) Fail(context, "needs the axis to reduce");
    if (!reduce && op.axis) Fail(context, "takes no axis");
    if (!reduce && op.keepdims) Fail(context, "takes no keepdims");
  }

  void AddStep(size_t op_index) {
    const Op& op = model_.ops[op_index];
    GraphStep step;
    step.op_index = op_index;
    step.kind = op.kind;
    const std::string context = DescribeStep(step);
    CheckAttributes(op, context);
    for (const std::string& name : op.inputs) {
      auto it = index_.find(name);
      if (it == index_.end()) Fail(context, "input '" + name + "' is not defined before this op");
      step.inputs.push_back(it->second);
    }
    const size_t arity = Arity(op.kind);
    if (step.inputs.size() != arity) {
      Fail(context, "takes " + std::to_string(arity) + " input(s), got " +
                        std::to_string(step.inputs.size()));
    }
    const DataType dtype = InferDtype(op, step.inputs, context);
    const Shape shape = InferShape(op, step.inputs, context);
    if (op.axis) step.axis = *op.axis;
    step.output = Define(op.output, dtype, shape, context);
    produced_by_op_[step.output] = true;
    graph_.steps.push_back(std::move(step));
  }

  DataType InferDtype(const Op& op, const std::vector<size_t>& inputs,
                      const std::string& context) const {
    const GraphValue& a = Value(inputs[0]);
    switch (op.kind) {
      case OpKind::kCast:
        return *op.dtype;
      case OpKind::kMatMul:
      case OpKind::kAdd:
      case OpKind::kSub:
      case OpKind::kMul:
      case OpKind::kDiv: {
        const GraphValue& b = Value(inputs[1]);
        if (a.dtype != b.dtype) {
          Fail(context, "operands '" + a.name + "' (" + DtypeText(a.dtype) + ") and '" + b.name +
                            "' (" + DtypeText(b.dtype) +
                            ") have different dtypes; cast one of them");
        }
        return a.dtype;
      }
      case OpKind::kTanh:
      case OpKind::kSigmoid:
      case OpKind::kSoftmax:
        if (!IsFloatingPoint(a.dtype)) {
          Fail(context, "input '" + a.name + "' is " + DtypeText(a.dtype) +
                            "; this op takes a floating-point dtype");
        }
        return a.dtype;
      case OpKind::kGather: {
        const GraphValue& indices = Value(inputs[1]);
        if (indices.dtype != DataType::kInt32 && indices.dtype != DataType::kInt64) {
          Fail(context, "indices '" + indices.name + "' are " + DtypeText(indices.dtype) +
                            "; gather takes int32 or int64 indices");
        }
        return a.dtype;
      }
      default:
        return a.dtype;
    }
  }

  Shape InferShape(const Op& op, const std::vector<size_t>& inputs,
                   const std::string& context) const {
    const Shape& a = Value(inputs[0]).shape;
    switch (op.kind) {
      case OpKind::kMatMul: {
        const Shape& b = Value(inputs[1]).shape;
        if (a.size() != 2 || b.size() != 2) {
          Fail(context, "operands must be 2-D: " + ShapeToString(a) + " x " + ShapeToString(b));
        }
        if (a[1] != b[0]) {
          Fail(context, "inner dimensions differ: " + ShapeToString(a) + " x " + ShapeToString(b));
        }
        return Shape{a[0], b[1]};
      }
      case OpKind::kAdd:
      case OpKind::kSub:
      case OpKind::kMul:
      case OpKind::kDiv: {
        const Shape& b = Value(inputs[1]).shape;
        std::optional<Shape> result = nrtsim::compute::BroadcastShape(a, b);
        if (!result) {
          Fail(context, "shapes " + ShapeToString(a) + " and " + ShapeToString(b) +
                            " do not broadcast (trailing dimensions must be equal or 1)");
        }
        return *result;
      }
      case OpKind::kReshape: {
        CheckShapeForm(*op.shape, context);
        if (CheckedElementCount(*op.shape) != CheckedElementCount(a)) {
          Fail(context, "cannot reshape " + ShapeToString(a) + " to " + ShapeToString(*op.shape) +
                            ": the element counts differ");
        }
        return *op.shape;
      }
      case OpKind::kReduceSum:
      case OpKind::kReduceMean: {
        if (*op.axis >= a.size()) {
          Fail(context, "axis " + std::to_string(*op.axis) + " is not an axis of " +
                            ShapeToString(a));
        }
        Shape result = a;
        if (op.keepdims) {
          result[*op.axis] = 1;
        } else {
          result.erase(result.begin() + *op.axis);
          // A shape needs a dimension: reducing the only axis leaves [1].
          if (result.empty()) result.push_back(1);
        }
        return result;
      }
      case OpKind::kGather: {
        const Shape& indices = Value(inputs[1]).shape;
        Shape result = indices;
        result.insert(result.end(), a.begin() + 1, a.end());
        return result;
      }
      default:
        return a;
    }
  }

  void BindOutput(size_t output_index) {
    const TensorSignature& output = model_.outputs[output_index];
    const std::string context = "outputs[" + std::to_string(output_index) + "] '" + output.name + "'";
    CheckTensorSignature(output, context);
    auto it = index_.find(output.name);
    if (it == index_.end() || !produced_by_op_[it->second]) Fail(context, "is not produced by any op");
    for (size_t earlier : graph_.output_values) {
      if (earlier == it->second) Fail(context, "is declared twice");
    }
    const GraphValue& value = Value(it->second);
    if (value.dtype != output.dtype) {
      Fail(context, "is declared " + DtypeText(output.dtype) + " but " + definer_[it->second] +
                        " produces " + DtypeText(value.dtype));
    }
    if (value.shape != output.shape) {
      Fail(context, "is declared " + ShapeToString(output.shape) + " but " + definer_[it->second] +
                        " produces " + ShapeToString(value.shape));
    }
    graph_.output_values.push_back(it->second);
  }

  const SimModel& model_;
  ModelGraph graph_;
  std::unordered_map<std::string, size_t> index_;  // name -> value index
  std::vector<std::string> definer_;               // value index -> what defined it
  std::vector<bool> produced_by_op_;               // value index -> output of an op
};

}  // namespace

FormatResult<ModelGraph> CompileModelGraph(const SimModel& model) {
  try {
    return GraphBuilder(model).Build();
  } catch (const RuleViolation& violation) {
    return FormatError{violation.message};
  }
}

std::string DescribeStep(const GraphStep& step) {
  return "op " + std::to_string(step.op_index) + " (" + std::string(OpKindName(step.kind)) + ")";
}

bool IsFloatingPoint(DataType dtype) {
  return nrtsim::compute::ComputeKindOf(dtype) == nrtsim::compute::ComputeKind::kFloat;
}

}  // namespace neuronserve::simmodel
