#include "sim/simmodel/sim_model_writer.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>

#include "sim/simmodel/model_graph.h"

namespace neuronserve::simmodel {
namespace {

// A JSON document whose floating-point numbers are float32: nlohmann then prints each weight as
// the shortest decimal that round-trips through float32 ("0.1234567"), instead of the 17 digits
// of the double nearest to it, which keeps files small and readable and exactly what the
// simulator will compute with.
using Float32Json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t,
                                         std::uint64_t, float>;

Float32Json TensorJson(const TensorSignature& tensor) {
  return Float32Json{{"name", tensor.name},
                     {"dtype", std::string(DataTypeName(tensor.dtype))},
                     {"shape", tensor.shape}};
}

Float32Json TensorListJson(const std::vector<TensorSignature>& tensors) {
  Float32Json list = Float32Json::array();
  for (const TensorSignature& tensor : tensors) list.push_back(TensorJson(tensor));
  return list;
}

Float32Json ConstantJson(const Constant& constant) {
  Float32Json data = Float32Json::array();
  // Validated: floats are finite float32, integers whole and within 2^53.
  if (IsFloatingPoint(constant.dtype)) {
    for (double number : constant.data) data.push_back(static_cast<float>(number));
  } else {
    for (double number : constant.data) data.push_back(static_cast<int64_t>(number));
  }
  Float32Json json{{"shape", constant.shape}, {"data", std::move(data)}};
  // float32 is the default and stays implicit, as in files written before constants had dtypes.
  if (constant.dtype != DataType::kFloat32) {
    json["dtype"] = std::string(DataTypeName(constant.dtype));
  }
  return json;
}

Float32Json OpJson(const Op& op) {
  Float32Json json{
      {"op", std::string(OpKindName(op.kind))}, {"inputs", op.inputs}, {"output", op.output}};
  if (op.dtype) json["dtype"] = std::string(DataTypeName(*op.dtype));
  if (op.shape) json["shape"] = *op.shape;
  if (op.axis) json["axis"] = *op.axis;
  if (op.keepdims) json["keepdims"] = true;
  return json;
}

Float32Json FaultJson(const Fault& fault) {
  Float32Json json = Float32Json::object();
  if (const auto* on = std::get_if<FaultOnExecution>(&fault.trigger)) {
    json["on_execution"] = on->execution;
  } else if (const auto* every = std::get_if<FaultEvery>(&fault.trigger)) {
    json["every"] = every->period;
  } else if (const auto* p = std::get_if<FaultWithProbability>(&fault.trigger)) {
    json["probability"] = static_cast<float>(p->probability);
    json["seed"] = p->seed;
  }
  if (fault.latency_us) {
    json["latency_us"] = *fault.latency_us;
  } else if (const auto* name = std::get_if<std::string>(&fault.status)) {
    json["status"] = *name;
  } else {
    json["status"] = std::get<int32_t>(fault.status);
  }
  if (fault.core) json["core"] = *fault.core;
  return json;
}

}  // namespace

FormatResult<std::string> WriteSimModel(const SimModel& model) {
  if (FormatResult<ModelGraph> graph = CompileModelGraph(model); !graph.ok()) {
    return FormatError{graph.error()};
  }
  Float32Json constants = Float32Json::object();
  for (const auto& [name, constant] : model.constants) constants[name] = ConstantJson(constant);
  Float32Json ops = Float32Json::array();
  for (const Op& op : model.ops) ops.push_back(OpJson(op));
  Float32Json faults = Float32Json::array();
  for (const Fault& fault : model.faults) faults.push_back(FaultJson(fault));

  Float32Json document = {
      {"nc_count", model.nc_count},
      {"latency_us", model.latency_us},
      {"load_latency_ms", model.load_latency_ms},
      {"inputs", TensorListJson(model.inputs)},
      {"outputs", TensorListJson(model.outputs)},
      {"constants", std::move(constants)},
      {"ops", std::move(ops)},
      {"faults", std::move(faults)},
  };
  if (!model.name.empty()) document["name"] = model.name;
  if (!model.description.empty()) document["description"] = model.description;
  std::string bytes(kSimNeffMagic);
  bytes += document.dump();
  bytes += '\n';
  return bytes;
}

}  // namespace neuronserve::simmodel
