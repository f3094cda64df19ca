#include "sim/simmodel/sim_model_reader.h"

#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

namespace neuronserve::simmodel {
namespace {

using nlohmann::json;

// Thrown inside this file only; ReadSimModel turns it into a FormatError.
struct ReadError {
  std::string message;
};

[[noreturn]] void Fail(const std::string& context, const std::string& problem) {
  throw ReadError{context + ": " + problem};
}

// nlohmann keeps the last of duplicate keys silently; a model whose constant "w" is given twice
// is malformed, so duplicates are found while parsing.
json ParseJsonRejectingDuplicateKeys(std::string_view text) {
  std::vector<std::set<std::string>> open_objects;
  auto on_event = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      open_objects.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      open_objects.pop_back();
    } else if (event == json::parse_event_t::key) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (!open_objects.back().insert(key).second) {
        throw ReadError{"duplicate JSON key '" + key + "'"};
      }
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), on_event);
  } catch (const json::exception& e) {
    throw ReadError{std::string("not valid JSON: ") + e.what()};
  }
}

void CheckObjectKeys(const json& object, const std::string& context,
                     std::initializer_list<std::string_view> allowed) {
  if (!object.is_object()) Fail(context, "must be a JSON object");
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (std::string_view name : allowed) known = known || key == name;
    if (!known) Fail(context, "unknown key '" + key + "'");
  }
}

const json& RequireKey(const json& object, const std::string& context, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) Fail(context, std::string("missing key '") + key + "'");
  return *it;
}

uint64_t ReadUnsigned(const json& value, const std::string& context, uint64_t min, uint64_t max) {
  if (!value.is_number_unsigned() || value.get<uint64_t>() < min || value.get<uint64_t>() > max) {
    Fail(context, "must be an integer from " + std::to_string(min) + " to " + std::to_string(max));
  }
  return value.get<uint64_t>();
}

uint64_t ReadOptionalUnsigned(const json& object, const std::string& context, const char* key,
                              uint64_t fallback, uint64_t min, uint64_t max) {
  auto it = object.find(key);
  if (it == object.end()) return fallback;
  return ReadUnsigned(*it, context + "." + key, min, max);
}

std::string ReadString(const json& value, const std::string& context) {
  if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
    Fail(context, "must be a non-empty string");
  }
  return value.get<std::string>();
}

Shape ReadShape(const json& value, const std::string& context) {
  if (!value.is_array() || value.empty()) {
    Fail(context, "must be a non-empty list of positive integers");
  }
  Shape shape;
  for (const json& dim : value) {
    shape.push_back(
        static_cast<uint32_t>(ReadUnsigned(dim, context, 1, std::numeric_limits<uint32_t>::max())));
  }
  return shape;
}

DataType ReadDtype(const json& value, const std::string& context) {
  std::optional<DataType> type;
  if (value.is_string()) type = DataTypeFromName(value.get_ref<const std::string&>());
  if (!type) Fail(context, value.dump() + " is not a dtype name (float32, int64, ...)");
  return *type;
}

TensorSignature ReadTensorSignature(const json& value, const std::string& context) {
  CheckObjectKeys(value, context, {"name", "dtype", "shape"});
  TensorSignature spec;
  spec.name = ReadString(RequireKey(value, context, "name"), context + ".name");
  spec.dtype = ReadDtype(RequireKey(value, context, "dtype"), context + ".dtype");
  spec.shape = ReadShape(RequireKey(value, context, "shape"), context + ".shape");
  return spec;
}

std::vector<TensorSignature> ReadTensorSignatures(const json& model, const char* key) {
  const json& list = RequireKey(model, "model", key);
  if (!list.is_array()) Fail(key, "must be a list");
  std::vector<TensorSignature> specs;
  for (size_t i = 0; i < list.size(); ++i) {
    specs.push_back(ReadTensorSignature(list[i], std::string(key) + "[" + std::to_string(i) + "]"));
  }
  return specs;
}

std::map<std::string, Constant> ReadConstants(const json& model) {
  std::map<std::string, Constant> constants;
  auto it = model.find("constants");
  if (it == model.end()) return constants;
  if (!it->is_object()) Fail("constants", "must be an object mapping names to {shape, data}");
  for (const auto& [name, value] : it->items()) {
    const std::string context = "constant '" + name + "'";
    CheckObjectKeys(value, context, {"shape", "data", "dtype"});
    Constant constant;
    constant.shape = ReadShape(RequireKey(value, context, "shape"), context + ".shape");
    if (value.contains("dtype")) constant.dtype = ReadDtype(value["dtype"], context + ".dtype");
    const json& data = RequireKey(value, context, "data");
    if (!data.is_array()) Fail(context + ".data", "must be a list of numbers");
    constant.data.reserve(data.size());
    for (const json& number : data) {
      if (!number.is_number()) Fail(context + ".data", "must be a list of numbers");
      constant.data.push_back(number.get<double>());
    }
    constants.emplace(name, std::move(constant));
  }
  return constants;
}

