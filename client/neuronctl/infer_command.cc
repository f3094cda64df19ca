#include "client/neuronctl/infer_command.h"

#include <algorithm>
#include <bit>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/dtype.h"
#include "base/float_formats.h"
#include "base/shape.h"
#include "client/neuronctl/connection_flags.h"
#include "client/neuronctl/flag_values.h"
#include "client/neuronctl/npy_file.h"
#include "client/neuronctl/positional_args.h"
#include "client/neuronctl/protocol_flag.h"
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
    {"input", FlagType::kRepeated, "NAME=FILE", "",
     "an input tensor from a .npy file of the input's dtype"},
    {"random", FlagType::kBoolean, "", "",
     "fill every input not given by --input with random values: floats uniform in [-1, 1), "
     "integers uniform in [0, --random-max)"},
    {"seed", FlagType::kValue, "N", "0", "seed of the --random values"},
    kRandomMaxFlag,
    {"output-dir", FlagType::kValue, "DIR", "",
     "write each output to DIR/OUTPUT.npy (created if missing) instead of printing its values"},
    {"outputs", FlagType::kValue, "LIST", "", "only these outputs, e.g. logits,probs"},
    {"version", FlagType::kValue, "LABEL", "", "fail unless this version of the model serves"},
    kTensorFormFlag,
    kProtocolFlag,
}));

constexpr absl::string_view kDescription =
    "Sends one Infer request (--protocol=v2: one ModelInfer of the Open Inference Protocol,\n"
    "with the same tensors and the same output). Each input comes from a .npy file (numpy.save of "
    "an array in C\n"
    "order; its shape is sent and checked by the daemon) whose dtype is the input's, as\n"
    "'neuronctl model NAME' shows it:\n"
    "  int8 '|i1'   int16 '<i2'   int32 '<i4'   int64 '<i8'   float16 '<f2'\n"
    "  uint8 '|u1'  uint16 '<u2'  uint32 '<u4'  uint64 '<u8'  float32 '<f4'\n"
    "numpy has no bfloat16: a bfloat16 input is a '<u2' file of its 16-bit patterns (e.g.\n"
    "ml_dtypes.bfloat16 array .view(numpy.uint16)); fp8 inputs are '|u1' files of their bits.\n"
    "A file of another dtype is refused, never converted.\n"
    "\n"
    "With --random, every input not given by --input gets seeded random values of the dtype\n"
    "and shape the model declares: floats uniform in [-1, 1) (float16, bfloat16 and fp8\n"
    "rounded to their format), integers uniform in [0, --random-max) (default 2, so token ids\n"
    "and attention masks stay valid).\n"
    "\n"
    "Outputs are printed (long ones cut) or, with --output-dir, written as .npy files named\n"
    "after each output, of the output's dtype (bfloat16 as '<u2' and fp8 as '|u1' bits, as\n"
    "above), which numpy.load reads. --output=json prints the outputs' dtypes, shapes and\n"
    "values (or their files), the serving version and the server's queue and device times.\n"
    "\n"
    "Examples:\n"
    "  neuronctl infer mlp --input input=x.npy --output-dir=out\n"
    "  neuronctl infer classifier --input input_ids=ids.npy --input attention_mask=mask.npy\n"
    "  neuronctl infer classifier --random --random-max=512 --seed=7 --output=json";

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

// A tensor the request sends, owning its elements (NamedTensor only borrows them): float32
// numbers in `values`, or `bytes` of `dtype`.
struct OwnedInput {
  std::string name;
  std::vector<uint32_t> shape;
  std::vector<float> values;
  std::string dtype;
  std::vector<uint8_t> bytes;
  std::string path;   // the file it came from; empty for --random
  std::string descr;  // the file's .npy dtype
};

absl::StatusOr<OwnedInput> FromNpy(const InputSource& source) {
  absl::StatusOr<NpyArray> array = ReadNpyFile(source.path);
  if (!array.ok()) return array.status();
  OwnedInput input{source.name, {}, {}, std::string(DataTypeName(array->dtype)),
                   std::move(array->bytes), source.path, array->descr};
  for (uint64_t dimension : array->shape) {
    if (dimension > UINT32_MAX) {
      return absl::InvalidArgumentError(
          absl::StrCat(source.path, ": dimension ", dimension, " is larger than the API allows"));
    }
    input.shape.push_back(static_cast<uint32_t>(dimension));
  }
  return input;
}

