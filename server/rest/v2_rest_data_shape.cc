#include "server/rest/v2_rest_data_shape.h"

#include <algorithm>

namespace neuronserve {

void RestDataShape::Reset() {
  depth_ = 0;
  max_depth_ = 0;
  leaf_depth_ = 0;
  dims_.clear();
}

bool RestDataShape::OpenArray() {
  if (leaf_depth_ != 0 && depth_ + 1 > leaf_depth_) return false;
  ++depth_;
  if (depth_ > lengths_.size()) lengths_.resize(depth_, 0);
  lengths_[depth_ - 1] = 0;
  max_depth_ = std::max(max_depth_, depth_);
  return true;
}

bool RestDataShape::CloseArray(std::vector<uint32_t>& nested_dims) {
  const size_t level = depth_ - 1;
  const int64_t length = static_cast<int64_t>(lengths_[level]);
  // Every array at one depth must have the same length: data is a regular array.
  if (dims_.size() <= level) dims_.resize(level + 1, kUnset);
  if (dims_[level] == kUnset) {
    dims_[level] = length;
  } else if (dims_[level] != length) {
    return false;
  }
  --depth_;
  if (depth_ > 0) {
    ++lengths_[depth_ - 1];
  } else if (max_depth_ > 1) {
    nested_dims.assign(dims_.begin(), dims_.end());
    for (int64_t& dim : dims_) dim = kUnset;
  }
  return true;
}

bool RestDataShape::Value() {
  if (leaf_depth_ == 0) leaf_depth_ = depth_;
  if (leaf_depth_ != depth_) return false;
  ++lengths_[depth_ - 1];
  return true;
}

}  // namespace neuronserve
