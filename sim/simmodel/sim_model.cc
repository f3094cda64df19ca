#include "sim/simmodel/sim_model.h"

#include <array>
#include <limits>

namespace neuronserve::simmodel {
namespace {

struct OpName {
  OpKind kind;
  std::string_view name;
};

constexpr std::array<OpName, 15> kOpNames = {{
    {OpKind::kIdentity, "identity"},
    {OpKind::kReshape, "reshape"},
    {OpKind::kCast, "cast"},
    {OpKind::kMatMul, "matmul"},
    {OpKind::kAdd, "add"},
    {OpKind::kSub, "sub"},
    {OpKind::kMul, "mul"},
    {OpKind::kDiv, "div"},
    {OpKind::kRelu, "relu"},
    {OpKind::kTanh, "tanh"},
    {OpKind::kSigmoid, "sigmoid"},
    {OpKind::kSoftmax, "softmax"},
    {OpKind::kReduceSum, "reduce_sum"},
    {OpKind::kReduceMean, "reduce_mean"},
    {OpKind::kGather, "gather"},
}};

}  // namespace

std::optional<uint64_t> ElementCount(const Shape& shape) {
  uint64_t count = 1;
  for (uint32_t dim : shape) {
    if (dim != 0 && count > std::numeric_limits<uint64_t>::max() / dim) return std::nullopt;
    count *= dim;
  }
  return count;
}

std::string ShapeToString(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

std::string_view OpKindName(OpKind kind) {
  for (const OpName& row : kOpNames) {
    if (row.kind == kind) return row.name;
  }
  return "unknown";
}

std::optional<OpKind> OpKindFromName(std::string_view name) {
  for (const OpName& row : kOpNames) {
    if (row.name == name) return row.kind;
  }
  return std::nullopt;
}

std::string AllOpKindNames() {
  std::string names;
  for (const OpName& row : kOpNames) {
    if (!names.empty()) names += ", ";
    names += row.name;
  }
  return names;
}

}  // namespace neuronserve::simmodel
