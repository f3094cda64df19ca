#include "sim/graph_executor.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "sim/compute/kernels.h"

namespace neuronserve::nrtsim {
namespace {

using simmodel::GraphStep;
using simmodel::GraphValue;
using simmodel::ModelGraph;
using simmodel::OpKind;

// The values of one run, each a view of bytes: of a constant, of an input tensor, of another
// value (identity, reshape) or of a buffer owned here. Inputs are viewed in place unless an
// output tensor overlaps one (see OutputsOverlapInputs).
class ValueTable {
 public:
  explicit ValueTable(size_t count) : views_(count), owned_(count) {}

  std::span<const std::byte> bytes(size_t v) const { return views_[v]; }
  void Alias(size_t v, std::span<const std::byte> data) { views_[v] = data; }

  // Zeroed memory for a value computed here. calloc, not a vector of std::byte: its memory is
  // suitably aligned for every element type and holds implicitly created objects, so kernels
  // may read it as floats or integers.
  std::span<std::byte> Allocate(size_t v, size_t byte_size) {
    owned_[v].reset(static_cast<std::byte*>(std::calloc(byte_size == 0 ? 1 : byte_size, 1)));
    if (owned_[v] == nullptr) throw std::bad_alloc();
    std::span<std::byte> data(owned_[v].get(), byte_size);
    views_[v] = data;
    return data;
  }

 private:
  struct FreeDeleter {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::vector<std::span<const std::byte>> views_;
  std::vector<std::unique_ptr<std::byte, FreeDeleter>> owned_;
};

compute::ConstTensor In(const ModelGraph& graph, const ValueTable& table, size_t v) {
  const GraphValue& value = graph.values[v];
  return compute::ConstTensor{value.dtype, &value.shape, table.bytes(v)};
}

compute::KernelError RunStep(const ModelGraph& graph, const GraphStep& step, ValueTable& table) {
  if (step.kind == OpKind::kIdentity || step.kind == OpKind::kReshape) {
    // No copy: the output is the input's bytes, under another name (and shape).
    table.Alias(step.output, table.bytes(step.inputs[0]));
    return std::nullopt;
  }
  const GraphValue& out_value = graph.values[step.output];
  const compute::MutTensor out{out_value.dtype, &out_value.shape,
                               table.Allocate(step.output, out_value.byte_size)};
  const compute::ConstTensor a = In(graph, table, step.inputs[0]);
  switch (step.kind) {
    case OpKind::kCast:
      compute::Cast(a, out);
      return std::nullopt;
    case OpKind::kMatMul:
      compute::MatMul(a, In(graph, table, step.inputs[1]), out);
      return std::nullopt;
    case OpKind::kAdd:
      return compute::Binary(compute::BinaryOp::kAdd, a, In(graph, table, step.inputs[1]), out);
    case OpKind::kSub:
      return compute::Binary(compute::BinaryOp::kSub, a, In(graph, table, step.inputs[1]), out);
    case OpKind::kMul:
      return compute::Binary(compute::BinaryOp::kMul, a, In(graph, table, step.inputs[1]), out);
    case OpKind::kDiv:
      return compute::Binary(compute::BinaryOp::kDiv, a, In(graph, table, step.inputs[1]), out);
    case OpKind::kRelu:
      compute::Unary(compute::UnaryOp::kRelu, a, out);
      return std::nullopt;
    case OpKind::kTanh:
      compute::Unary(compute::UnaryOp::kTanh, a, out);
      return std::nullopt;
    case OpKind::kSigmoid:
      compute::Unary(compute::UnaryOp::kSigmoid, a, out);
      return std::nullopt;
    case OpKind::kSoftmax:
      compute::Softmax(a, out);
      return std::nullopt;
    case OpKind::kReduceSum:
      compute::Reduce(compute::ReduceOp::kSum, a, step.axis, out);
      return std::nullopt;
    case OpKind::kReduceMean:
      compute::Reduce(compute::ReduceOp::kMean, a, step.axis, out);
      return std::nullopt;
    case OpKind::kGather:
      return compute::Gather(a, In(graph, table, step.inputs[1]), out);
    case OpKind::kIdentity:
    case OpKind::kReshape:
      break;
  }
  return "unhandled op";
}

// Whether writing some output could change an input's bytes: the caller may pass one tensor (or
// overlapping slices) as both. Outputs are written one after another at the end, so an input
// viewed in place could then be read after an earlier output overwrote it.
bool OutputsOverlapInputs(const std::vector<std::span<const std::byte>>& inputs,
                          const std::vector<std::span<std::byte>>& outputs) {
  for (const std::span<std::byte>& out : outputs) {
    for (const std::span<const std::byte>& in : inputs) {
      const std::byte* out_end = out.data() + out.size();
      const std::byte* in_end = in.data() + in.size();
      if (out.data() < in_end && in.data() < out_end) return true;
    }
  }
  return false;
}

}  // namespace

std::optional<std::string> RunGraph(const ModelGraph& graph,
                                    const std::vector<std::vector<std::byte>>& constants,
                                    const std::vector<std::span<const std::byte>>& inputs,
                                    const std::vector<std::span<std::byte>>& outputs) {
  ValueTable table(graph.values.size());
  for (size_t i = 0; i < graph.constants.size(); ++i) {
    table.Alias(graph.constants[i].value, constants[i]);
  }
  const bool copy_inputs = OutputsOverlapInputs(inputs, outputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t v = graph.input_values[i];
    if (!copy_inputs) {
      // Viewed in place: a copy here would be a pass over memory that the hardware, reading its
      // own HBM, never makes (an identity model of 16 MiB spent more time in this copy than in
      // its output write). Tensor memory comes from calloc, so it is aligned for every type.
      table.Alias(v, inputs[i]);
    } else {
      std::span<std::byte> copy = table.Allocate(v, inputs[i].size());
      std::memcpy(copy.data(), inputs[i].data(), inputs[i].size());
    }
  }
  for (const GraphStep& step : graph.steps) {
    if (compute::KernelError error = RunStep(graph, step, table)) {
      return simmodel::DescribeStep(step) + ": " + *error;
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::span<const std::byte> value = table.bytes(graph.output_values[i]);
    std::memcpy(outputs[i].data(), value.data(), value.size());
  }
  return std::nullopt;
}

}  // namespace neuronserve::nrtsim
