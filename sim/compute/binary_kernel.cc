// Binary (kernels.h): elementwise add, sub, mul and div with numpy broadcasting.
#include <cstring>
#include <string>

#include "sim/compute/element_access.h"
#include "sim/compute/float32_view.h"
#include "sim/compute/kernels.h"

namespace neuronserve::nrtsim::compute {
namespace {

float ApplyFloat(BinaryOp op, float x, float y) {
  switch (op) {
    case BinaryOp::kAdd:
      return x + y;
    case BinaryOp::kSub:
      return x - y;
    case BinaryOp::kMul:
      return x * y;
    case BinaryOp::kDiv:
      return x / y;
  }
  return x;
}

// Integers as their values modulo 2^64, where wrapping add, sub and mul are the same for signed
// and unsigned operands (and unsigned arithmetic has no undefined overflow). nullopt for a
// division by zero.
std::optional<uint64_t> ApplyInteger(BinaryOp op, bool is_signed, uint64_t x, uint64_t y) {
  switch (op) {
    case BinaryOp::kAdd:
      return x + y;
    case BinaryOp::kSub:
      return x - y;
    case BinaryOp::kMul:
      return x * y;
    case BinaryOp::kDiv:
      break;
  }
  if (y == 0) return std::nullopt;
  if (!is_signed) return x / y;
  // x / -1 is -x, which wraps for INT64_MIN (where int64 division would be undefined).
  if (static_cast<int64_t>(y) == -1) return uint64_t{0} - x;
  return static_cast<uint64_t>(static_cast<int64_t>(x) / static_cast<int64_t>(y));
}

// The float32 fast path. `operation` is fixed per instantiation and each combination of steps has
// its own loop, so every loop is a plain float loop the compiler vectorizes.
template <typename Operation>
void Float32Rows(const BroadcastLayout& layout, const float* a, const float* b, float* out,
                 Operation operation) {
  ForEachBroadcastRow(layout, [&](size_t out_offset, size_t a_offset, size_t b_offset,
                                  size_t length, size_t a_step, size_t b_step) {
    const float* a_row = a + a_offset;
    const float* b_row = b + b_offset;
    float* out_row = out + out_offset;
    if (a_step == 1 && b_step == 1) {
      for (size_t j = 0; j < length; ++j) out_row[j] = operation(a_row[j], b_row[j]);
    } else if (a_step == 1) {
      const float y = b_row[0];
      for (size_t j = 0; j < length; ++j) out_row[j] = operation(a_row[j], y);
    } else if (b_step == 1) {
      const float x = a_row[0];
      for (size_t j = 0; j < length; ++j) out_row[j] = operation(x, b_row[j]);
    } else {
      const float value = operation(a_row[0], b_row[0]);
      for (size_t j = 0; j < length; ++j) out_row[j] = value;
    }
    return true;
  });
}

void Float32Binary(BinaryOp op, const BroadcastLayout& layout, ConstTensor a, ConstTensor b,
                   MutTensor out) {
  Float32Input a_floats(a.bytes);
  Float32Input b_floats(b.bytes);
  Float32Output out_floats(out.bytes);
  const float* x = a_floats.values().data();
  const float* y = b_floats.values().data();
  float* result = out_floats.values().data();
  switch (op) {
    case BinaryOp::kAdd:
      Float32Rows(layout, x, y, result, [](float p, float q) { return p + q; });
      break;
    case BinaryOp::kSub:
      Float32Rows(layout, x, y, result, [](float p, float q) { return p - q; });
      break;
    case BinaryOp::kMul:
      Float32Rows(layout, x, y, result, [](float p, float q) { return p * q; });
      break;
    case BinaryOp::kDiv:
      Float32Rows(layout, x, y, result, [](float p, float q) { return p / q; });
      break;
  }
  out_floats.Commit();
}

void NarrowFloatBinary(BinaryOp op, const BroadcastLayout& layout, ConstTensor a, ConstTensor b,
                       MutTensor out) {
  const DataType type = out.dtype;
  const size_t size = DataTypeSize(type);
  ForEachBroadcastRow(layout, [&](size_t out_offset, size_t a_offset, size_t b_offset,
                                  size_t length, size_t a_step, size_t b_step) {
    for (size_t j = 0; j < length; ++j) {
      const float x = LoadFloat(type, a.bytes.data() + (a_offset + j * a_step) * size);
      const float y = LoadFloat(type, b.bytes.data() + (b_offset + j * b_step) * size);
      StoreFloat(type, ApplyFloat(op, x, y), out.bytes.data() + (out_offset + j) * size);
    }
    return true;
  });
}

KernelError IntegerBinary(BinaryOp op, const BroadcastLayout& layout, ConstTensor a, ConstTensor b,
                          MutTensor out) {
  const DataType type = out.dtype;
  const size_t size = DataTypeSize(type);
  const bool is_signed = ComputeKindOf(type) == ComputeKind::kSigned;
  KernelError error;
  ForEachBroadcastRow(layout, [&](size_t out_offset, size_t a_offset, size_t b_offset,
                                  size_t length, size_t a_step, size_t b_step) {
    for (size_t j = 0; j < length; ++j) {
      const uint64_t x = LoadIntegerBits(type, a.bytes.data() + (a_offset + j * a_step) * size);
      const uint64_t y = LoadIntegerBits(type, b.bytes.data() + (b_offset + j * b_step) * size);
      const std::optional<uint64_t> result = ApplyInteger(op, is_signed, x, y);
      if (!result) {
        error = "division by zero at element " + std::to_string(out_offset + j);
        return false;
      }
      StoreIntegerBits(type, *result, out.bytes.data() + (out_offset + j) * size);
    }
    return true;
  });
  return error;
}

}  // namespace

KernelError Binary(BinaryOp op, ConstTensor a, ConstTensor b, MutTensor out) {
  const BroadcastLayout layout = LayOutBroadcast(*a.shape, *b.shape, *out.shape);
  switch (ComputeKindOf(out.dtype)) {
    case ComputeKind::kFloat:
      if (DataTypeSize(out.dtype) == sizeof(float)) {  // float32 and fp32r
        Float32Binary(op, layout, a, b, out);
      } else {
        NarrowFloatBinary(op, layout, a, b, out);
      }
      return std::nullopt;
    case ComputeKind::kSigned:
    case ComputeKind::kUnsigned:
      return IntegerBinary(op, layout, a, b, out);
    case ComputeKind::kNone:
      break;
  }
  return std::nullopt;
}

}  // namespace neuronserve::nrtsim::compute
