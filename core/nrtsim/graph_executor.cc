#include "core/nrtsim/graph_executor.h"

#include <cstdint>
#include <cstring>

#include "core/nrtsim/kernels.h"

namespace neuronserve::nrtsim {
namespace {

// The values of one run. A value is either float32 (a view of a constant, of another value, or
// of a buffer owned here) or, for a non-float32 tensor passing through identity, raw bytes.
// Inputs are viewed in place unless an output tensor overlaps one (see OutputsOverlapInputs).
class ValueTable {
 public:
  explicit ValueTable(size_t count)
      : floats_(count), bytes_(count), owned_(count), owned_bytes_(count) {}

  std::span<const float> floats(size_t v) const { return floats_[v]; }
  std::span<const std::byte> bytes(size_t v) const { return bytes_[v]; }

  void Alias(size_t v, std::span<const float> data) { floats_[v] = data; }
  void AliasBytes(size_t v, std::span<const std::byte> data) { bytes_[v] = data; }

  std::span<float> Allocate(size_t v, size_t element_count) {
    owned_[v].assign(element_count, 0.0f);
    floats_[v] = owned_[v];
    return owned_[v];
  }

  void CopyBytes(size_t v, std::span<const std::byte> data) {
    owned_bytes_[v].assign(data.begin(), data.end());
    bytes_[v] = owned_bytes_[v];
  }

 private:
  std::vector<std::span<const float>> floats_;
  std::vector<std::span<const std::byte>> bytes_;
  std::vector<std::vector<float>> owned_;
  std::vector<std::vector<std::byte>> owned_bytes_;
};

void RunStep(const CompiledGraph& graph, const GraphStep& step, ValueTable& table) {
  const GraphValue& out = graph.values[step.output];
  if (step.kind == OpKind::kIdentity) {
    // No copy: the output is the input's storage.
    table.Alias(step.output, table.floats(step.inputs[0]));
    table.AliasBytes(step.output, table.bytes(step.inputs[0]));
    return;
  }
  std::span<float> result = table.Allocate(step.output, out.element_count);
  std::span<const float> a = table.floats(step.inputs[0]);
  switch (step.kind) {
    case OpKind::kMatmul: {
      const Shape& a_shape = graph.values[step.inputs[0]].shape;
      MatMul(a, table.floats(step.inputs[1]), a_shape[0], a_shape[1], out.shape[1], result);
      break;
    }
    case OpKind::kAdd:
    case OpKind::kMul:
      ElementwiseBinary(step.kind, a, table.floats(step.inputs[1]), result);
      break;
    case OpKind::kSoftmax:
      Softmax(a, out.shape.back(), result);
      break;
    default:
      ElementwiseUnary(step.kind, a, result);
      break;
  }
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

void RunGraph(const CompiledGraph& graph, const std::vector<std::span<const std::byte>>& inputs,
              const std::vector<std::span<std::byte>>& outputs) {
  ValueTable table(graph.values.size());
  for (const GraphConstant& constant : graph.constants) table.Alias(constant.value, constant.data);
  const bool copy_inputs = OutputsOverlapInputs(inputs, outputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    size_t v = graph.input_values[i];
    const GraphValue& value = graph.values[v];
    if (value.dtype != DataType::kFloat32) {
      table.CopyBytes(v, inputs[i]);
      continue;
    }
    const bool aligned = reinterpret_cast<uintptr_t>(inputs[i].data()) % alignof(float) == 0;
    if (aligned && !copy_inputs) {
      // Viewed in place: tensor memory comes from calloc, which creates the float objects
      // implicitly (C++20), and a copy here would be a pass over memory that the hardware,
      // reading its own HBM, never makes (an identity model of 16 MiB spent more time in
      // this copy than in its output write).
      table.Alias(v, std::span<const float>(reinterpret_cast<const float*>(inputs[i].data()),
                                            value.element_count));
    } else {
      std::span<float> copy = table.Allocate(v, value.element_count);
      std::memcpy(copy.data(), inputs[i].data(), value.byte_size);
    }
  }
  for (const GraphStep& step : graph.steps) RunStep(graph, step, table);
  for (size_t i = 0; i < outputs.size(); ++i) {
    size_t v = graph.output_values[i];
    const GraphValue& value = graph.values[v];
    const void* source = value.dtype == DataType::kFloat32
                             ? static_cast<const void*>(table.floats(v).data())
                             : static_cast<const void*>(table.bytes(v).data());
    std::memcpy(outputs[i].data(), source, value.byte_size);
  }
}

}  // namespace neuronserve::nrtsim
