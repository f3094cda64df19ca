#include "client/neuronctl/npy_file.h"

#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "util/durable_file.h"

namespace neuronserve::neuronctl {
namespace {

static_assert(std::endian::native == std::endian::little,
              ".npy '<f4' data is copied as is, which needs a little-endian host");

// The dtypes numpy itself has, which a descr read from a file names (base/dtype.h gives each its
// descr). bfloat16, fp8 and fp32r are written as their bits' descr but read back as these.
constexpr DataType kNumpyTypes[] = {
    DataType::kInt8,   DataType::kInt16,  DataType::kInt32,  DataType::kInt64,   DataType::kUInt8,
    DataType::kUInt16, DataType::kUInt32, DataType::kUInt64, DataType::kFloat16, DataType::kFloat32,
};

constexpr absl::string_view kReadableDtypes =
    "int8 to int64 ('|i1', '<i2', '<i4', '<i8'), uint8 to uint64 ('|u1', '<u2', '<u4', '<u8'), "
    "float16 ('<f2') or float32 ('<f4'); bfloat16 as '<u2' bits";

// The type a descr (without quotes) names, if neuronctl reads it: numpy's kind and size code
// after a byte order that is little-endian ('<'), native ('=', a little-endian host) or, for
// one-byte types, not applicable ('|').
std::optional<DataType> NumpyTypeOf(absl::string_view descr) {
  if (descr.size() != 3) return std::nullopt;
  const char order = descr[0];
  for (DataType type : kNumpyTypes) {
    const std::string_view own = *DataTypeNpyDescr(type);  // e.g. "<f4": compare after the order
    if (descr.substr(1) != absl::string_view(own.data() + 1, own.size() - 1)) continue;
    if (order == '<' || order == '=' || (order == '|' && DataTypeSize(type) == 1)) return type;
    return std::nullopt;
  }
  return std::nullopt;
}

std::string NormalDescr(DataType type) { return std::string(*DataTypeNpyDescr(type)); }

constexpr absl::string_view kMagic = "\x93NUMPY";
// Header blocks are padded so the data starts at a multiple of this (numpy uses 64, so that
// memory-mapped data is aligned).
constexpr size_t kHeaderAlignment = 64;
// numpy refuses headers above this size when reading; a larger one is not a real file.
constexpr size_t kMaxHeaderBytes = 1 << 20;

absl::Status Malformed(absl::string_view name, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(name, ": not a valid .npy file: ", why));
}

// The text after `'key':` in the header dict, up to the end of its value; "" if absent.
// The header is a Python dict literal with fixed keys, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
absl::string_view ValueOf(absl::string_view header, absl::string_view key) {
  const std::string quoted_single = absl::StrCat("'", key, "'");
  const std::string quoted_double = absl::StrCat("\"", key, "\"");
  size_t at = header.find(quoted_single);
  size_t key_size = quoted_single.size();
  if (at == absl::string_view::npos) {
    at = header.find(quoted_double);
    key_size = quoted_double.size();
  }
  if (at == absl::string_view::npos) return "";
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(header.substr(at + key_size));
  if (!absl::ConsumePrefix(&rest, ":")) return "";
  rest = absl::StripLeadingAsciiWhitespace(rest);
  if (rest.empty()) return "";
  // A tuple ends at its ')', a string at its closing quote, anything else at the next ','/'}'.
  size_t end;
  if (rest[0] == '(') {
    end = rest.find(')');
    if (end != absl::string_view::npos) ++end;
  } else if (rest[0] == '\'' || rest[0] == '"') {
    end = rest.find(rest[0], 1);
    if (end != absl::string_view::npos) ++end;
  } else {
    end = rest.find_first_of(",}");
  }
  if (end == absl::string_view::npos) return "";
  return absl::StripTrailingAsciiWhitespace(rest.substr(0, end));
}

absl::StatusOr<std::vector<uint64_t>> ParseShape(absl::string_view text, absl::string_view name) {
  if (!absl::ConsumePrefix(&text, "(") || !absl::ConsumeSuffix(&text, ")")) {
    return Malformed(name, absl::StrCat("shape '", text, "' is not a tuple"));
  }
  std::vector<uint64_t> shape;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    item = absl::StripAsciiWhitespace(item);
    if (item.empty()) continue;  // "(3,)" and "()"
    uint64_t dimension = 0;
    if (!absl::SimpleAtoi(item, &dimension)) {
      return Malformed(name, absl::StrCat("shape dimension '", item, "' is not a number"));
    }
    shape.push_back(dimension);
  }
  return shape;
}

}  // namespace

