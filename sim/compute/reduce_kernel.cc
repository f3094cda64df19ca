// Reduce (kernels.h): sum or mean along one axis.
#include <algorithm>
#include <vector>

#include "sim/compute/element_access.h"
#include "sim/compute/float32_view.h"
#include "sim/compute/kernels.h"

namespace neuronserve::nrtsim::compute {
namespace {

// in viewed as [outer, count, inner]: the reduced axis in the middle, out as [outer, inner].
struct ReduceGeometry {
  size_t outer = 1;
  size_t count = 1;
  size_t inner = 1;
};

ReduceGeometry GeometryOf(const Shape& shape, uint32_t axis) {
  ReduceGeometry geometry;
  for (size_t dim = 0; dim < shape.size(); ++dim) {
    if (dim < axis) geometry.outer *= shape[dim];
    if (dim == axis) geometry.count = shape[dim];
    if (dim > axis) geometry.inner *= shape[dim];
  }
  return geometry;
}

// The mean from the sum: float32 division for floats, truncating integer division for integers
// (the sum is the value modulo 2^64, read as signed for signed dtypes).
float MeanOf(float sum, size_t count, bool /*is_signed*/) {
  return sum / static_cast<float>(count);
}
uint64_t MeanOf(uint64_t sum, size_t count, bool is_signed) {
  if (!is_signed) return sum / count;
  return static_cast<uint64_t>(static_cast<int64_t>(sum) / static_cast<int64_t>(count));
}


// Every path adds the elements along the axis in index order, starting from 0. Walking the
// inner dimension in the innermost loop keeps the reads sequential.
void Float32Reduce(ReduceOp op, const ReduceGeometry& g, ConstTensor in, MutTensor out) {
  Float32Input in_floats(in.bytes);
  Float32Output out_floats(out.bytes);
  const float* x = in_floats.values().data();
  float* sums = out_floats.values().data();
  for (size_t o = 0; o < g.outer; ++o) {
    float* sum = sums + o * g.inner;
    std::fill(sum, sum + g.inner, 0.0f);
    for (size_t c = 0; c < g.count; ++c) {
      const float* row = x + (o * g.count + c) * g.inner;
      for (size_t j = 0; j < g.inner; ++j) sum[j] += row[j];
    }
    if (op == ReduceOp::kMean) {
      for (size_t j = 0; j < g.inner; ++j) sum[j] = MeanOf(sum[j], g.count, false);
    }
  }
  out_floats.Commit();
}

// Sums a block of the inner dimension at a time, so the accumulators take bounded memory
// whatever the shape.
constexpr size_t kInnerBlock = 4096;

template <typename Accumulator>
void ConvertingReduce(ReduceOp op, const ReduceGeometry& g, ConstTensor in, MutTensor out) {
  const DataType type = in.dtype;
  const size_t size = DataTypeSize(type);
  const bool is_signed = ComputeKindOf(type) == ComputeKind::kSigned;
  std::vector<Accumulator> sums(std::min(g.inner, kInnerBlock));
  for (size_t o = 0; o < g.outer; ++o) {
    for (size_t start = 0; start < g.inner; start += kInnerBlock) {
      const size_t length = std::min(kInnerBlock, g.inner - start);
      std::fill(sums.begin(), sums.end(), Accumulator{0});
      for (size_t c = 0; c < g.count; ++c) {
        const std::byte* row = in.bytes.data() + ((o * g.count + c) * g.inner + start) * size;
        for (size_t j = 0; j < length; ++j) {
          sums[j] += LoadAccumulator(type, row + j * size, Accumulator{});
        }
      }
      std::byte* out_row = out.bytes.data() + (o * g.inner + start) * size;
      for (size_t j = 0; j < length; ++j) {
        const Accumulator result =
            op == ReduceOp::kMean ? MeanOf(sums[j], g.count, is_signed) : sums[j];
        StoreAccumulator(type, result, out_row + j * size);
      }
    }
  }
}

}  // namespace

void Reduce(ReduceOp op, ConstTensor in, uint32_t axis, MutTensor out) {
  const ReduceGeometry geometry = GeometryOf(*in.shape, axis);
  switch (ComputeKindOf(in.dtype)) {
    case ComputeKind::kFloat:
      if (DataTypeSize(in.dtype) == sizeof(float)) {  // float32 and fp32r
        Float32Reduce(op, geometry, in, out);
      } else {
        ConvertingReduce<float>(op, geometry, in, out);
      }
      return;
    case ComputeKind::kSigned:
    case ComputeKind::kUnsigned:
      ConvertingReduce<uint64_t>(op, geometry, in, out);
      return;
    case ComputeKind::kNone:
      return;
  }
}

}  // namespace neuronserve::nrtsim::compute
