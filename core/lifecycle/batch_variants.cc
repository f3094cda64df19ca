#include "core/lifecycle/batch_variants.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "base/shape.h"

namespace neuronserve {
namespace {

std::string VariantName(const VariantTensors& variant) {
  return absl::StrCat("the variant of batch ", variant.batch_size);
}

std::string UsageName(TensorUsage usage) {
  return usage == TensorUsage::kInput ? "an input" : "an output";
}

// The variant's own rule: its batch size leads every tensor's shape.
absl::Status CheckLeadingDimension(const std::string& model, const VariantTensors& variant) {
  for (const TensorSpec& tensor : variant.tensors) {
    if (tensor.shape.empty() || tensor.shape.front() != variant.batch_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "model '", model, "': ", VariantName(variant), ": tensor '", tensor.name,
          "' has shape ", ShapeToString(tensor.shape),
          ", whose leading (batch) dimension should be ", variant.batch_size));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckBatchVariants(const std::string& model,
                                const std::vector<VariantTensors>& variants) {
  if (variants.empty()) return absl::OkStatus();
  for (size_t v = 0; v < variants.size(); ++v) {
    if (variants[v].batch_size == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("model '", model, "': a variant's batch size must be at least 1"));
    }
    for (size_t w = 0; w < v; ++w) {
      if (variants[w].batch_size == variants[v].batch_size) {
        return absl::InvalidArgumentError(absl::StrCat(
            "model '", model, "': two variants have batch size ", variants[v].batch_size));
      }
    }
    if (absl::Status own = CheckLeadingDimension(model, variants[v]); !own.ok()) return own;
  }
  const VariantTensors& first = variants.front();
  for (size_t v = 1; v < variants.size(); ++v) {
    const VariantTensors& other = variants[v];
    const std::string prefix = absl::StrCat("model '", model, "': ", VariantName(other), ": ");
    if (other.tensors.size() != first.tensors.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          prefix, "it has ", other.tensors.size(), " tensors, but ", VariantName(first), " has ",
          first.tensors.size(), ": the variants must be one network"));
    }
    for (size_t t = 0; t < first.tensors.size(); ++t) {
      const TensorSpec& want = first.tensors[t];
      const TensorSpec& got = other.tensors[t];
      if (got.name != want.name) {
        return absl::InvalidArgumentError(absl::StrCat(
            prefix, "tensor ", t, " is '", got.name, "', but in ", VariantName(first),
            " it is '", want.name, "'"));
      }
      if (got.usage != want.usage) {
        return absl::InvalidArgumentError(absl::StrCat(
            prefix, "tensor '", got.name, "' is ", UsageName(got.usage), ", but in ",
            VariantName(first), " it is ", UsageName(want.usage)));
      }
      if (got.dtype != want.dtype) {
        return absl::InvalidArgumentError(absl::StrCat(
            prefix, "tensor '", got.name, "' has dtype ", std::string(DataTypeName(got.dtype)), ", but ",
            VariantName(first), " has ", std::string(DataTypeName(want.dtype))));
      }
      const bool same_past_batch =
          got.shape.size() == want.shape.size() &&
          std::equal(got.shape.begin() + 1, got.shape.end(), want.shape.begin() + 1);
      if (!same_past_batch) {
        return absl::InvalidArgumentError(absl::StrCat(
            prefix, "tensor '", got.name, "' has shape ", ShapeToString(got.shape), ", but ",
            VariantName(first), " has ", ShapeToString(want.shape),
            ": past the batch dimension the shapes must match"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace neuronserve
