#include "client/neuronctl/positional_args.h"

#include "absl/strings/str_cat.h"
#include "client/neuronctl/usage_error.h"

namespace neuronserve::neuronctl {

absl::Status ExpectPositional(const ParsedArgs& args,
                              std::initializer_list<absl::string_view> required,
                              std::initializer_list<absl::string_view> optional) {
  const std::vector<std::string>& given = args.positional();
  if (given.size() < required.size()) {
    return UsageError(absl::StrCat("missing ", *(required.begin() + given.size())));
  }
  if (given.size() > required.size() + optional.size()) {
    return UsageError(
        absl::StrCat("unexpected argument '", given[required.size() + optional.size()], "'"));
  }
  return absl::OkStatus();
}

}  // namespace neuronserve::neuronctl