// Checks a file's dtype against the model's input of the same name and sends it as that dtype
// (a '<u2' file as bfloat16, '|u1' as fp8). An input the model does not have is sent as it is:
// the daemon's error names the model's inputs.
absl::Status MatchModelDtype(const v1::ModelStatus& model, OwnedInput& input) {
  const auto tensor = std::find_if(model.inputs().begin(), model.inputs().end(),
                                   [&](const v1::TensorInfo& t) { return t.name() == input.name; });
  if (tensor == model.inputs().end()) return absl::OkStatus();
  const std::optional<DataType> type = DataTypeFromName(tensor->dtype());
  // A dtype neuron-serve does not know travels as bytes: any '|u1' file, the shape unchecked
  // here (its elements' size is unknown), the daemon checking the byte size.
  const std::string expected = type ? NpyDescrFor(*type).value_or("|u1") : "|u1";
  if (input.descr != expected) {
    std::string why = absl::StrCat(input.path, ": input '", input.name, "' of model '",
                                   model.name(), "' is ", tensor->dtype(), " ('", expected,
                                   "'), but the file holds ", input.dtype, " ('", input.descr,
                                   "')");
    if (type == DataType::kBFloat16) {
      absl::StrAppend(&why, "; numpy has no bfloat16, so give its 16-bit patterns as '<u2' "
                            "(e.g. array.view(numpy.uint16) of an ml_dtypes.bfloat16 array)");
    }
    return absl::FailedPreconditionError(why);
  }
  if (!type) {
    input.dtype.clear();
    input.shape.clear();
  } else {
    input.dtype = tensor->dtype();
  }
  return absl::OkStatus();
}

