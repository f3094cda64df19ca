// libFuzzer target: a .npy file's bytes as `neuronctl infer` reads its inputs (ParseNpy).
// Checks, besides the sanitizers: a parsed array holds as many bytes as its shape and dtype say,
// and is encoded again (EncodeNpy) to a file that parses to the same array.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "base/dtype.h"
#include "client/neuronctl/npy_file.h"

namespace {

void Require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace ctl = neuronserve::neuronctl;
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<ctl::NpyArray> array = ctl::ParseNpy(bytes, "fuzzed.npy");
  if (!array.ok()) {
    Require(array.status().message().find("fuzzed.npy") != absl::string_view::npos);
    return 0;
  }
  uint64_t elements = 1;
  for (uint64_t dim : array->shape) elements *= dim;
  Require(array->bytes.size() == elements * neuronserve::DataTypeSize(array->dtype));
  const absl::StatusOr<std::string> encoded =
      ctl::EncodeNpy(array->shape, array->descr, array->bytes);
  Require(encoded.ok());
  const absl::StatusOr<ctl::NpyArray> again = ctl::ParseNpy(*encoded, "again.npy");
  Require(again.ok());
  Require(again->shape == array->shape && again->descr == array->descr &&
          again->bytes == array->bytes);
  return 0;
}
