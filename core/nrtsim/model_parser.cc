#include "core/nrtsim/model_parser.h"

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "core/nrtsim/status_names.h"

namespace neuronserve::nrtsim {
namespace {

using nlohmann::json;

constexpr std::string_view kMagic = "NRTSIM1\n";
constexpr uint64_t kMaxNcCount = 4096;
// An hour: far beyond any test, but short enough that a typo cannot hang a process forever.
constexpr uint64_t kMaxLatencyUs = uint64_t{3600} * 1000 * 1000;
constexpr uint64_t kMaxLoadLatencyMs = uint64_t{3600} * 1000;

[[noreturn]] void Fail(const std::string& context, const std::string& problem) {
  throw ModelFormatError(context + ": " + problem);
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
        throw ModelFormatError("duplicate JSON key '" + key + "'");
      }
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), on_event);
  } catch (const json::exception& e) {
    throw ModelFormatError(std::string("not valid JSON: ") + e.what());
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

std::string ReadName(const json& value, const std::string& context) {
  if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
    Fail(context, "must be a non-empty string");
  }
  const std::string& name = value.get_ref<const std::string&>();
  // nrt_tensor_info_t.name holds NRT_TENSOR_NAME_MAX bytes including the terminator.
  if (name.size() >= NRT_TENSOR_NAME_MAX || std::memchr(name.data(), '\0', name.size())) {
    Fail(context, "'" + name + "' is longer than " + std::to_string(NRT_TENSOR_NAME_MAX - 1) +
                      " bytes or contains a NUL");
  }
  return name;
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

TensorDecl ReadTensorDecl(const json& value, const std::string& context) {
  CheckObjectKeys(value, context, {"name", "dtype", "shape"});
  TensorDecl decl;
  decl.name = ReadName(RequireKey(value, context, "name"), context + ".name");
  const json& dtype = RequireKey(value, context, "dtype");
  std::optional<DataType> type;
  if (dtype.is_string()) type = DataTypeFromName(dtype.get_ref<const std::string&>());
  if (!type) Fail(context + ".dtype", dtype.dump() + " is not a dtype name (float32, int32, ...)");
  decl.dtype = *type;
  decl.shape = ReadShape(RequireKey(value, context, "shape"), context + ".shape");
  return decl;
}

std::vector<TensorDecl> ReadTensorDecls(const json& model, const char* key) {
  const json& list = RequireKey(model, "model", key);
  if (!list.is_array()) Fail(key, "must be a list");
  std::vector<TensorDecl> decls;
  for (size_t i = 0; i < list.size(); ++i) {
    decls.push_back(ReadTensorDecl(list[i], std::string(key) + "[" + std::to_string(i) + "]"));
  }
  return decls;
}

std::vector<ConstantDecl> ReadConstants(const json& model) {
  std::vector<ConstantDecl> constants;
  auto it = model.find("constants");
  if (it == model.end()) return constants;
  if (!it->is_object()) Fail("constants", "must be an object mapping names to {shape, data}");
  for (const auto& [name, value] : it->items()) {
    std::string context = "constant '" + name + "'";
    CheckObjectKeys(value, context, {"shape", "data"});
    ConstantDecl constant;
    constant.name = ReadName(json(name), context);
    constant.shape = ReadShape(RequireKey(value, context, "shape"), context + ".shape");
    const json& data = RequireKey(value, context, "data");
    if (!data.is_array()) Fail(context + ".data", "must be a list of numbers");
    std::optional<uint64_t> count = ElementCount(constant.shape);
    if (!count || *count != data.size()) {
      Fail(context, "data has " + std::to_string(data.size()) + " values but shape " +
                        ShapeToString(constant.shape) + " needs " +
                        (count ? std::to_string(*count) : std::string("too many")));
    }
    constant.data.reserve(data.size());
    for (const json& number : data) {
      if (!number.is_number()) Fail(context + ".data", "must be a list of numbers");
      float f = static_cast<float>(number.get<double>());
      if (!std::isfinite(f)) Fail(context + ".data", number.dump() + " is not a finite float32");
      constant.data.push_back(f);
    }
    constants.push_back(std::move(constant));
  }
  return constants;
}

OpKind ReadOpKind(const json& value, const std::string& context) {
  struct Row {
    std::string_view name;
    OpKind kind;
  };
  constexpr Row kRows[] = {
      {"identity", OpKind::kIdentity}, {"matmul", OpKind::kMatmul},   {"add", OpKind::kAdd},
      {"mul", OpKind::kMul},           {"relu", OpKind::kRelu},       {"tanh", OpKind::kTanh},
      {"sigmoid", OpKind::kSigmoid},   {"softmax", OpKind::kSoftmax},
  };
  if (value.is_string()) {
    for (const Row& row : kRows) {
      if (row.name == value.get_ref<const std::string&>()) return row.kind;
    }
  }
  Fail(context, "unknown op " + value.dump() +
                    " (known: identity, matmul, add, mul, relu, tanh, sigmoid, softmax)");
}

std::vector<OpDecl> ReadOps(const json& model) {
  std::vector<OpDecl> ops;
  auto it = model.find("ops");
  if (it == model.end()) return ops;
  if (!it->is_array()) Fail("ops", "must be a list");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& value = (*it)[i];
    std::string context = "op " + std::to_string(i);
    CheckObjectKeys(value, context, {"op", "inputs", "output"});
    OpDecl op;
    op.kind = ReadOpKind(RequireKey(value, context, "op"), context);
    op.kind_name = value["op"].get<std::string>();
    context += " (" + op.kind_name + ")";
    const json& inputs = RequireKey(value, context, "inputs");
    if (!inputs.is_array()) Fail(context + ".inputs", "must be a list of tensor names");
    for (const json& input : inputs) op.inputs.push_back(ReadName(input, context + ".inputs"));
    op.output = ReadName(RequireKey(value, context, "output"), context + ".output");
    ops.push_back(std::move(op));
  }
  return ops;
}

