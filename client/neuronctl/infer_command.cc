#include "client/neuronctl/infer_command.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/neuronctl/connection_flags.h"
#include "client/neuronctl/flag_values.h"
#include "client/neuronctl/npy_file.h"
#include "client/neuronctl/positional_args.h"
#include "client/neuronctl/random_inputs.h"
#include "client/neuronctl/tensor_form_flag.h"
#include "client/neuronctl/usage_error.h"
#include "nlohmann/json.hpp"

namespace neuronserve::neuronctl {
namespace {

// Outputs up to this many values are printed whole; longer ones are cut, pointing at
// --output-dir (a terminal is no place for a million floats).
constexpr size_t kMaxPrintedValues = 64;
constexpr size_t kCutPrintedValues = 16;

constexpr auto kFlags = WithConnectionFlags(std::to_array<FlagSpec>({
    {"input", FlagType::kRepeated, "NAME=FILE", "", "an input tensor from a float32 .npy file"},
    {"random", FlagType::kBoolean, "", "",
     "fill every input not given by --input with uniform random values in [-1, 1)"},
    {"seed", FlagType::kValue, "N", "0", "seed of the --random values"},
    {"output-dir", FlagType::kValue, "DIR", "",
     "write each output to DIR/OUTPUT.npy (created if missing) instead of printing its values"},
    {"outputs", FlagType::kValue, "LIST", "", "only these outputs, e.g. logits,probs"},
    {"version", FlagType::kValue, "LABEL", "", "fail unless this version of the model serves"},
    kTensorFormFlag,
}));

constexpr absl::string_view kDescription =
    "Sends one Infer request. Each input comes from a float32 .npy file (numpy.save of a\n"
    "float32 array in C order; its shape is sent and checked by the daemon), or with --random\n"
    "from seeded random values of the shape the model declares. Outputs are printed (long\n"
    "ones cut) or, with --output-dir, written as .npy files named after each output, which\n"
    "numpy.load reads. --output=json prints the outputs' shapes and values (or their files),\n"
    "the serving version and the server's queue and device times.\n"
    "\n"
    "Examples:\n"
    "  neuronctl infer mlp --input input=x.npy --output-dir=out\n"
    "  neuronctl infer mlp --random --seed=7 --output=json";

struct InputSource {
  std::string name;
  std::string path;
};

absl::StatusOr<std::vector<InputSource>> ParseInputFlags(const ParsedArgs& args) {
  std::vector<InputSource> sources;
  for (const std::string& value : args.GetAll("input")) {
    const size_t equals = value.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == value.size()) {
      return UsageError(absl::StrCat("--input: '", value, "' is not NAME=FILE"));
    }
    InputSource source{value.substr(0, equals), value.substr(equals + 1)};
    for (const InputSource& earlier : sources) {
      if (earlier.name == source.name) {
        return UsageError(absl::StrCat("--input: input '", source.name, "' is given twice"));
      }
    }
    sources.push_back(std::move(source));
  }
  return sources;
}

// A tensor the request sends, owning its values (NamedTensor only borrows them).
struct OwnedInput {
  std::string name;
  std::vector<uint32_t> shape;
  std::vector<float> values;
};

absl::StatusOr<OwnedInput> FromNpy(const InputSource& source) {
  absl::StatusOr<NpyArray> array = ReadNpyFile(source.path);
  if (!array.ok()) return array.status();
  OwnedInput input{source.name, {}, std::move(array->values)};
  for (uint64_t dimension : array->shape) {
    if (dimension > UINT32_MAX) {
      return absl::InvalidArgumentError(
          absl::StrCat(source.path, ": dimension ", dimension, " is larger than the API allows"));
    }
    input.shape.push_back(static_cast<uint32_t>(dimension));
  }
  return input;
}

// Random values for every input of `model` that `inputs` does not already hold.
absl::Status AddRandomInputs(const v1::ModelStatus& model, uint64_t seed,
                             std::vector<OwnedInput>& inputs) {
  RandomInputs random(seed);
  for (const v1::TensorInfo& tensor : model.inputs()) {
    const bool given = std::any_of(inputs.begin(), inputs.end(), [&](const OwnedInput& input) {
      return input.name == tensor.name();
    });
    if (given) continue;
    absl::StatusOr<std::vector<float>> values = random.ValuesFor(model, tensor);
    if (!values.ok()) return values.status();
    inputs.push_back({tensor.name(), {tensor.shape().begin(), tensor.shape().end()},
                      *std::move(values)});
  }
  return absl::OkStatus();
}

// A file name for an output: its name with anything but [A-Za-z0-9_.-] replaced, so that an
// output called "a/b" cannot write outside the directory.
std::string OutputFileName(const std::string& output) {
  std::string name = output;
  for (char& c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      c = '_';
    }
  }
  if (name.empty() || name[0] == '.') name = "_" + name;
  return name + ".npy";
}

std::string ValuesText(const std::vector<float>& values) {
  std::vector<std::string> shown;
  const size_t count = values.size() <= kMaxPrintedValues ? values.size() : kCutPrintedValues;
  for (size_t i = 0; i < count; ++i) shown.push_back(absl::StrFormat("%.7g", values[i]));
  std::string text = absl::StrJoin(shown, ", ");
  if (count < values.size()) {
    absl::StrAppend(&text, ", ... (", values.size(), " values; --output-dir writes them all)");
  }
  return text;
}

