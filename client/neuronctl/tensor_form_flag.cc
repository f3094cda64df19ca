#include "client/neuronctl/tensor_form_flag.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "client/neuronctl/usage_error.h"

namespace neuronserve::neuronctl {

absl::StatusOr<bool> GetRawTensorForm(const ParsedArgs& args) {
  const std::string form = args.Get(kTensorFormFlag.name).value_or("raw");
  if (form == "raw") return true;
  if (form == "typed" || form == "float") return false;
  return UsageError(absl::StrCat("--form must be raw or typed, got '", form, "'"));
}

}  // namespace neuronserve::neuronctl
