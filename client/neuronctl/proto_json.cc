#include "client/neuronctl/proto_json.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace neuronserve::neuronctl {

absl::Status PrintProtoJson(const google::protobuf::Message& message, std::ostream& out) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("cannot print ", message.GetTypeName(),
                                            " as JSON: ", status.ToString()));
  }
  out << json;
  if (json.empty() || json.back() != '\n') out << "\n";
  return absl::OkStatus();
}

}  // namespace neuronserve::neuronctl