NRT_STATUS ReadFaultStatus(const json& value, const std::string& context) {
  std::optional<NRT_STATUS> status;
  if (value.is_string()) {
    status = StatusFromName(value.get_ref<const std::string&>());
  } else if (value.is_number_integer() &&
             value.get<int64_t>() >= std::numeric_limits<int32_t>::min() &&
             value.get<int64_t>() <= std::numeric_limits<int32_t>::max()) {
    // Any 32-bit number, declared or not: the daemon must cope with statuses it does not know.
    status = static_cast<NRT_STATUS>(value.get<int64_t>());
  }
  if (!status || *status == NRT_SUCCESS) {
    Fail(context, value.dump() +
                      " is not a failing NRT_STATUS (a name such as NRT_HW_ERROR or "
                      "HW_ERROR, or a non-zero number)");
  }
  return *status;
}

std::vector<FaultRule> ReadFaults(const json& model) {
  std::vector<FaultRule> faults;
  auto it = model.find("faults");
  if (it == model.end()) return faults;
  if (!it->is_array()) Fail("faults", "must be a list");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& value = (*it)[i];
    std::string context = "faults[" + std::to_string(i) + "]";
    CheckObjectKeys(value, context,
                    {"on_execution", "every", "probability", "seed", "status", "core"});
    FaultRule rule;
    if (value.contains("core")) {
      rule.core = static_cast<uint32_t>(ReadUnsigned(value["core"], context + ".core", 0, 4095));
    }
    rule.status = ReadFaultStatus(RequireKey(value, context, "status"), context + ".status");
    int triggers = static_cast<int>(value.contains("on_execution")) +
                   static_cast<int>(value.contains("every")) +
                   static_cast<int>(value.contains("probability"));
    if (triggers != 1) Fail(context, "needs exactly one of on_execution, every, probability");
    if (value.contains("seed") && !value.contains("probability")) {
      Fail(context, "seed is only for a probability fault");
    }
    constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
    if (value.contains("on_execution")) {
      rule.trigger = FaultRule::Trigger::kOnExecution;
      rule.execution = ReadUnsigned(value["on_execution"], context + ".on_execution", 1, kMax);
    } else if (value.contains("every")) {
      rule.trigger = FaultRule::Trigger::kEvery;
      rule.execution = ReadUnsigned(value["every"], context + ".every", 1, kMax);
    } else {
      rule.trigger = FaultRule::Trigger::kProbability;
      const json& p = value["probability"];
      if (!p.is_number() || !(p.get<double>() >= 0.0 && p.get<double>() <= 1.0)) {
        Fail(context + ".probability", "must be a number from 0 to 1");
      }
      rule.probability = p.get<double>();
      rule.seed = ReadOptionalUnsigned(value, context, "seed", 0, 0, kMax);
    }
    faults.push_back(rule);
  }
  return faults;
}

}  // namespace

ModelSpec ParseModelFile(const void* bytes, size_t size) {
  std::string_view file(static_cast<const char*>(bytes), size);
  if (!file.starts_with(kMagic)) {
    throw ModelFormatError("not a sim NEFF (the file does not start with \"NRTSIM1\\n\")");
  }
  json model = ParseJsonRejectingDuplicateKeys(file.substr(kMagic.size()));
  CheckObjectKeys(model, "model",
                  {"name", "description", "nc_count", "latency_us", "load_latency_ms", "inputs",
                   "outputs", "constants", "ops", "faults"});
  for (const char* key : {"name", "description"}) {
    if (model.contains(key) && !model[key].is_string()) Fail(key, "must be a string");
  }
  ModelSpec spec;
  spec.nc_count =
      static_cast<uint32_t>(ReadOptionalUnsigned(model, "model", "nc_count", 1, 1, kMaxNcCount));
  spec.latency_us = ReadOptionalUnsigned(model, "model", "latency_us", 0, 0, kMaxLatencyUs);
  spec.load_latency_ms =
      ReadOptionalUnsigned(model, "model", "load_latency_ms", 0, 0, kMaxLoadLatencyMs);
  spec.inputs = ReadTensorDecls(model, "inputs");
  spec.outputs = ReadTensorDecls(model, "outputs");
  spec.constants = ReadConstants(model);
  spec.ops = ReadOps(model);
  spec.faults = ReadFaults(model);
  return spec;
}

}  // namespace neuronserve::nrtsim
