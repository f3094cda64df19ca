#include "server/rest/triton_json.h"

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"

namespace neuronserve {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using Json = nlohmann::json;

// Element `index` of repeated `field` (index < 0: the singular field).
Json FieldValue(const Message& message, const FieldDescriptor* field, int index) {
  const Reflection* r = message.GetReflection();
  const bool repeated = index >= 0;
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return repeated ? r->GetRepeatedInt32(message, field, index) : r->GetInt32(message, field);
    case FieldDescriptor::CPPTYPE_INT64:
      return repeated ? r->GetRepeatedInt64(message, field, index) : r->GetInt64(message, field);
    case FieldDescriptor::CPPTYPE_UINT32:
      return repeated ? r->GetRepeatedUInt32(message, field, index) : r->GetUInt32(message, field);
    case FieldDescriptor::CPPTYPE_UINT64:
      return repeated ? r->GetRepeatedUInt64(message, field, index) : r->GetUInt64(message, field);
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return repeated ? r->GetRepeatedDouble(message, field, index) : r->GetDouble(message, field);
    case FieldDescriptor::CPPTYPE_FLOAT:
      return repeated ? r->GetRepeatedFloat(message, field, index) : r->GetFloat(message, field);
    case FieldDescriptor::CPPTYPE_BOOL:
      return repeated ? r->GetRepeatedBool(message, field, index) : r->GetBool(message, field);
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int number = repeated ? r->GetRepeatedEnumValue(message, field, index)
                                  : r->GetEnumValue(message, field);
      const google::protobuf::EnumValueDescriptor* value =
          field->enum_type()->FindValueByNumber(number);
      // An open enum may hold a number it does not name: protobuf's JSON prints the number.
      if (value == nullptr) return number;
      return value->name();
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      const std::string text =
          repeated ? r->GetRepeatedString(message, field, index) : r->GetString(message, field);
      if (field->type() == FieldDescriptor::TYPE_BYTES) return absl::Base64Escape(text);
      return text;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return TritonJson(repeated ? r->GetRepeatedMessage(message, field, index)
                                 : r->GetMessage(message, field));
  }
  return nullptr;
}

// A map entry's key as a JSON object key.
std::string MapKey(const Message& entry) {
  const FieldDescriptor* key = entry.GetDescriptor()->map_key();
  const Json value = FieldValue(entry, key, -1);
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace

Json TritonJson(const Message& message) {
  Json out = Json::object();
  const google::protobuf::Descriptor* descriptor = message.GetDescriptor();
  const Reflection* reflection = message.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->is_map()) {
      Json map = Json::object();
      for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
        const Message& entry = reflection->GetRepeatedMessage(message, field, j);
        map[MapKey(entry)] = FieldValue(entry, field->message_type()->map_value(), -1);
      }
      out[field->name()] = std::move(map);
    } else if (field->is_repeated()) {
      Json list = Json::array();
      for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
        list.push_back(FieldValue(message, field, j));
      }
      out[field->name()] = std::move(list);
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE ||
               field->containing_oneof() != nullptr) {
      // Presence matters here: an absent sub-message or an unset oneof member is left out.
      if (reflection->HasField(message, field)) out[field->name()] = FieldValue(message, field, -1);
    } else {
      out[field->name()] = FieldValue(message, field, -1);
    }
  }
  return out;
}

}  // namespace neuronserve
