#include "server/repository/model_config_schema.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "server/repository/load_spec.h"

namespace neuronserve {
namespace model_config_schema {

// The first error a text-format parse reports, as "line:column: message".
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (text.empty()) text = absl::StrCat(line + 1, ":", column + 1, ": ", message);
  }
  std::string text;
};

bool ParseText(const std::string& text, google::protobuf::Message* message, std::string* error) {
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  if (parser.ParseFromString(text, message)) return true;
  *error = errors.text;
  return false;
}

}  // namespace model_config_schema

bool BatchesWithoutVariants(const v1::ModelConfig& config) {
  return config.variant().empty() &&
         (config.max_batch_size() != 0 || config.has_dynamic_batching());
}

absl::StatusOr<ParsedModelConfig> ParseModelConfigText(const std::string& text,
                                                       const std::string& where) {
  ParsedModelConfig parsed;
  v1::ModelConfig own;
  std::string own_error;
  if (model_config_schema::ParseText(text, &own, &own_error) && !BatchesWithoutVariants(own)) {
    parsed.own = std::move(own);
    return parsed;
  }
  inference::ModelConfig triton;
  std::string triton_error;
  if (model_config_schema::ParseText(text, &triton, &triton_error)) {
    parsed.triton = std::move(triton);
    return parsed;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      where, " is neither a neuronserve.v1.ModelConfig (",
      own_error.empty() ? "it sets max_batch_size or dynamic_batching without variant" : own_error,
      ") nor a Triton inference.ModelConfig (", triton_error, ") in protobuf text format"));
}

absl::StatusOr<ParsedModelConfig> ParseModelConfigJson(const std::string& json,
                                                       const v1::ModelConfig& base,
                                                       const std::string& where) {
  ParsedModelConfig parsed;
  v1::ModelConfig own;
  const auto own_status = google::protobuf::util::JsonStringToMessage(json, &own);
  if (own_status.ok() && !BatchesWithoutVariants(MergeConfig(base, own))) {
    parsed.own = std::move(own);
    return parsed;
  }
  inference::ModelConfig triton;
  const auto triton_status = google::protobuf::util::JsonStringToMessage(json, &triton);
  if (triton_status.ok()) {
    parsed.triton = std::move(triton);
    return parsed;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      where, " is neither a neuronserve.v1.ModelConfig (",
      own_status.ok() ? "it sets max_batch_size or dynamic_batching without variant"
                      : std::string(own_status.message()),
      ") nor a Triton inference.ModelConfig (", std::string(triton_status.message()), ") in JSON"));
}

}  // namespace neuronserve
