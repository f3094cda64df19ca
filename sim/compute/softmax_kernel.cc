// Softmax (kernels.h): over the last axis, max-subtracted.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "sim/compute/element_access.h"
#include "sim/compute/float32_view.h"
#include "sim/compute/kernels.h"

namespace neuronserve::nrtsim::compute {
namespace {

void SoftmaxRow(std::span<const float> row, std::span<float> out_row) {
  // Subtracting the row's maximum keeps exp() from overflowing; the result is unchanged.
  const float max = *std::max_element(row.begin(), row.end());
  float sum = 0.0f;
  for (size_t j = 0; j < row.size(); ++j) {
    out_row[j] = std::exp(row[j] - max);
    sum += out_row[j];
  }
  for (float& value : out_row) value /= sum;
}

}  // namespace

void Softmax(ConstTensor in, MutTensor out) {
  const DataType type = in.dtype;
  const size_t size = DataTypeSize(type);
  const size_t count = ElementCount(*in.shape);
  const size_t row_length = in.shape->back();
  if (ComputeKindOf(type) != ComputeKind::kFloat) {
    // Refused by the loader; a copy is a defined result.
    std::memcpy(out.bytes.data(), in.bytes.data(), count * size);
    return;
  }
  if (size == sizeof(float)) {  // float32 and fp32r: in place
    Float32Input in_floats(in.bytes);
    Float32Output out_floats(out.bytes);
    for (size_t start = 0; start < count; start += row_length) {
      SoftmaxRow(in_floats.values().subspan(start, row_length),
                 out_floats.values().subspan(start, row_length));
    }
    out_floats.Commit();
    return;
  }
  // Narrow floats: each row decoded to float32, computed exactly as above, then rounded.
  std::vector<float> row(row_length);
  std::vector<float> out_row(row_length);
  for (size_t start = 0; start < count; start += row_length) {
    for (size_t j = 0; j < row_length; ++j) {
      row[j] = LoadFloat(type, in.bytes.data() + (start + j) * size);
    }
    SoftmaxRow(row, out_row);
    for (size_t j = 0; j < row_length; ++j) {
      StoreFloat(type, out_row[j], out.bytes.data() + (start + j) * size);
    }
  }
}

}  // namespace neuronserve::nrtsim::compute
