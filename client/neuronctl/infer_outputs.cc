#include "client/neuronctl/infer_outputs.h"

#include <bit>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/dtype.h"
#include "base/float_formats.h"
#include "base/shape.h"
#include "client/lib/element_bytes.h"
#include "client/neuronctl/npy_file.h"
#include "nlohmann/json.hpp"

namespace neuronserve::neuronctl {
namespace {

// Outputs up to this many values are printed whole; longer ones are cut, pointing at
// --output-dir (a terminal is no place for a million floats).
constexpr size_t kMaxPrintedValues = 64;
constexpr size_t kCutPrintedValues = 16;

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
  const NumberKind kind = DataTypeNumberKind(*type);
  if (kind == NumberKind::kNone) return std::nullopt;
  const std::optional<FloatFormat> format = DataTypeNarrowFloatFormat(*type);
  const size_t size = DataTypeSize(*type);
  const size_t count = tensor.bytes.size() / size;
  numbers.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t bits = client::LoadLittleEndian(&tensor.bytes[i * size], size);
    if (kind == NumberKind::kSigned) {
      numbers.emplace_back(client::SignExtend(bits, size));
    } else if (kind == NumberKind::kUnsigned) {
      numbers.emplace_back(bits);
    } else if (format) {
      numbers.emplace_back(DecodeFloat(*format, static_cast<uint32_t>(bits)));
    } else {
      numbers.emplace_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));  // float32 bits
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

}  // namespace

absl::StatusOr<std::map<std::string, std::string>> WriteOutputs(const std::string& dir,
                                                                const client::InferResult& result) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create --output-dir ", dir, ": ", error.message()));
  }
  std::map<std::string, std::string> files;
  for (const auto& [name, tensor] : result.outputs) {
    const std::string path = (std::filesystem::path(dir) / OutputFileName(name)).string();
    if (absl::Status written = WriteOutput(path, tensor); !written.ok()) return written;
    files[name] = path;
  }
  return files;
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

}  // namespace neuronserve::neuronctl
