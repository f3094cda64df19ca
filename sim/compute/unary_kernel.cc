// Unary (kernels.h): relu, tanh and sigmoid, elementwise.
#include <cmath>
#include <cstring>

#include "sim/compute/element_access.h"
#include "sim/compute/float32_view.h"
#include "sim/compute/kernels.h"

namespace neuronserve::nrtsim::compute {
namespace {

float Relu(float x) { return x > 0.0f ? x : 0.0f; }

// Stable for large |x|: never computes exp of a large positive number.
float Sigmoid(float x) {
  if (x >= 0) return 1.0f / (1.0f + std::exp(-x));
  const float e = std::exp(x);
  return e / (1.0f + e);
}

float ApplyFloat(UnaryOp op, float x) {
  switch (op) {
    case UnaryOp::kRelu:
      return Relu(x);
    case UnaryOp::kTanh:
      return std::tanh(x);
    case UnaryOp::kSigmoid:
      return Sigmoid(x);
  }
  return x;
}

// The float32 fast path: one loop per op, so relu's loop vectorizes.
void Float32Unary(UnaryOp op, ConstTensor in, MutTensor out) {
  Float32Input in_floats(in.bytes);
  Float32Output out_floats(out.bytes);
  std::span<const float> x = in_floats.values();
  std::span<float> y = out_floats.values();
  switch (op) {
    case UnaryOp::kRelu:
      for (size_t i = 0; i < y.size(); ++i) y[i] = Relu(x[i]);
      break;
    case UnaryOp::kTanh:
      for (size_t i = 0; i < y.size(); ++i) y[i] = std::tanh(x[i]);
      break;
    case UnaryOp::kSigmoid:
      for (size_t i = 0; i < y.size(); ++i) y[i] = Sigmoid(x[i]);
      break;
  }
  out_floats.Commit();
}

}  // namespace

void Unary(UnaryOp op, ConstTensor in, MutTensor out) {
  const DataType type = in.dtype;
  const size_t size = DataTypeSize(type);
  const size_t count = ElementCount(*in.shape);
  const ComputeKind kind = ComputeKindOf(type);
  if (kind == ComputeKind::kFloat) {
    if (size == sizeof(float)) {  // float32 and fp32r
      Float32Unary(op, in, out);
      return;
    }
    for (size_t i = 0; i < count; ++i) {
      StoreFloat(type, ApplyFloat(op, LoadFloat(type, in.bytes.data() + i * size)),
                 out.bytes.data() + i * size);
    }
    return;
  }
  if (kind == ComputeKind::kSigned && op == UnaryOp::kRelu) {
    for (size_t i = 0; i < count; ++i) {
      const int64_t x = LoadSigned(type, in.bytes.data() + i * size);
      StoreIntegerBits(type, x > 0 ? static_cast<uint64_t>(x) : 0, out.bytes.data() + i * size);
    }
    return;
  }
  // relu of unsigned integers is the identity; tanh and sigmoid of integers are refused by the
  // loader, and a copy is as good a defined result as any.
  std::memcpy(out.bytes.data(), in.bytes.data(), count * size);
}

}  // namespace neuronserve::nrtsim::compute
