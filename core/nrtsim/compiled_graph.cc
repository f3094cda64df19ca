#include "core/nrtsim/compiled_graph.h"

#include <limits>
#include <unordered_map>

namespace neuronserve::nrtsim {
namespace {

// The CPU materializes every value of the graph, so one value may not exceed 4 GiB.
constexpr uint64_t kMaxValueBytes = uint64_t{4} << 30;

[[noreturn]] void Fail(const std::string& context, const std::string& problem) {
  throw ModelFormatError(context + ": " + problem);
}

class GraphBuilder {
 public:
  explicit GraphBuilder(ModelSpec& spec) : spec_(spec) {}

  CompiledGraph Build() {
    for (size_t i = 0; i < spec_.inputs.size(); ++i) {
      const TensorDecl& input = spec_.inputs[i];
      graph_.input_values.push_back(
          Define(input.name, input.dtype, input.shape, "inputs[" + std::to_string(i) + "]"));
    }
    for (ConstantDecl& constant : spec_.constants) {
      std::string context = "constant '" + constant.name + "'";
      size_t value = Define(constant.name, DataType::kFloat32, constant.shape, context);
      graph_.constant_bytes += graph_.values[value].byte_size;
      graph_.constants.push_back(GraphConstant{value, std::move(constant.data)});
    }
    for (size_t i = 0; i < spec_.ops.size(); ++i) AddStep(i);
    if (spec_.outputs.empty()) Fail("outputs", "a model needs at least one output");
    for (size_t i = 0; i < spec_.outputs.size(); ++i) BindOutput(i);
    return std::move(graph_);
  }

 private:
  size_t Define(const std::string& name, DataType dtype, const Shape& shape,
                const std::string& context) {
    auto [it, inserted] = index_.emplace(name, graph_.values.size());
    if (!inserted) {
      Fail(context, "name '" + name + "' is already defined by " + definer_[it->second]);
    }
    std::optional<uint64_t> count = ElementCount(shape);
    uint64_t element_size = DataTypeSize(dtype);
    if (!count || *count > kMaxValueBytes / element_size) {
      Fail(context, "'" + name + "' of shape " + ShapeToString(shape) + " is larger than " +
                        std::to_string(kMaxValueBytes) + " bytes");
    }
    graph_.values.push_back(GraphValue{name, dtype, shape, *count, *count * element_size});
    definer_.push_back(context);
    return graph_.values.size() - 1;
  }

  const GraphValue& Value(size_t index) const { return graph_.values[index]; }

  void AddStep(size_t op_index) {
    const OpDecl& op = spec_.ops[op_index];
    std::string context = "op " + std::to_string(op_index) + " (" + op.kind_name + ")";
    GraphStep step;
    step.kind = op.kind;
    for (const std::string& name : op.inputs) {
      auto it = index_.find(name);
      if (it == index_.end()) Fail(context, "input '" + name + "' is not defined before this op");
      step.inputs.push_back(it->second);
    }
    size_t arity =
        (op.kind == OpKind::kMatmul || op.kind == OpKind::kAdd || op.kind == OpKind::kMul) ? 2 : 1;
    if (step.inputs.size() != arity) {
      Fail(context, "takes " + std::to_string(arity) + " input(s), got " +
                        std::to_string(step.inputs.size()));
    }
    DataType dtype = DataType::kFloat32;
    if (op.kind == OpKind::kIdentity) {
      // A byte copy: the one op through which a non-float32 tensor may pass.
      dtype = Value(step.inputs[0]).dtype;
    } else {
      for (size_t input : step.inputs) {
        if (Value(input).dtype != DataType::kFloat32) {
          Fail(context, "input '" + Value(input).name + "' is " +
                            std::string(DataTypeName(Value(input).dtype)) +
                            "; only identity accepts a dtype other than float32");
        }
      }
    }
    Shape shape = InferShape(op.kind, step.inputs, context);
    step.output = Define(op.output, dtype, shape, context);
    produced_by_op_.resize(graph_.values.size(), false);
    produced_by_op_[step.output] = true;
    graph_.steps.push_back(std::move(step));
  }

  Shape InferShape(OpKind kind, const std::vector<size_t>& inputs,
                   const std::string& context) const {
    const Shape& a = Value(inputs[0]).shape;
    switch (kind) {
      case OpKind::kMatmul: {
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
      case OpKind::kMul: {
        const Shape& b = Value(inputs[1]).shape;
        if (a == b) return a;
        // A rank-1 operand broadcasts over the other's last dimension (a bias, a scale).
        if (b.size() == 1 && b[0] == a.back()) return a;
        if (a.size() == 1 && a[0] == b.back()) return b;
        Fail(context, "shapes " + ShapeToString(a) + " and " + ShapeToString(b) +
                          " are neither equal nor a rank-1 operand matching the other's last "
                          "dimension");
      }
      case OpKind::kIdentity:
      case OpKind::kRelu:
      case OpKind::kTanh:
      case OpKind::kSigmoid:
      case OpKind::kSoftmax:
        return a;
    }
    Fail(context, "unhandled op");
  }

  void BindOutput(size_t output_index) {
    const TensorDecl& output = spec_.outputs[output_index];
    std::string context = "outputs[" + std::to_string(output_index) + "] '" + output.name + "'";
    auto it = index_.find(output.name);
    if (it == index_.end() || it->second >= produced_by_op_.size() ||
        !produced_by_op_[it->second]) {
      Fail(context, "is not produced by any op");
    }
    for (size_t earlier : graph_.output_values) {
      if (earlier == it->second) Fail(context, "is declared twice");
    }
    const GraphValue& value = Value(it->second);
    if (value.dtype != output.dtype) {
      Fail(context, "is declared " + std::string(DataTypeName(output.dtype)) + " but " +
                        definer_[it->second] + " produces " +
                        std::string(DataTypeName(value.dtype)));
    }
    if (value.shape != output.shape) {
      Fail(context, "is declared " + ShapeToString(output.shape) + " but " + definer_[it->second] +
                        " produces " + ShapeToString(value.shape));
    }
    graph_.output_values.push_back(it->second);
  }

  ModelSpec& spec_;
  CompiledGraph graph_;
  std::unordered_map<std::string, size_t> index_;  // name -> value index
  std::vector<std::string> definer_;               // value index -> what defined it
  std::vector<bool> produced_by_op_;               // value index -> output of an op
};

}  // namespace

CompiledGraph CompileGraph(ModelSpec& spec) { return GraphBuilder(spec).Build(); }

}  // namespace neuronserve::nrtsim