std::vector<Op> ReadOps(const json& model) {
  std::vector<Op> ops;
  auto it = model.find("ops");
  if (it == model.end()) return ops;
  if (!it->is_array()) Fail("ops", "must be a list");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& value = (*it)[i];
    std::string context = "op " + std::to_string(i);
    CheckObjectKeys(value, context,
                    {"op", "inputs", "output", "dtype", "shape", "axis", "keepdims"});
    const json& kind = RequireKey(value, context, "op");
    std::optional<OpKind> parsed_kind;
    if (kind.is_string()) parsed_kind = OpKindFromName(kind.get_ref<const std::string&>());
    if (!parsed_kind) Fail(context, "unknown op " + kind.dump() + " (known: " + AllOpKindNames() + ")");
    Op op;
    op.kind = *parsed_kind;
    context += " (" + std::string(OpKindName(op.kind)) + ")";
    const json& inputs = RequireKey(value, context, "inputs");
    if (!inputs.is_array()) Fail(context + ".inputs", "must be a list of tensor names");
    for (const json& input : inputs) op.inputs.push_back(ReadString(input, context + ".inputs"));
    op.output = ReadString(RequireKey(value, context, "output"), context + ".output");
    // Which op takes which attribute is a graph rule (CompileModelGraph); here only the form.
    if (value.contains("dtype")) op.dtype = ReadDtype(value["dtype"], context + ".dtype");
    if (value.contains("shape")) op.shape = ReadShape(value["shape"], context + ".shape");
    if (value.contains("axis")) {
      op.axis = static_cast<uint32_t>(ReadUnsigned(value["axis"], context + ".axis", 0, 31));
    }
    if (value.contains("keepdims")) {
      if (!value["keepdims"].is_boolean()) Fail(context + ".keepdims", "must be true or false");
      op.keepdims = value["keepdims"].get<bool>();
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

FaultStatus ReadFaultStatus(const json& value, const std::string& context) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer() && value.get<int64_t>() >= std::numeric_limits<int32_t>::min() &&
      value.get<int64_t>() <= std::numeric_limits<int32_t>::max()) {
    // Any 32-bit number, declared or not: the daemon must cope with statuses it does not know.
    return static_cast<int32_t>(value.get<int64_t>());
  }
  Fail(context, value.dump() +
                    " is not a failing NRT_STATUS (a name such as NRT_HW_ERROR or HW_ERROR, or "
                    "a non-zero number)");
}

std::vector<Fault> ReadFaults(const json& model) {
  std::vector<Fault> faults;
  auto it = model.find("faults");
  if (it == model.end()) return faults;
  if (!it->is_array()) Fail("faults", "must be a list");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& value = (*it)[i];
    const std::string context = "faults[" + std::to_string(i) + "]";
    CheckObjectKeys(value, context,
                    {"on_execution", "every", "probability", "seed", "status", "latency_us",
                     "core"});
    Fault fault;
    if (value.contains("core")) {
      fault.core = static_cast<uint32_t>(
          ReadUnsigned(value["core"], context + ".core", 0, kMaxFaultCore));
    }
    if (value.contains("status") == value.contains("latency_us")) {
      Fail(context, "needs exactly one of status (fail) and latency_us (run slowly)");
    }
    if (value.contains("status")) {
      fault.status = ReadFaultStatus(value["status"], context + ".status");
    } else {
      fault.latency_us =
          ReadUnsigned(value["latency_us"], context + ".latency_us", 0, kMaxLatencyUs);
    }
    const int triggers = static_cast<int>(value.contains("on_execution")) +
                         static_cast<int>(value.contains("every")) +
                         static_cast<int>(value.contains("probability"));
    if (triggers != 1) Fail(context, "needs exactly one of on_execution, every, probability");
    if (value.contains("seed") && !value.contains("probability")) {
      Fail(context, "seed is only for a probability fault");
    }
    constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
    if (value.contains("on_execution")) {
      fault.trigger =
          FaultOnExecution{ReadUnsigned(value["on_execution"], context + ".on_execution", 1, kMax)};
    } else if (value.contains("every")) {
      fault.trigger = FaultEvery{ReadUnsigned(value["every"], context + ".every", 1, kMax)};
    } else {
      const json& p = value["probability"];
      if (!p.is_number()) Fail(context + ".probability", "must be a number from 0 to 1");
      fault.trigger = FaultWithProbability{
          p.get<double>(), ReadOptionalUnsigned(value, context, "seed", 0, 0, kMax)};
    }
    faults.push_back(std::move(fault));
  }
  return faults;
}

SimModel ReadModel(std::string_view file) {
  if (!file.starts_with(kSimNeffMagic)) {
    throw ReadError{"not a sim NEFF (the file does not start with \"NRTSIM1\\n\")"};
  }
  const json model = ParseJsonRejectingDuplicateKeys(file.substr(kSimNeffMagic.size()));
  CheckObjectKeys(model, "model",
                  {"name", "description", "nc_count", "latency_us", "load_latency_ms", "inputs",
                   "outputs", "constants", "ops", "faults"});
  SimModel spec;
  for (auto [key, field] : {std::pair("name", &spec.name), std::pair("description", &spec.description)}) {
    if (!model.contains(key)) continue;
    if (!model[key].is_string()) Fail(key, "must be a string");
    *field = model[key].get<std::string>();
  }
  spec.nc_count =
      static_cast<uint32_t>(ReadOptionalUnsigned(model, "model", "nc_count", 1, 1, kMaxNcCount));
  spec.latency_us = ReadOptionalUnsigned(model, "model", "latency_us", 0, 0, kMaxLatencyUs);
  spec.load_latency_ms =
      ReadOptionalUnsigned(model, "model", "load_latency_ms", 0, 0, kMaxLoadLatencyMs);
  spec.inputs = ReadTensorSignatures(model, "inputs");
  spec.outputs = ReadTensorSignatures(model, "outputs");
  spec.constants = ReadConstants(model);
  spec.ops = ReadOps(model);
  spec.faults = ReadFaults(model);
  return spec;
}

}  // namespace

FormatResult<SimModel> ReadSimModel(std::string_view file) {
  try {
    return ReadModel(file);
  } catch (const ReadError& error) {
    return FormatError{error.message};
  } catch (const json::exception& e) {
    // A JSON accessor on an unexpected type: the checks above should leave none, but a
    // malformed file must never escape as an exception.
    return FormatError{std::string("malformed model: ") + e.what()};
  }
}

}  // namespace neuronserve::simmodel
