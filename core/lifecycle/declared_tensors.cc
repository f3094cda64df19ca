#include "core/lifecycle/declared_tensors.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace neuronserve {
namespace {

std::string UsageWord(TensorUsage usage) {
  return usage == TensorUsage::kInput ? "input" : "output";
}

std::string Dims(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

}  // namespace

absl::Status CheckDeclaredTensors(const std::string& model,
                                  const std::vector<DeclaredTensor>& declared,
                                  const std::vector<TensorSpec>& listed, uint32_t batch_size) {
  for (const DeclaredTensor& tensor : declared) {
    const std::string where = absl::StrCat("model '", model, "': the configuration's ",
                                           UsageWord(tensor.usage), " '", tensor.name, "'");
    const TensorSpec* found = nullptr;
    for (const TensorSpec& spec : listed) {
      if (spec.name == tensor.name) found = &spec;
    }
    if (found == nullptr) {
      std::vector<std::string> names;
      for (const TensorSpec& spec : listed) {
        if (spec.usage == tensor.usage) names.push_back(absl::StrCat("'", spec.name, "'"));
      }
      return absl::InvalidArgumentError(absl::StrCat(where, " is not in the NEFF, whose ",
                                                     UsageWord(tensor.usage), "s are ",
                                                     absl::StrJoin(names, ", ")));
    }
    if (found->usage != tensor.usage) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " is an ", UsageWord(found->usage), " of the NEFF"));
    }
    if (!tensor.dtype.has_value() || *tensor.dtype != found->dtype) {
      return absl::InvalidArgumentError(absl::StrCat(where, " is declared ", tensor.type_name,
                                                     ", but the NEFF's is ",
                                                     std::string(DataTypeName(found->dtype))));
    }
    // A batched model's variant has the batch size as its leading dimension, which a Triton
    // configuration leaves out of `dims`.
    std::vector<int64_t> compiled;
    const size_t first = batch_size != 0 && !found->shape.empty() ? 1 : 0;
    for (size_t i = first; i < found->shape.size(); ++i) compiled.push_back(found->shape[i]);
    bool same = compiled.size() == tensor.dims.size();
    for (size_t i = 0; same && i < compiled.size(); ++i) {
      same = tensor.dims[i] == -1 || tensor.dims[i] == compiled[i];
    }
    if (!same) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " has dims ", Dims(tensor.dims), ", but the NEFF's are ", Dims(compiled),
          batch_size != 0 ? absl::StrCat(" (past the batch dimension of ", batch_size, ")") : ""));
    }
  }
  return absl::OkStatus();
}

}  // namespace neuronserve
