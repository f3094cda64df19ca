#include "tests/e2e/dtype_samples.h"

#include "absl/strings/str_cat.h"
#include "client/simmodel/identity_model.h"
#include "gtest/gtest.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/sim/compute/reference_formats.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {

using ::neuronserve::nrtsim::compute::testing::ReferenceBFloat16Bits;
using ::neuronserve::nrtsim::compute::testing::ReferenceFloat16Bits;

const DataType kEveryDtype[15] = {
    DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16, DataType::kFp32R,
    DataType::kFp8E3,   DataType::kFp8E4,   DataType::kFp8E5,    DataType::kInt8,
    DataType::kUInt8,   DataType::kInt16,   DataType::kUInt16,   DataType::kInt32,
    DataType::kUInt32,  DataType::kInt64,   DataType::kUInt64};

std::vector<double> SampleValues(DataType dtype) {
  switch (dtype) {
    case DataType::kInt8:
      return {-128, -1, 0, 1, 2, 127};
    case DataType::kUInt8:
      return {0, 1, 2, 100, 254, 255};
    case DataType::kInt16:
      return {-32768, -1, 0, 1, 300, 32767};
    case DataType::kUInt16:
      return {0, 1, 2, 300, 65534, 65535};
    case DataType::kInt32:
      return {-2147483648.0, -1, 0, 1, 70000, 2147483647.0};
    case DataType::kUInt32:
      return {0, 1, 2, 70000, 4294967294.0, 4294967295.0};
    case DataType::kInt64:
      return {-9007199254740992.0, -1, 0, 1, 5000000000.0, 9007199254740992.0};
    case DataType::kUInt64:
      return {0, 1, 2, 5000000000.0, 9007199254740992.0, 18446744073709549568.0};
    case DataType::kFloat16:
      return {-65504, -2.5, 0, 0.5, 0x1p-24, 65504};
    case DataType::kBFloat16:
      return {-3.3895313892515355e38, -2.5, 0, 0.5, 0x1p-133, 1.5};
    default:  // float32, fp32r and the fp8s travel as raw bytes below
      return {-0x1p100, -2.5, 0, 0.5, 0x1p-149, 3.4028234663852886e38};
  }
}

namespace {
template <typename T>
void Append(std::string& bytes, T value) {
  bytes.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

}  // namespace

std::string ElementBytes(DataType dtype, const std::vector<double>& values) {
  std::string bytes;
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    switch (dtype) {
      case DataType::kInt8: Append(bytes, static_cast<int8_t>(v)); break;
      case DataType::kUInt8: Append(bytes, static_cast<uint8_t>(v)); break;
      case DataType::kInt16: Append(bytes, static_cast<int16_t>(v)); break;
      case DataType::kUInt16: Append(bytes, static_cast<uint16_t>(v)); break;
      case DataType::kInt32: Append(bytes, static_cast<int32_t>(v)); break;
      case DataType::kUInt32: Append(bytes, static_cast<uint32_t>(v)); break;
      case DataType::kInt64: Append(bytes, static_cast<int64_t>(v)); break;
      case DataType::kUInt64: Append(bytes, static_cast<uint64_t>(v)); break;
      case DataType::kFloat16: Append(bytes, ReferenceFloat16Bits(v)); break;
      case DataType::kBFloat16: Append(bytes, ReferenceBFloat16Bits(static_cast<float>(v))); break;
      case DataType::kFp8E3:
      case DataType::kFp8E4:
      case DataType::kFp8E5:
        Append(bytes, static_cast<uint8_t>(0x11 * i + 1));  // patterns, none of them NaN
        break;
      default: Append(bytes, static_cast<float>(v)); break;
    }
  }
  return bytes;
}

std::string ModelNameFor(DataType dtype) {
  return absl::StrCat("id_", std::string(DataTypeName(dtype)));
}

void LoadIdentity(v1::NeuronServing::Stub& stub, DataType dtype, std::vector<int64_t> shape) {
  simmodel::IdentityOptions options;
  options.shape = std::move(shape);
  options.dtype = dtype;
  absl::StatusOr<simmodel::SimModel> model = simmodel::BuildIdentityModel(options);
  ASSERT_TRUE(model.ok()) << model.status();
  v1::ModelConfig config = Config(ModelNameFor(dtype));
  config.set_shared(true);  // fifteen small models on two cores
  LoadResult loaded = Upload(stub, config, EncodeNeff(*model));
  ASSERT_TRUE(loaded.status.ok()) << DataTypeName(dtype) << ": "
                                  << loaded.status.error_message();
}

}  // namespace neuronserve::testing
