#include "server/rest/v2_rest_admin_bodies.h"

#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "server/repository/uploaded_model.h"

namespace neuronserve {
namespace {
using Json = nlohmann::json;
}  // namespace

absl::Status ParseRestRegisterBody(std::string_view body_text, const std::string& name,
                                   RestRegisterBody& out) {
  absl::Status status;
  const Json body = Json::parse(body_text, nullptr, /*allow_exceptions=*/false);
  const auto unsigned_field = [&](const char* field, uint64_t& into, bool required) {
    const auto found = body.find(field);
    if (found == body.end()) {
      if (required) {
        status = absl::InvalidArgumentError(
            absl::StrCat("shared memory region '", name, "': the body needs '", field, "'"));
      }
      return;
    }
    if (!found->is_number_unsigned()) {
      status = absl::InvalidArgumentError(absl::StrCat("shared memory region '", name, "': '",
                                                       field, "' must be a number of bytes"));
      return;
    }
    into = found->get<uint64_t>();
  };
  if (body.is_discarded() || !body.is_object()) {
    status = absl::InvalidArgumentError(absl::StrCat("shared memory region '", name,
                                                     "': the body must be a JSON object, {\"key\": "
                                                     "..., \"offset\": ..., \"byte_size\": ...}"));
  } else if (auto found = body.find("key"); found == body.end() || !found->is_string()) {
    status = absl::InvalidArgumentError(
        absl::StrCat("shared memory region '", name, "': the body needs 'key', a string"));
  } else {
    out.key = found->get<std::string>();
    unsigned_field("offset", out.offset, /*required=*/false);
    if (status.ok()) unsigned_field("byte_size", out.byte_size, /*required=*/true);
  }
  return status;
}

absl::Status ParseRestIndexBody(std::string_view body_text, bool& ready_only) {
  if (body_text.empty()) return absl::OkStatus();
  const Json body = Json::parse(body_text, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    return absl::InvalidArgumentError(
        "RepositoryIndex: the body must be a JSON object, {\"ready\": true|false}");
  }
  if (auto found = body.find("ready"); found != body.end()) {
    if (!found->is_boolean()) {
      return absl::InvalidArgumentError("RepositoryIndex: 'ready' must be true or false");
    }
    ready_only = found->get<bool>();
  }
  return absl::OkStatus();
}

absl::Status ParseRestLoadParameters(
    std::string_view body,
    google::protobuf::Map<std::string, inference::ModelRepositoryParameter>& parameters) {
  if (body.empty()) return absl::OkStatus();
  const Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError(
        "the body must be a JSON object, {\"parameters\": {\"config\": \"<JSON>\"}}");
  }
  const auto found = json.find("parameters");
  if (found == json.end()) return absl::OkStatus();
  if (!found->is_object()) return absl::InvalidArgumentError("'parameters' must be an object");
  for (const auto& [key, value] : found->items()) {
    inference::ModelRepositoryParameter& parameter = parameters[key];
    if (absl::StartsWith(key, kFileParameterPrefix)) {
      std::string bytes;
      if (!value.is_string() || !absl::Base64Unescape(value.get<std::string>(), &bytes)) {
        return absl::InvalidArgumentError(
            absl::StrCat("parameter '", absl::CEscape(key),
                         "' must be a string holding the file's bytes in base64"));
      }
      parameter.set_bytes_param(std::move(bytes));
    } else if (value.is_string()) {
      parameter.set_string_param(value.get<std::string>());
    } else if (value.is_boolean()) {
      parameter.set_bool_param(value.get<bool>());
    } else if (value.is_number_integer()) {
      parameter.set_int64_param(value.get<int64_t>());
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter '", absl::CEscape(key), "' must be a string, a boolean or an integer"));
    }
  }
  return absl::OkStatus();
}

}  // namespace neuronserve
