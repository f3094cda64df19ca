#include "core/nrtsim/kernels.h"

#include <algorithm>
#include <cmath>

namespace neuronserve::nrtsim {
namespace {

float Apply(OpKind kind, float x, float y) { return kind == OpKind::kAdd ? x + y : x * y; }

// Stable for large |x|: never computes exp of a large positive number.
float Sigmoid(float x) {
  if (x >= 0) return 1.0f / (1.0f + std::exp(-x));
  float e = std::exp(x);
  return e / (1.0f + e);
}

}  // namespace

void MatMul(std::span<const float> a, std::span<const float> b, size_t m, size_t k, size_t n,
            std::span<float> out) {
  std::fill(out.begin(), out.end(), 0.0f);
  // i-p-j order walks b and out row by row, which the cache likes.
  for (size_t i = 0; i < m; ++i) {
    float* out_row = out.data() + i * n;
    for (size_t p = 0; p < k; ++p) {
      float a_ip = a[i * k + p];
      const float* b_row = b.data() + p * n;
      for (size_t j = 0; j < n; ++j) out_row[j] += a_ip * b_row[j];
    }
  }
}

void ElementwiseBinary(OpKind kind, std::span<const float> a, std::span<const float> b,
                       std::span<float> out) {
  // The operation is commutative, so a broadcast vector may come first or second.
  if (a.size() != out.size()) std::swap(a, b);
  for (size_t i = 0; i < out.size(); ++i) out[i] = Apply(kind, a[i], b[i % b.size()]);
}

void ElementwiseUnary(OpKind kind, std::span<const float> in, std::span<float> out) {
  for (size_t i = 0; i < out.size(); ++i) {
    float x = in[i];
    switch (kind) {
      case OpKind::kRelu:
        out[i] = x > 0.0f ? x : 0.0f;
        break;
      case OpKind::kTanh:
        out[i] = std::tanh(x);
        break;
      case OpKind::kSigmoid:
        out[i] = Sigmoid(x);
        break;
      default:
        out[i] = x;
        break;
    }
  }
}

void Softmax(std::span<const float> in, size_t row_length, std::span<float> out) {
  for (size_t start = 0; start < in.size(); start += row_length) {
    std::span<const float> row = in.subspan(start, row_length);
    std::span<float> out_row = out.subspan(start, row_length);
    // Subtracting the row's maximum keeps exp() from overflowing; the result is unchanged.
    float max = *std::max_element(row.begin(), row.end());
    float sum = 0.0f;
    for (size_t j = 0; j < row_length; ++j) {
      out_row[j] = std::exp(row[j] - max);
      sum += out_row[j];
    }
    for (float& value : out_row) value /= sum;
  }
}

}  // namespace neuronserve::nrtsim
