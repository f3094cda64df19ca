// MatMul (kernels.h): [M,K] x [K,N] -> [M,N].
#include <algorithm>
#include <vector>

#include "sim/compute/element_access.h"
#include "sim/compute/float32_view.h"
#include "sim/compute/kernels.h"

namespace neuronserve::nrtsim::compute {
namespace {

// The largest copy of b, converted to the accumulator type, that the generic path makes; beyond
// it each row of b is converted again every time it is used (slower, same result). b is usually
// a weight matrix far below this.
constexpr size_t kMaxConvertedOperandBytes = size_t{256} << 20;

// The accumulation order of every path: out[i][j] starts at 0 and adds a[i][p] * b[p][j] for
// p = 0..k-1. The i-p-j loop order walks b and out row by row, which the cache likes.
template <typename Accumulator>
void AccumulateRow(Accumulator a_ip, const Accumulator* b_row, size_t n, Accumulator* out_row) {
  for (size_t j = 0; j < n; ++j) out_row[j] += a_ip * b_row[j];
}

void Float32MatMul(ConstTensor a, ConstTensor b, size_t m, size_t k, size_t n, MutTensor out) {
  Float32Input a_floats(a.bytes);
  Float32Input b_floats(b.bytes);
  Float32Output out_floats(out.bytes);
  const float* a_values = a_floats.values().data();
  const float* b_values = b_floats.values().data();
  float* out_values = out_floats.values().data();
  std::fill(out_values, out_values + m * n, 0.0f);
  for (size_t i = 0; i < m; ++i) {
    for (size_t p = 0; p < k; ++p) {
      AccumulateRow(a_values[i * k + p], b_values + p * n, n, out_values + i * n);
    }
  }
  out_floats.Commit();
}


template <typename Accumulator>
void ConvertingMatMul(ConstTensor a, ConstTensor b, size_t m, size_t k, size_t n, MutTensor out) {
  const DataType type = a.dtype;
  const size_t size = DataTypeSize(type);
  auto load = [&](std::span<const std::byte> bytes, size_t index) {
    return LoadAccumulator(type, bytes.data() + index * size, Accumulator{});
  };
  const bool convert_b_once = k * n * sizeof(Accumulator) <= kMaxConvertedOperandBytes;
  std::vector<Accumulator> b_values(convert_b_once ? k * n : n);
  if (convert_b_once) {
    for (size_t index = 0; index < k * n; ++index) b_values[index] = load(b.bytes, index);
  }
  std::vector<Accumulator> out_row(n);
  for (size_t i = 0; i < m; ++i) {
    std::fill(out_row.begin(), out_row.end(), Accumulator{0});
    for (size_t p = 0; p < k; ++p) {
      const Accumulator* b_row = b_values.data();
      if (convert_b_once) {
        b_row += p * n;
      } else {
        for (size_t j = 0; j < n; ++j) b_values[j] = load(b.bytes, p * n + j);
      }
      AccumulateRow(load(a.bytes, i * k + p), b_row, n, out_row.data());
    }
    for (size_t j = 0; j < n; ++j) {
      StoreAccumulator(type, out_row[j], out.bytes.data() + (i * n + j) * size);
    }
  }
}

}  // namespace

void MatMul(ConstTensor a, ConstTensor b, MutTensor out) {
  const size_t m = (*a.shape)[0];
  const size_t k = (*a.shape)[1];
  const size_t n = (*b.shape)[1];
  switch (ComputeKindOf(a.dtype)) {
    case ComputeKind::kFloat:
      if (DataTypeSize(a.dtype) == sizeof(float)) {  // float32 and fp32r
        Float32MatMul(a, b, m, k, n, out);
      } else {
        ConvertingMatMul<float>(a, b, m, k, n, out);
      }
      return;
    case ComputeKind::kSigned:
    case ComputeKind::kUnsigned:
      ConvertingMatMul<uint64_t>(a, b, m, k, n, out);
      return;
    case ComputeKind::kNone:
      return;
  }
}

}  // namespace neuronserve::nrtsim::compute
