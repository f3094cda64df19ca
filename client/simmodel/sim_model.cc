#include "client/simmodel/sim_model.h"

#include "absl/strings/str_join.h"

namespace neuronserve::simmodel {

int64_t ElementCount(const Shape& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

std::string FormatShape(const Shape& shape) { return "[" + absl::StrJoin(shape, ",") + "]"; }

absl::string_view OpKindName(OpKind kind) {
  switch (kind) {
    case OpKind::kIdentity:
      return "identity";
    case OpKind::kMatMul:
      return "matmul";
    case OpKind::kAdd:
      return "add";
    case OpKind::kMul:
      return "mul";
    case OpKind::kRelu:
      return "relu";
    case OpKind::kTanh:
      return "tanh";
    case OpKind::kSigmoid:
      return "sigmoid";
    case OpKind::kSoftmax:
      return "softmax";
  }
  return "unknown";
}

}  // namespace neuronserve::simmodel
