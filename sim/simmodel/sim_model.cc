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
