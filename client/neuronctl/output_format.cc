#include "client/neuronctl/output_format.h"

#include "absl/strings/str_cat.h"
#include "client/neuronctl/usage_error.h"

namespace neuronserve::neuronctl {

absl::StatusOr<OutputFormat> GetOutputFormat(const ParsedArgs& args) {
  const std::string value = args.Get(kOutputFormatFlag.name).value_or("text");
  if (value == "text") return OutputFormat::kText;
  if (value == "json") return OutputFormat::kJson;
  return UsageError(absl::StrCat("--output must be text or json, got '", value, "'"));
}

}  // namespace neuronserve::neuronctl