absl::Status Report(const std::string& model, const client::InferResult& result,
                    const std::map<std::string, std::string>& files, OutputFormat format,
                    std::ostream& out) {
  const double queue_ms = absl::ToDoubleMilliseconds(result.queue_time);
  const double device_ms = absl::ToDoubleMilliseconds(result.device_time);
  if (format == OutputFormat::kJson) {
    nlohmann::json outputs = nlohmann::json::object();
    for (const auto& [name, tensor] : result.outputs) {
      nlohmann::json entry = {{"shape", tensor.shape}};
      if (auto file = files.find(name); file != files.end()) {
        entry["file"] = file->second;
      } else {
        entry["values"] = tensor.values;
      }
      outputs[name] = std::move(entry);
    }
    out << nlohmann::json{{"model", model},         {"version", result.version},
                          {"id", result.id},        {"queue_ms", queue_ms},
                          {"device_ms", device_ms}, {"outputs", std::move(outputs)}}
                   .dump(2)
        << "\n";
    return absl::OkStatus();
  }
  out << "model '" << model << "'"
      << (result.version.empty() ? "" : absl::StrCat(" version '", result.version, "'"))
      << absl::StrFormat(": queue %.3f ms, device %.3f ms\n", queue_ms, device_ms);
  for (const auto& [name, tensor] : result.outputs) {
    out << name << " [" << absl::StrJoin(tensor.shape, ", ") << "]";
    if (auto file = files.find(name); file != files.end()) {
      out << " -> " << file->second << "\n";
    } else {
      out << "\n  " << ValuesText(tensor.values) << "\n";
    }
  }
  return absl::OkStatus();
}

absl::Status RunInfer(const ParsedArgs& args, const CommandIo& io) {
  if (absl::Status status = ExpectPositional(args, {"NAME"}); !status.ok()) return status;
  const std::string& model = args.positional()[0];
  absl::StatusOr<OutputFormat> format = GetOutputFormat(args);
  if (!format.ok()) return format.status();
  absl::StatusOr<bool> raw = GetRawTensorForm(args);
  if (!raw.ok()) return raw.status();
  absl::StatusOr<std::vector<InputSource>> sources = ParseInputFlags(args);
  if (!sources.ok()) return sources.status();
  const bool random = args.GetBool("random");
  if (sources->empty() && !random) {
    return UsageError("give --input NAME=FILE for each input of the model, or --random");
  }
  absl::StatusOr<uint64_t> seed = GetUnsignedFlag(args, "seed");
  if (!seed.ok()) return seed.status();
  client::InferOptions options;
  options.raw = *raw;
  if (args.Has("version")) options.version = *args.Get("version");
  if (args.Has("outputs")) {
    for (absl::string_view output : absl::StrSplit(*args.Get("outputs"), ',')) {
      if (output.empty()) return UsageError("--outputs: an output name is empty");
      options.outputs.emplace_back(output);
    }
  }
  std::string output_dir;
  if (args.Has("output-dir")) {
    absl::StatusOr<std::string> dir = GetRequiredFlag(args, "output-dir");
    if (!dir.ok()) return dir.status();
    output_dir = *std::move(dir);
  }

  // Files first: a bad input file should fail before anything is asked of the server.
  std::vector<OwnedInput> inputs;
  for (const InputSource& source : *sources) {
    absl::StatusOr<OwnedInput> input = FromNpy(source);
    if (!input.ok()) return input.status();
    inputs.push_back(*std::move(input));
  }

  absl::StatusOr<std::unique_ptr<client::Client>> client = ConnectFromFlags(args);
  if (!client.ok()) return client.status();
  if (random) {
    absl::StatusOr<v1::ModelStatus> status = (*client)->GetModel(model);
    if (!status.ok()) return status.status();
    if (absl::Status added = AddRandomInputs(*status, *seed, inputs); !added.ok()) return added;
  }

  std::vector<client::NamedTensor> tensors;
  for (const OwnedInput& input : inputs) tensors.push_back({input.name, input.shape, input.values});
  absl::StatusOr<client::InferResult> result = (*client)->Infer(model, tensors, options);
  if (!result.ok()) return result.status();

  std::map<std::string, std::string> files;
  if (!output_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(output_dir, error);
    if (error) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot create --output-dir ", output_dir, ": ", error.message()));
    }
    for (const auto& [name, tensor] : result->outputs) {
      const std::string path = (std::filesystem::path(output_dir) / OutputFileName(name)).string();
      const std::vector<uint64_t> shape(tensor.shape.begin(), tensor.shape.end());
      if (absl::Status written = WriteNpyFile(path, shape, tensor.values); !written.ok()) {
        return written;
      }
      files[name] = path;
    }
  }
  return Report(model, *result, files, *format, io.out);
}

}  // namespace

const Subcommand& InferCommand() {
  static const Subcommand command = {"infer", "run one inference request (.npy in and out)",
                                     kDescription, kFlags, &RunInfer, "NAME"};
  return command;
}

}  // namespace neuronserve::neuronctl