absl::StatusOr<NpyArray> ParseNpy(absl::string_view bytes, absl::string_view name) {
  if (bytes.size() < kMagic.size() + 2 || bytes.substr(0, kMagic.size()) != kMagic) {
    return Malformed(name, "it does not start with the .npy magic \\x93NUMPY");
  }
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_length = 0;
  size_t header_start = 0;
  if (major == 1) {
    if (bytes.size() < 10) return Malformed(name, "the header length is cut off");
    header_length = static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Malformed(name, "the header length is cut off");
    for (int i = 3; i >= 0; --i) {
      header_length = (header_length << 8) | static_cast<uint8_t>(bytes[8 + i]);
    }
    header_start = 12;
  } else {
    return Malformed(name, absl::StrCat("format version ", major, " is not 1, 2 or 3"));
  }
  if (header_length > kMaxHeaderBytes || bytes.size() - header_start < header_length) {
    return Malformed(name, "the header is cut off");
  }
  const absl::string_view header = bytes.substr(header_start, header_length);

  const absl::string_view descr = ValueOf(header, "descr");
  if (descr.empty()) return Malformed(name, "the header has no 'descr'");
  absl::string_view unquoted = descr;
  if (unquoted.size() < 2 || (unquoted[0] != '\'' && unquoted[0] != '"') ||
      unquoted.back() != unquoted[0]) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": dtype ", descr, " is not a simple dtype; neuronctl reads ", kReadableDtypes));
  }
  unquoted = unquoted.substr(1, unquoted.size() - 2);
  const std::optional<DataType> type = NumpyTypeOf(unquoted);
  if (!type) {
    const bool big_endian = absl::StartsWith(unquoted, ">");
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": dtype ", descr, big_endian ? " is big-endian" : " is not one neuronctl reads",
        "; it reads ", kReadableDtypes, ". Convert it, e.g. numpy.save(path, "
        "array.astype(numpy.float32)) or .astype('<i8')"));
  }
  const absl::string_view fortran_order = ValueOf(header, "fortran_order");
  if (fortran_order == "True") {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": the array is in Fortran (column-major) order; save it in C order, e.g. "
              "numpy.save(path, numpy.ascontiguousarray(array))"));
  }
  if (fortran_order != "False") return Malformed(name, "the header has no 'fortran_order'");
  const absl::string_view shape_text = ValueOf(header, "shape");
  if (shape_text.empty()) return Malformed(name, "the header has no 'shape'");
  absl::StatusOr<std::vector<uint64_t>> shape = ParseShape(shape_text, name);
  if (!shape.ok()) return shape.status();

  uint64_t elements = 1;
  for (uint64_t dimension : *shape) {
    if (dimension != 0 && elements > UINT64_MAX / 8 / dimension) {
      return Malformed(name, "the shape is too large");
    }
    elements *= dimension;
  }
  const absl::string_view data = bytes.substr(header_start + header_length);
  const size_t size = DataTypeSize(*type);
  if (data.size() != elements * size) {
    return Malformed(name,
                     absl::StrCat("shape (", absl::StrJoin(*shape, ", "), ") of ",
                                  std::string(DataTypeName(*type)), " needs ", elements * size,
                                  " bytes of data, the file has ", data.size()));
  }
  NpyArray array;
  array.shape = *std::move(shape);
  array.descr = NormalDescr(*type);
  array.dtype = *type;
  array.bytes.assign(data.begin(), data.end());
  if (*type == DataType::kFloat32) {
    array.values.resize(elements);
    if (elements > 0) std::memcpy(array.values.data(), data.data(), data.size());
  }
  return array;
}

std::optional<std::string> NpyDescrFor(DataType type) {
  const std::optional<std::string_view> descr = DataTypeNpyDescr(type);
  if (!descr) return std::nullopt;
  return std::string(*descr);
}

absl::StatusOr<std::string> EncodeNpy(absl::Span<const uint64_t> shape,
                                      absl::Span<const float> values) {
  return EncodeNpy(shape, "<f4",
                   absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()),
                                             values.size() * sizeof(float)));
}

absl::StatusOr<std::string> EncodeNpy(absl::Span<const uint64_t> shape, absl::string_view descr,
                                      absl::Span<const uint8_t> data) {
  const std::optional<DataType> type = NumpyTypeOf(descr);
  if (!type) {
    return absl::InvalidArgumentError(
        absl::StrCat("dtype '", descr, "' is not one of ", kReadableDtypes));
  }
  const size_t size = DataTypeSize(*type);
  uint64_t elements = 1;
  for (uint64_t dimension : shape) elements *= dimension;
  if (elements * size != data.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape (", absl::StrJoin(shape, ", "), ") has ", elements, " elements, given ",
                     data.size() / size, data.size() % size == 0 ? "" : " and a part"));
  }
  std::string shape_text = absl::StrJoin(shape, ", ");
  if (shape.size() == 1) shape_text += ",";  // Python's one-element tuple
  std::string header = absl::StrCat("{'descr': '", NormalDescr(*type),
                                    "', 'fortran_order': False, 'shape': (", shape_text, "), }");
  // Magic (6) + version (2) + length (2) + header + '\n', padded with spaces to the alignment.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((kHeaderAlignment - unpadded % kHeaderAlignment) % kHeaderAlignment, ' ');
  header += '\n';
  std::string bytes(kMagic);
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(data.data()), data.size());
  return bytes;
}

absl::StatusOr<NpyArray> ReadNpyFile(const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    return absl::FailedPreconditionError(absl::StrCat(path, " is a directory, not a .npy file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    const std::string message = absl::StrCat("cannot open ", path, ": ", std::strerror(error));
    if (error == ENOENT) return absl::NotFoundError(message);
    if (error == EACCES) return absl::PermissionDeniedError(message);
    return absl::FailedPreconditionError(message);
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("cannot read ", path));
  return ParseNpy(contents.str(), path);
}

absl::Status WriteNpyFile(const std::string& path, absl::Span<const uint64_t> shape,
                          absl::Span<const float> values) {
  absl::StatusOr<std::string> bytes = EncodeNpy(shape, values);
  if (!bytes.ok()) return bytes.status();
  return WriteFileAtomically(path, *bytes);
}

absl::Status WriteNpyFile(const std::string& path, absl::Span<const uint64_t> shape,
                          absl::string_view descr, absl::Span<const uint8_t> data) {
  absl::StatusOr<std::string> bytes = EncodeNpy(shape, descr, data);
  if (!bytes.ok()) return bytes.status();
  return WriteFileAtomically(path, *bytes);
}

}  // namespace neuronserve::neuronctl
