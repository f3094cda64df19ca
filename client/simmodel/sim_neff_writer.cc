#include "client/simmodel/sim_neff_writer.h"

#include <map>

#include "client/simmodel/sim_model_validation.h"
#include "nlohmann/json.hpp"

namespace neuronserve::simmodel {
namespace {

// A JSON document whose floating-point numbers are float32: nlohmann then prints each weight as
// the shortest decimal that round-trips through float32 ("0.1234567"), instead of the 17 digits
// of the double nearest to it, which keeps files small and readable and exactly what the
// simulator will compute with.
using Float32Json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t,
                                         std::uint64_t, float>;

Float32Json TensorJson(const TensorSpec& tensor) {
  return Float32Json{{"name", tensor.name},
                     {"dtype", std::string(DataTypeName(tensor.dtype))},
                     {"shape", tensor.shape}};
}

Float32Json TensorListJson(const std::vector<TensorSpec>& tensors) {
  Float32Json list = Float32Json::array();
  for (const TensorSpec& tensor : tensors) list.push_back(TensorJson(tensor));
  return list;
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
  if (const auto* name = std::get_if<std::string>(&fault.status)) {
    json["status"] = *name;
  } else {
    json["status"] = std::get<int32_t>(fault.status);
  }
  return json;
}

}  // namespace

absl::StatusOr<std::string> EncodeSimNeff(const SimModel& model) {
  if (absl::Status status = ValidateSimModel(model); !status.ok()) return status;

  Float32Json constants = Float32Json::object();
  for (const auto& [name, constant] : model.constants) {
    constants[name] = Float32Json{{"shape", constant.shape}, {"data", constant.data}};
  }
  Float32Json ops = Float32Json::array();
  for (const Op& op : model.ops) {
    ops.push_back(Float32Json{
        {"op", std::string(OpKindName(op.kind))}, {"inputs", op.inputs}, {"output", op.output}});
  }
  Float32Json faults = Float32Json::array();
  for (const Fault& fault : model.faults) faults.push_back(FaultJson(fault));

  const Float32Json document = {
      {"nc_count", model.nc_count},
      {"latency_us", model.latency_us},
      {"load_latency_ms", model.load_latency_ms},
      {"inputs", TensorListJson(model.inputs)},
      {"outputs", TensorListJson(model.outputs)},
      {"constants", std::move(constants)},
      {"ops", std::move(ops)},
      {"faults", std::move(faults)},
  };
  std::string bytes(kSimNeffMagic);
  bytes += document.dump();
  bytes += '\n';
  return bytes;
}

}  // namespace neuronserve::simmodel