// Random values for every input of `model` that `inputs` does not already hold.
absl::Status AddRandomInputs(const v1::ModelStatus& model, uint64_t seed, uint64_t random_max,
                             std::vector<OwnedInput>& inputs) {
  RandomInputs random(seed, random_max);
  for (const v1::TensorInfo& tensor : model.inputs()) {
    const bool given = std::any_of(inputs.begin(), inputs.end(), [&](const OwnedInput& input) {
      return input.name == tensor.name();
    });
    if (given) continue;
    absl::StatusOr<RandomTensor> made = random.TensorFor(model, tensor);
    if (!made.ok()) return made.status();
    inputs.push_back({tensor.name(), {tensor.shape().begin(), tensor.shape().end()},
                      std::move(made->values), made->dtype, std::move(made->bytes),
                      /*path=*/"", /*descr=*/""});
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

// An output's elements as numbers: float32, float16 and bfloat16 from the decoded values, fp32r
// and fp8 decoded from their bits, integers exact (int64 and uint64 as JSON integers); nullopt
// for a dtype whose elements are not known ("unknown").
std::optional<std::vector<nlohmann::json>> ElementNumbers(const client::OutputTensor& tensor) {
  std::vector<nlohmann::json> numbers;
  if (!tensor.values.empty() || tensor.bytes.empty()) {
    numbers.assign(tensor.values.begin(), tensor.values.end());
    return numbers;
  }
  const std::optional<DataType> type = DataTypeFromName(tensor.dtype);
  if (!type) return std::nullopt;
  const size_t size = DataTypeSize(*type);
  const size_t count = tensor.bytes.size() / size;
  numbers.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    uint64_t bits = 0;
    for (size_t b = 0; b < size; ++b) bits |= uint64_t{tensor.bytes[i * size + b]} << (8 * b);
    const unsigned shift = 64 - 8 * static_cast<unsigned>(size);
    switch (*type) {
      case DataType::kInt8:
      case DataType::kInt16:
      case DataType::kInt32:
      case DataType::kInt64:
        numbers.emplace_back(static_cast<int64_t>(bits << shift) >> shift);
        break;
      case DataType::kUInt8:
      case DataType::kUInt16:
      case DataType::kUInt32:
      case DataType::kUInt64:
        numbers.emplace_back(bits);
        break;
      case DataType::kFp32R:
        numbers.emplace_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
        break;
      case DataType::kFp8E3:
        numbers.emplace_back(DecodeFloat(neuronserve::kFp8E3M4Format, bits));
        break;
      case DataType::kFp8E4:
        numbers.emplace_back(DecodeFloat(neuronserve::kFp8E4M3Format, bits));
        break;
      case DataType::kFp8E5:
        numbers.emplace_back(DecodeFloat(neuronserve::kFp8E5M2Format, bits));
        break;
      default:
        return std::nullopt;
    }
  }
  return numbers;
}

std::string NumberText(const nlohmann::json& number) {
  if (number.is_number_float()) return absl::StrFormat("%.7g", number.get<double>());
  return number.dump();
}

std::string ValuesText(const client::OutputTensor& tensor) {
  const std::optional<std::vector<nlohmann::json>> numbers = ElementNumbers(tensor);
  if (!numbers) {
    return absl::StrCat("(", tensor.bytes.size(), " bytes of dtype ", tensor.dtype,
                        "; --output-dir writes them)");
  }
  std::vector<std::string> shown;
  const size_t count = numbers->size() <= kMaxPrintedValues ? numbers->size() : kCutPrintedValues;
  for (size_t i = 0; i < count; ++i) shown.push_back(NumberText((*numbers)[i]));
  std::string text = absl::StrJoin(shown, ", ");
  if (count < numbers->size()) {
    absl::StrAppend(&text, ", ... (", numbers->size(), " values; --output-dir writes them all)");
  }
  return text;
}

// Writes an output as .npy of its dtype; a dtype without one ("unknown") as '|u1' bytes with
// one more dimension, the bytes of each element.
absl::Status WriteOutput(const std::string& path, const client::OutputTensor& tensor) {
  std::vector<uint64_t> shape(tensor.shape.begin(), tensor.shape.end());
  const std::optional<DataType> type = DataTypeFromName(tensor.dtype);
  std::optional<std::string> descr = type ? NpyDescrFor(*type) : std::nullopt;
  if (!descr) {
    descr = "|u1";
    uint64_t elements = 1;
    for (uint64_t dimension : shape) elements *= dimension;
    if (elements > 0 && tensor.bytes.size() / elements != 1) {
      shape.push_back(tensor.bytes.size() / elements);
    }
  }
  return WriteNpyFile(path, shape, *descr, tensor.bytes);
}

absl::Status Report(const std::string& model, const client::InferResult& result,
                    const std::map<std::string, std::string>& files, OutputFormat format,
                    std::ostream& out) {
  const double queue_ms = absl::ToDoubleMilliseconds(result.queue_time);
  const double device_ms = absl::ToDoubleMilliseconds(result.device_time);
  if (format == OutputFormat::kJson) {
    nlohmann::json outputs = nlohmann::json::object();
    for (const auto& [name, tensor] : result.outputs) {
      nlohmann::json entry = {{"dtype", tensor.dtype}, {"shape", tensor.shape}};
      if (auto file = files.find(name); file != files.end()) {
        entry["file"] = file->second;
      } else if (std::optional<std::vector<nlohmann::json>> numbers = ElementNumbers(tensor)) {
        entry["values"] = *std::move(numbers);
      } else {
        // Elements of unknown format: their bytes, one number each.
        entry["bytes"] = tensor.bytes;
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
    out << name << " " << tensor.dtype << " " << ShapeToString(tensor.shape);
    if (auto file = files.find(name); file != files.end()) {
      out << " -> " << file->second << "\n";
    } else {
      out << "\n  " << ValuesText(tensor) << "\n";
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
  absl::StatusOr<uint64_t> random_max = GetRandomMax(args);
  if (!random_max.ok()) return random_max.status();
  absl::StatusOr<client::Protocol> protocol = GetProtocol(args);
  if (!protocol.ok()) return protocol.status();
  client::InferOptions options;
  options.raw = *raw;
  options.protocol = *protocol;
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
  // The model's dtypes: each file is checked against its input's, and --random makes up values
  // of them.
  absl::StatusOr<v1::ModelStatus> status = (*client)->GetModel(model);
  if (!status.ok()) return status.status();
  for (OwnedInput& input : inputs) {
    if (absl::Status matched = MatchModelDtype(*status, input); !matched.ok()) return matched;
  }
  if (random) {
    if (absl::Status added = AddRandomInputs(*status, *seed, *random_max, inputs); !added.ok()) {
      return added;
    }
  }

  std::vector<client::NamedTensor> tensors;
  for (const OwnedInput& input : inputs) {
    tensors.push_back({input.name, input.shape, input.values, input.dtype, input.bytes});
  }
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
      if (absl::Status written = WriteOutput(path, tensor); !written.ok()) return written;
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
