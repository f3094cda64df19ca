#include "client/neuronctl/sim_model_command.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/neuronctl/flag_values.h"
#include "client/neuronctl/output_format.h"
#include "client/neuronctl/usage_error.h"
#include "client/simmodel/classifier_model.h"
#include "client/simmodel/fault_spec.h"
#include "client/simmodel/identity_model.h"
#include "client/simmodel/mlp_model.h"
#include "client/simmodel/sim_neff.h"
#include "nlohmann/json.hpp"
#include "util/durable_file.h"

namespace neuronserve::neuronctl {
namespace {

using simmodel::SimModel;

// Identity shapes are only metadata in the file, but the simulator allocates them.
constexpr int64_t kMaxDimension = int64_t{1} << 31;

constexpr auto kSimModelFlags = std::to_array<FlagSpec>({
    {"mlp", FlagType::kValue, "SIZES", "",
     "layer sizes of a dense relu network, e.g. 16,32,8 (input 16, output 8)"},
    {"identity", FlagType::kValue, "SHAPE", "", "output = input, of this shape, e.g. 1,1024"},
    {"classifier", FlagType::kValue, "V,S,H,C", "",
     "a BERT-shaped classifier: vocab V, sequence S, hidden H, classes C, e.g. 512,16,32,4"},
    {"dtype", FlagType::kValue, "DTYPE", "float32",
     "dtype of the --identity tensors: float32, float16, bfloat16, int64, uint8, ..."},
    {"softmax", FlagType::kBoolean, "", "", "end the MLP with a softmax over the last dimension"},
    {"seed", FlagType::kValue, "N", "0", "seed of the MLP's or classifier's random weights"},
    {"batch", FlagType::kValue, "N", "1", "leading dimension of the MLP's input and output"},
    {"input-name", FlagType::kValue, "NAME", "input", "name of the input tensor"},
    {"output-name", FlagType::kValue, "NAME", "output", "name of the output tensor"},
    {"latency-us", FlagType::kValue, "N", "0", "simulated device time per execution"},
    {"load-latency-ms", FlagType::kValue, "N", "0", "simulated time to load the model"},
    {"cores", FlagType::kValue, "N", "1", "NeuronCores the model occupies (nc_count)"},
    {"fault", FlagType::kRepeated, "SPEC", "",
     "make executions fail: on_execution=N:S, every=N:S, probability=P:SEED:S"},
    {"out", FlagType::kValue, "FILE", "", "the model file to write (required)"},
    kOutputFormatFlag,
});

constexpr absl::string_view kSimModelDescription =
    "Writes a model file for the simulated Neuron runtime (libnrtsim.so): a random MLP with\n"
    "weights fixed by --seed, an identity model of any dtype, or a BERT-shaped classifier\n"
    "(int64 input_ids and attention_mask [1,S] in; float32 logits and float16 logits_fp16\n"
    "[1,C] out; the mean of the token embeddings the mask keeps, then a dense layer).\n"
    "Give exactly one of --mlp, --identity and --classifier.\n"
    "The file is written atomically (a temporary file in the same directory, then renamed).\n"
    "STATUS in --fault is an NRT_STATUS name (NRT_HW_ERROR, NRT_TIMEOUT, ...) or a number.\n"
    "\n"
    "Example:\n"
    "  neuronctl sim-model --mlp 16,32,8 --softmax --seed 1 --out model.neff\n"
    "  neuronctl sim-model --classifier 512,16,32,4 --seed 1 --out classifier.neff";

// What was built, for the report line.
struct BuiltModel {
  SimModel model;
  std::string kind;         // "mlp", "identity" or "classifier"
  nlohmann::json details;   // kind-specific facts for --output=json
  std::string description;  // kind-specific facts for the text line
};

absl::StatusOr<BuiltModel> BuildMlp(const ParsedArgs& args, std::string input_name,
                                    std::string output_name) {
  absl::StatusOr<std::vector<int64_t>> sizes =
      ParsePositiveList("mlp", *args.Get("mlp"), simmodel::kMaxMlpParameters);
  if (!sizes.ok()) return sizes.status();
  if (sizes->size() < 2) {
    return UsageError(absl::StrCat("--mlp: '", *args.Get("mlp"),
                                   "' needs at least two sizes (input and output), e.g. 16,8"));
  }
  absl::StatusOr<uint64_t> seed = GetUnsignedFlag(args, "seed");
  if (!seed.ok()) return seed.status();
  absl::StatusOr<uint64_t> batch = GetPositiveFlag(args, "batch");
  if (!batch.ok()) return batch.status();
  if (*batch > static_cast<uint64_t>(kMaxDimension)) {
    return UsageError(absl::StrCat("--batch: ", *batch, " is above the limit of ", kMaxDimension));
  }

  simmodel::MlpOptions options;
  options.layer_sizes = *sizes;
  options.softmax = args.GetBool("softmax");
  options.seed = *seed;
  options.batch = static_cast<int64_t>(*batch);
  options.input_name = std::move(input_name);
  options.output_name = std::move(output_name);
  absl::StatusOr<SimModel> model = simmodel::BuildMlpModel(options);
  if (!model.ok()) return AsUsageError(model.status());

  BuiltModel built{*std::move(model), "mlp", nlohmann::json::object(), ""};
  int64_t parameters = 0;
  for (const auto& [name, constant] : built.model.constants) {
    parameters += static_cast<int64_t>(constant.data.size());
  }
  built.details = {{"layer_sizes", *sizes},
                   {"softmax", options.softmax},
                   {"seed", options.seed},
                   {"parameters", parameters}};
  built.description = absl::StrCat(absl::StrJoin(*sizes, "-"), options.softmax ? " softmax" : "",
                                   ", seed ", options.seed, ", ", parameters, " parameters");
  return built;
}

absl::StatusOr<BuiltModel> BuildIdentity(const ParsedArgs& args, std::string input_name,
                                         std::string output_name) {
  // The shape is given whole, so flags that only shape an MLP would be silently ignored here.
  for (absl::string_view mlp_only : {"batch", "softmax", "seed"}) {
    if (args.Has(mlp_only)) {
      return UsageError(absl::StrCat("--", mlp_only,
                                     " applies to --mlp only (an --identity shape includes its "
                                     "batch dimension)"));
    }
  }
  absl::StatusOr<std::vector<int64_t>> shape =
      ParsePositiveList("identity", *args.Get("identity"), kMaxDimension);
  if (!shape.ok()) return shape.status();

  const std::optional<DataType> dtype = DataTypeFromName(*args.Get("dtype"));
  if (!dtype.has_value()) {
    return UsageError(absl::StrCat("--dtype: '", *args.Get("dtype"),
                                   "' is not a dtype (float32, float16, bfloat16, fp32r, fp8_e3, "
                                   "fp8_e4, fp8_e5, int8, uint8, int16, uint16, int32, uint32, "
                                   "int64, uint64)"));
  }
  simmodel::IdentityOptions options;
  options.shape = *shape;
  options.dtype = *dtype;
  options.input_name = std::move(input_name);
  options.output_name = std::move(output_name);
  absl::StatusOr<SimModel> model = simmodel::BuildIdentityModel(options);
  if (!model.ok()) return AsUsageError(model.status());
  return BuiltModel{*std::move(model), "identity", nlohmann::json::object(), ""};
}

absl::StatusOr<BuiltModel> BuildClassifier(const ParsedArgs& args) {
  // Its tensors have fixed names and shapes (those of a torch-neuronx sequence classifier).
  for (absl::string_view other : {"batch", "softmax", "input-name", "output-name"}) {
    if (args.Has(other)) {
      return UsageError(absl::StrCat("--", other,
                                     " does not apply to --classifier (its tensors are "
                                     "input_ids, attention_mask, logits and logits_fp16)"));
    }
  }
  absl::StatusOr<std::vector<int64_t>> sizes =
      ParsePositiveList("classifier", *args.Get("classifier"), simmodel::kMaxMlpParameters);
  if (!sizes.ok()) return sizes.status();
  if (sizes->size() != 4) {
    return UsageError(absl::StrCat("--classifier: '", *args.Get("classifier"),
                                   "' needs four sizes VOCAB,SEQ,HIDDEN,CLASSES, e.g. 512,16,32,4"));
  }
  absl::StatusOr<uint64_t> seed = GetUnsignedFlag(args, "seed");
  if (!seed.ok()) return seed.status();
  simmodel::ClassifierOptions options;
  options.vocab = (*sizes)[0];
  options.sequence = (*sizes)[1];
  options.hidden = (*sizes)[2];
  options.classes = (*sizes)[3];
  options.seed = *seed;
  absl::StatusOr<SimModel> model = simmodel::BuildClassifierModel(options);
  if (!model.ok()) return AsUsageError(model.status());
  BuiltModel built{*std::move(model), "classifier", nlohmann::json::object(), ""};
  built.details = {{"vocab", options.vocab},       {"sequence", options.sequence},
                   {"hidden", options.hidden},     {"classes", options.classes},
                   {"seed", options.seed}};
  built.description = absl::StrCat("vocab ", options.vocab, ", sequence ", options.sequence,
                                   ", hidden ", options.hidden, ", ", options.classes,
                                   " classes, seed ", options.seed);
  return built;
}

// The runtime knobs shared by every kind of model.
absl::Status ApplyRuntimeFlags(const ParsedArgs& args, SimModel& model) {
  absl::StatusOr<uint64_t> cores = GetPositiveFlag(args, "cores");
  if (!cores.ok()) return cores.status();
  if (*cores > kMaxCoreCount) {
    return UsageError(absl::StrCat("--cores: ", *cores, " is above the limit of ", kMaxCoreCount));
  }
  absl::StatusOr<uint64_t> latency_us = GetUnsignedFlag(args, "latency-us");
  if (!latency_us.ok()) return latency_us.status();
  absl::StatusOr<uint64_t> load_latency_ms = GetUnsignedFlag(args, "load-latency-ms");
  if (!load_latency_ms.ok()) return load_latency_ms.status();

  model.nc_count = static_cast<uint32_t>(*cores);
  model.latency_us = *latency_us;
  model.load_latency_ms = *load_latency_ms;
  for (const std::string& spec : args.GetAll("fault")) {
    absl::StatusOr<simmodel::Fault> fault = simmodel::ParseFaultSpec(spec);
    if (!fault.ok()) return UsageError(absl::StrCat("--fault: ", fault.status().message()));
    model.faults.push_back(*std::move(fault));
  }
  return absl::OkStatus();
}

std::string TensorText(const simmodel::TensorSignature& tensor) {
  return absl::StrCat("'", tensor.name, "' ", std::string(DataTypeName(tensor.dtype)), " ",
                      simmodel::ShapeToString(tensor.shape));
}

nlohmann::json TensorListJson(const std::vector<simmodel::TensorSignature>& tensors) {
  nlohmann::json list = nlohmann::json::array();
  for (const simmodel::TensorSignature& tensor : tensors) {
    list.push_back({{"name", tensor.name},
                    {"dtype", std::string(DataTypeName(tensor.dtype))},
                    {"shape", tensor.shape}});
  }
  return list;
}

void Report(const BuiltModel& built, const std::string& path, size_t bytes, OutputFormat format,
            std::ostream& out) {
  const SimModel& model = built.model;
  if (format == OutputFormat::kJson) {
    nlohmann::json report = {{"path", path},
                             {"bytes", bytes},
                             {"kind", built.kind},
                             {"inputs", TensorListJson(model.inputs)},
                             {"outputs", TensorListJson(model.outputs)},
                             {"nc_count", model.nc_count},
                             {"latency_us", model.latency_us},
                             {"load_latency_ms", model.load_latency_ms},
                             {"faults", model.faults.size()}};
    report.update(built.details);
    out << report.dump() << "\n";
    return;
  }
  std::vector<std::string> inputs, outputs;
  for (const auto& tensor : model.inputs) inputs.push_back(TensorText(tensor));
  for (const auto& tensor : model.outputs) outputs.push_back(TensorText(tensor));
  out << "wrote " << built.kind << " model"
      << (built.description.empty() ? "" : absl::StrCat(" (", built.description, ")")) << ": input "
      << absl::StrJoin(inputs, ", ") << " -> output " << absl::StrJoin(outputs, ", ")
      << (model.faults.empty() ? "" : absl::StrCat(", ", model.faults.size(), " fault(s)")) << "; "
      << bytes << " bytes to " << path << "\n";
}

absl::Status RunSimModel(const ParsedArgs& args, const CommandIo& io) {
  std::ostream& out = io.out;
  if (!args.positional().empty()) {
    return UsageError(absl::StrCat("unexpected argument '", args.positional().front(),
                                   "' (all inputs are --flags)"));
  }
  const bool mlp = args.Has("mlp");
  const bool classifier = args.Has("classifier");
  if (static_cast<int>(mlp) + static_cast<int>(args.Has("identity")) +
          static_cast<int>(classifier) !=
      1) {
    return UsageError("give exactly one of --mlp=SIZES, --identity=SHAPE and --classifier=V,S,H,C");
  }
  if (args.Has("dtype") && !args.Has("identity")) {
    return UsageError("--dtype applies to --identity only");
  }
  absl::StatusOr<OutputFormat> format = GetOutputFormat(args);
  if (!format.ok()) return format.status();
  absl::StatusOr<std::string> path = GetRequiredFlag(args, "out");
  if (!path.ok()) return path.status();
  absl::StatusOr<std::string> input_name = GetRequiredFlag(args, "input-name");
  if (!input_name.ok()) return input_name.status();
  absl::StatusOr<std::string> output_name = GetRequiredFlag(args, "output-name");
  if (!output_name.ok()) return output_name.status();

  absl::StatusOr<BuiltModel> built =
      classifier ? BuildClassifier(args)
      : mlp      ? BuildMlp(args, *std::move(input_name), *std::move(output_name))
                 : BuildIdentity(args, *std::move(input_name), *std::move(output_name));
  if (!built.ok()) return built.status();
  if (absl::Status status = ApplyRuntimeFlags(args, built->model); !status.ok()) return status;

  absl::StatusOr<std::string> bytes = simmodel::EncodeSimNeff(built->model);
  if (!bytes.ok()) return AsUsageError(bytes.status());
  if (absl::Status status = WriteFileAtomically(*path, *bytes); !status.ok()) return status;
  Report(*built, *path, bytes->size(), *format, out);
  return absl::OkStatus();
}

}  // namespace

const Subcommand& SimModelCommand() {
  static const Subcommand command = {
      "sim-model", "write a model file (sim NEFF) for the simulated Neuron runtime",
      kSimModelDescription, kSimModelFlags, &RunSimModel};
  return command;
}

}  // namespace neuronserve::neuronctl
