// Gather (kernels.h): rows of a table picked by int32 or int64 indices.
#include <cstring>
#include <string>

#include "sim/compute/element_access.h"
#include "sim/compute/kernels.h"

namespace neuronserve::nrtsim::compute {

KernelError Gather(ConstTensor table, ConstTensor indices, MutTensor out) {
  const Shape& table_shape = *table.shape;
  const int64_t row_count = table_shape[0];
  // A row is everything after the first dimension: a single element for a rank-1 table.
  const size_t row_bytes = ElementCount(table_shape) / table_shape[0] * DataTypeSize(table.dtype);
  const size_t index_count = ElementCount(*indices.shape);
  const size_t index_size = DataTypeSize(indices.dtype);
  for (size_t position = 0; position < index_count; ++position) {
    const int64_t index = LoadSigned(indices.dtype, indices.bytes.data() + position * index_size);
    if (index < 0 || index >= row_count) {
      return "index " + std::to_string(index) + " at position " + std::to_string(position) +
             " is outside the table's " + std::to_string(row_count) + " rows";
    }
    std::memcpy(out.bytes.data() + position * row_bytes,
                table.bytes.data() + static_cast<size_t>(index) * row_bytes, row_bytes);
  }
  return std::nullopt;
}

}  // namespace neuronserve::nrtsim::compute
