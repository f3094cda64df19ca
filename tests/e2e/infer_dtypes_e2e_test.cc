// Tensors of every dtype through the real daemon: the BERT-shaped classifier (int64 ids and mask
// in, float32 and float16 logits out) against a reference computed here over 10,000 requests;
// identity models of all 15 dtypes in every form each accepts and returns; float_data narrowed
// to float16 and bfloat16 against reference conversions; and the errors of a request whose
// values do not fit the tensor.
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "client/simmodel/classifier_model.h"
#include "client/simmodel/identity_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/dtype_samples.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/sim/compute/reference_formats.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace infer_dtypes_e2e_test {
namespace {

using ::neuronserve::nrtsim::compute::testing::ReferenceBFloat16Bits;
using ::neuronserve::nrtsim::compute::testing::ReferenceFloat16Bits;
using ::testing::HasSubstr;

// ---- The classifier ----

constexpr int64_t kVocab = kClassifierVocab;
constexpr int64_t kSequence = kClassifierSequence;
constexpr int64_t kClasses = kClassifierClasses;

struct Tokens {
  std::vector<int64_t> ids;
  std::vector<int64_t> mask;
};

Tokens RandomTokens(std::mt19937& random) {
  std::uniform_int_distribution<int64_t> id(0, kVocab - 1);
  std::uniform_int_distribution<int> length(1, kSequence);
  Tokens tokens;
  const int kept = length(random);  // a padded sentence: the first `kept` positions count
  for (int64_t s = 0; s < kSequence; ++s) {
    tokens.ids.push_back(s < kept ? id(random) : 0);
    tokens.mask.push_back(s < kept ? 1 : 0);
  }
  return tokens;
}

enum class Form { kTyped, kRaw };

v1::InferRequest ClassifierRequest(const Tokens& tokens, Form form, const std::string& id) {
  v1::InferRequest request;
  request.set_model("classifier");
  request.set_id(id);
  for (const auto& [name, values] :
       {std::pair{simmodel::kClassifierIds, &tokens.ids},
        std::pair{simmodel::kClassifierMask, &tokens.mask}}) {
    v1::InputTensor* input = request.add_inputs();
    input->set_name(name);
    if (form == Form::kRaw) {
      input->mutable_raw_data()->assign(reinterpret_cast<const char*>(values->data()),
                                        values->size() * sizeof(int64_t));
    } else {
      input->set_dtype("int64");
      input->add_shape(1);
      input->add_shape(kSequence);
      input->mutable_int64_data()->Add(values->begin(), values->end());
    }
  }
  return request;
}

// The float16 output's bits, in whichever form they came.
std::vector<uint16_t> Float16Bits(const v1::OutputTensor& output) {
  std::vector<uint16_t> bits;
  if (!output.raw_data().empty()) {
    bits.resize(output.raw_data().size() / 2);
    std::memcpy(bits.data(), output.raw_data().data(), bits.size() * 2);
    return bits;
  }
  // float_data of a float16 output holds its values exactly: re-encoding loses nothing.
  for (float value : output.float_data()) bits.push_back(ReferenceFloat16Bits(value));
  return bits;
}

// Counts the mismatches of one classifier answer, reporting the first of each.
int ClassifierMismatches(const simmodel::SimModel& model, const Tokens& tokens,
                         const v1::InferResponse& response, Form form) {
  if (response.outputs_size() != 2) {
    ADD_FAILURE() << response.id() << ": outputs " << response.outputs_size();
    return 1;
  }
  const v1::OutputTensor& logits = response.outputs(0);
  const v1::OutputTensor& half = response.outputs(1);
  if (logits.name() != simmodel::kClassifierLogits || logits.dtype() != "float32" ||
      half.name() != simmodel::kClassifierLogitsFp16 || half.dtype() != "float16") {
    ADD_FAILURE() << response.id() << ": outputs " << logits.name() << " " << logits.dtype()
                  << ", " << half.name() << " " << half.dtype();
    return 1;
  }
  if ((form == Form::kRaw) != !logits.raw_data().empty() ||
      (form == Form::kRaw) != !half.raw_data().empty()) {
    ADD_FAILURE() << response.id() << ": the answer is not in the request's form";
    return 1;
  }
  const std::vector<float> got = OutputValues(logits);
  const std::vector<double> want = ClassifierReference(model, tokens.ids, tokens.mask);
  const std::vector<uint16_t> half_bits = Float16Bits(half);
  if (got.size() != want.size() || half_bits.size() != want.size()) {
    ADD_FAILURE() << response.id() << ": " << got.size() << " logits and " << half_bits.size()
                  << " float16 logits, want " << want.size();
    return 1;
  }
  for (size_t c = 0; c < want.size(); ++c) {
    if (std::abs(got[c] - want[c]) > 1e-5 + 1e-5 * std::abs(want[c])) {
      ADD_FAILURE() << response.id() << " logit " << c << ": got " << got[c] << ", want "
                    << want[c];
      return 1;
    }
    if (half_bits[c] != ReferenceFloat16Bits(got[c])) {
      ADD_FAILURE() << response.id() << " float16 logit " << c << ": got 0x" << std::hex
                    << half_bits[c] << ", want 0x" << ReferenceFloat16Bits(got[c])
                    << " (the float32 logit " << got[c] << " rounded)";
      return 1;
    }
  }
  return 0;
}

TEST(InferDtypesE2ETest, ClassifierMatchesAReferenceOver10000Requests) {
  START_DAEMON(daemon, SimDaemonArgs({}, {{"NRTSIM_CORES", "2"}}));
  const simmodel::SimModel model = ExampleClassifier();
  v1::ModelConfig config = Config("classifier");
  config.set_replicas(2);
  LoadResult loaded = Upload(*daemon->stub, config, EncodeNeff(model));
  ASSERT_TRUE(loaded.status.ok()) << loaded.status.error_message();

  constexpr int kPerMode = 2500;  // unary/stream x typed/raw
  std::atomic<int> mismatches{0};
  std::atomic<int> checked{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&, t] {
      std::mt19937 random(500 + t);
      const Form form = t % 2 == 0 ? Form::kTyped : Form::kRaw;
      for (int i = 0; i < kPerMode / 2; ++i) {
        const Tokens tokens = RandomTokens(random);
        const v1::InferRequest request = ClassifierRequest(tokens, form, absl::StrCat(t, "-", i));
        v1::InferResponse response;
        grpc::Status status = Infer(*daemon->stub, request, &response);
        if (!status.ok()) {
          ADD_FAILURE() << status.error_message();
          ++mismatches;
          continue;
        }
        mismatches += ClassifierMismatches(model, tokens, response, form);
        ++checked;
      }
    });
  }
  for (std::thread& client : clients) client.join();

  for (Form form : {Form::kTyped, Form::kRaw}) {
    std::mt19937 random(form == Form::kTyped ? 71 : 72);
    std::vector<v1::InferRequest> requests;
    std::map<std::string, Tokens> sent;
    for (int i = 0; i < kPerMode; ++i) {
      const std::string id = absl::StrCat("s", static_cast<int>(form), "-", i);
      sent[id] = RandomTokens(random);
      requests.push_back(ClassifierRequest(sent[id], form, id));
    }
    grpc::Status status;
    std::vector<v1::InferResponse> responses = RunStream(*daemon->stub, requests, &status);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(responses.size(), requests.size());
    for (const v1::InferResponse& response : responses) {
      ASSERT_EQ(response.error().code(), 0) << response.error().message();
      ASSERT_EQ(sent.count(response.id()), 1u) << response.id();
      mismatches += ClassifierMismatches(model, sent[response.id()], response, form);
      ++checked;
    }
  }
  EXPECT_EQ(checked.load(), 4 * kPerMode);
  EXPECT_EQ(mismatches.load(), 0);

  // The float16 output alone in the typed form comes as float_data, exactly the rounded logits.
  std::mt19937 random(9);
  const Tokens tokens = RandomTokens(random);
  v1::InferRequest request = ClassifierRequest(tokens, Form::kRaw, "typed");
  request.set_response_form(v1::TENSOR_FORM_TYPED);
  v1::InferResponse response;
  ASSERT_TRUE(Infer(*daemon->stub, request, &response).ok());
  ASSERT_EQ(response.outputs_size(), 2);
  EXPECT_TRUE(response.outputs(1).raw_data().empty());
  ASSERT_EQ(response.outputs(1).float_data_size(), kClasses);
  EXPECT_EQ(ClassifierMismatches(model, tokens, response, Form::kTyped), 0);
}

template <typename T>
void AddAll(google::protobuf::RepeatedField<T>& field, std::initializer_list<std::type_identity_t<T>> values) {
  field.Add(values.begin(), values.end());
}

// ---- Identity models of every dtype ----

// The field each dtype travels in besides raw_data, as docs/native-api.md's table says.
enum class Field { kRaw, kFloat, kInt32, kUInt32, kInt64, kUInt64 };

Field TypedField(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32:
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return Field::kFloat;
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
      return Field::kInt32;
    case DataType::kUInt8:
    case DataType::kUInt16:
    case DataType::kUInt32:
      return Field::kUInt32;
    case DataType::kInt64:
      return Field::kInt64;
    case DataType::kUInt64:
      return Field::kUInt64;
    default:
      return Field::kRaw;
  }
}

// Fills the typed field of `dtype` in `tensor` with `values`.
template <typename Tensor>
void SetTypedValues(Tensor& tensor, DataType dtype, const std::vector<double>& values) {
  for (double v : values) {
    switch (TypedField(dtype)) {
      case Field::kFloat: tensor.add_float_data(static_cast<float>(v)); break;
      case Field::kInt32: tensor.add_int32_data(static_cast<int32_t>(v)); break;
      case Field::kUInt32: tensor.add_uint32_data(static_cast<uint32_t>(v)); break;
      case Field::kInt64: tensor.add_int64_data(static_cast<int64_t>(v)); break;
      case Field::kUInt64: tensor.add_uint64_data(static_cast<uint64_t>(v)); break;
      case Field::kRaw: break;
    }
  }
}

// The values of the typed field `field` of `output`, as doubles; empty when another field came.
std::vector<double> TypedValues(const v1::OutputTensor& output, Field field) {
  switch (field) {
    case Field::kFloat: return {output.float_data().begin(), output.float_data().end()};
    case Field::kInt32: return {output.int32_data().begin(), output.int32_data().end()};
    case Field::kUInt32: return {output.uint32_data().begin(), output.uint32_data().end()};
    case Field::kInt64: return {output.int64_data().begin(), output.int64_data().end()};
    case Field::kUInt64: return {output.uint64_data().begin(), output.uint64_data().end()};
    case Field::kRaw: break;
  }
  return {};
}

// How many value fields of `output` are filled: exactly one, always.
int FilledFields(const v1::OutputTensor& output) {
  return !output.raw_data().empty() + (output.float_data_size() > 0) +
         (output.int32_data_size() > 0) + (output.uint32_data_size() > 0) +
         (output.int64_data_size() > 0) + (output.uint64_data_size() > 0);
}

TEST(InferDtypesE2ETest, IdentityModelsOfEveryDtypeRoundTripInEveryForm) {
  START_DAEMON(daemon, SimDaemonArgs());
  for (DataType dtype : kEveryDtype) LoadIdentity(*daemon->stub, dtype, {2, 3});
  int checked = 0;
  for (DataType dtype : kEveryDtype) {
    SCOPED_TRACE(DataTypeName(dtype));
    const std::vector<double> values = SampleValues(dtype);
    const std::string bytes = ElementBytes(dtype, values);
    const Field typed = TypedField(dtype);
    std::vector<Field> input_fields = {Field::kRaw};
    if (typed != Field::kRaw) input_fields.push_back(typed);
    std::vector<v1::TensorForm> forms = {v1::TENSOR_FORM_UNSPECIFIED, v1::TENSOR_FORM_RAW,
                                         v1::TENSOR_FORM_TYPED};
    if (typed == Field::kFloat) forms.push_back(v1::TENSOR_FORM_FLOAT);
    for (Field input_field : input_fields) {
      for (v1::TensorForm form : forms) {
        v1::InferRequest request;
        request.set_model(ModelNameFor(dtype));
        v1::InputTensor* input = request.add_inputs();
        input->set_name("input");
        input->set_dtype(std::string(DataTypeName(dtype)));
        input->add_shape(2);
        input->add_shape(3);
        if (input_field == Field::kRaw) {
          input->set_raw_data(bytes);
        } else {
          SetTypedValues(*input, dtype, values);
        }
        request.set_response_form(form);
        v1::InferResponse response;
        grpc::Status status = Infer(*daemon->stub, request, &response);
        ASSERT_TRUE(status.ok()) << "form " << form << ": " << status.error_message();
        ASSERT_EQ(response.outputs_size(), 1);
        const v1::OutputTensor& output = response.outputs(0);
        EXPECT_EQ(output.dtype(), DataTypeName(dtype));
        EXPECT_EQ(FilledFields(output), 1);
        const bool raw_answer =
            form == v1::TENSOR_FORM_RAW || typed == Field::kRaw ||
            (form == v1::TENSOR_FORM_UNSPECIFIED && input_field == Field::kRaw);
        if (raw_answer) {
          EXPECT_EQ(output.raw_data(), bytes) << "form " << form;
        } else {
          EXPECT_EQ(TypedValues(output, typed), values) << "form " << form;
        }
        ++checked;
      }
    }
  }
  // 15 raw-only and typed inputs x 3 forms, plus the float form of the three float dtypes.
  EXPECT_EQ(checked, 15 * 3 + 11 * 3 + 3 * 2);
}

TEST(InferDtypesE2ETest, ValuesThatDoNotFitTheTensorAreInvalidArgumentNamingIt) {
  START_DAEMON(daemon, SimDaemonArgs());
  LoadIdentity(*daemon->stub, DataType::kInt8, {4});
  LoadIdentity(*daemon->stub, DataType::kInt64, {4});
  struct Case {
    std::string what;
    std::string model;
    std::function<void(v1::InputTensor&)> fill;
    std::vector<std::string> message;
  };
  const std::vector<Case> cases = {
      {"a field of another dtype", "id_int8",
       [](v1::InputTensor& t) { AddAll(*t.mutable_int64_data(), {1, 2, 3, 4}); },
       {"model 'id_int8' input 'input' is int8", "int64_data cannot carry it",
        "int32_data (4 values) or raw_data (4 bytes)"}},
      {"the wrong element count", "id_int64",
       [](v1::InputTensor& t) { AddAll(*t.mutable_int64_data(), {1, 2, 3}); },
       {"model 'id_int64' input 'input'", "expected 4 int64 values in int64_data", "got 3"}},
      {"the wrong byte size", "id_int64",
       [](v1::InputTensor& t) { t.set_raw_data(std::string(31, '\0')); },
       {"model 'id_int64' input 'input'", "expected 32 bytes of raw_data", "got 31 bytes"}},
      {"an integer out of range", "id_int8",
       [](v1::InputTensor& t) { AddAll(*t.mutable_int32_data(), {0, -129, 0, 0}); },
       {"model 'id_int8' input 'input' is int8", "int32_data[1] = -129",
        "outside its range [-128, 127]"}},
      {"a stated dtype that is not the tensor's", "id_int64",
       [](v1::InputTensor& t) {
         t.set_dtype("int32");
         AddAll(*t.mutable_int64_data(), {1, 2, 3, 4});
       },
       {"model 'id_int64' input 'input' is int64, but the request says int32"}},
      {"float_data for an integer tensor", "id_int64",
       [](v1::InputTensor& t) { AddAll(*t.mutable_float_data(), {1, 2, 3, 4}); },
       {"is int64: float_data cannot carry it"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    v1::InferRequest request;
    request.set_model(c.model);
    v1::InputTensor* input = request.add_inputs();
    input->set_name("input");
    c.fill(*input);
    grpc::Status status = Infer(*daemon->stub, request, nullptr);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    for (const std::string& part : c.message) {
      EXPECT_THAT(status.error_message(), HasSubstr(part));
    }
  }
  // The float form cannot carry an integer output.
  v1::InferRequest request;
  request.set_model("id_int64");
  v1::InputTensor* input = request.add_inputs();
  input->set_name("input");
  AddAll(*input->mutable_int64_data(), {1, 2, 3, 4});
  request.set_response_form(v1::TENSOR_FORM_FLOAT);
  grpc::Status status = Infer(*daemon->stub, request, nullptr);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("model 'id_int64' output 'output' is int64: float_data cannot carry it"));
  // And the daemon goes on serving.
  request.set_response_form(v1::TENSOR_FORM_TYPED);
  v1::InferResponse response;
  ASSERT_TRUE(Infer(*daemon->stub, request, &response).ok());
  EXPECT_THAT(response.outputs(0).int64_data(), ::testing::ElementsAre(1, 2, 3, 4));
}

// Values where a careless conversion goes wrong: NaNs, infinities, overflow, subnormals and the
// ties between two neighbours (each rounds to the even one).
std::vector<float> HardFloats() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  return {nan, -nan, inf, -inf, 0.0f, -0.0f, 65504.0f, 65519.0f, 65520.0f, -70000.0f,
          0x1p-24f, 0x1p-25f, 0x1.8p-24f, 0x1.8p-25f, 0x1p-14f, 0x1.ff8p-15f,
          1.0f + 0x1p-11f, 1.0f + 0x3p-11f, 1.0f + 0x1p-8f, 1.0f + 0x3p-8f, 0x1p-133f,
          0x1p-126f, 0x1.fffffep127f, 3.14159265f, -1e-40f, 1e-45f, 0x1.0101p0f, 0x1.0081p0f};
}

TEST(InferDtypesE2ETest, FloatDataIntoFloat16AndBFloat16MatchesAReferenceConversion) {
  START_DAEMON(daemon, SimDaemonArgs());
  const std::vector<float> values = HardFloats();
  const int64_t count = static_cast<int64_t>(values.size());
  LoadIdentity(*daemon->stub, DataType::kFloat16, {count});
  LoadIdentity(*daemon->stub, DataType::kBFloat16, {count});
  for (DataType dtype : {DataType::kFloat16, DataType::kBFloat16}) {
    SCOPED_TRACE(DataTypeName(dtype));
    v1::InferRequest request;
    request.set_model(ModelNameFor(dtype));
    v1::InputTensor* input = request.add_inputs();
    input->set_name("input");
    input->mutable_float_data()->Add(values.begin(), values.end());
    request.set_response_form(v1::TENSOR_FORM_RAW);
    v1::InferResponse response;
    grpc::Status status = Infer(*daemon->stub, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    const std::string& raw = response.outputs(0).raw_data();
    ASSERT_EQ(raw.size(), values.size() * 2);
    for (size_t i = 0; i < values.size(); ++i) {
      uint16_t got;
      std::memcpy(&got, raw.data() + 2 * i, 2);
      const uint16_t want = dtype == DataType::kFloat16 ? ReferenceFloat16Bits(values[i])
                                                        : ReferenceBFloat16Bits(values[i]);
      if (std::isnan(values[i])) {
        // Any quiet NaN of the same sign: payloads are not part of the contract.
        const uint16_t exponent = dtype == DataType::kFloat16 ? 0x7c00 : 0x7f80;
        EXPECT_EQ(got & exponent, exponent) << i;
        EXPECT_NE(got & ~exponent & 0x7fff, 0) << i;
        EXPECT_EQ(got & 0x8000, want & 0x8000) << i;
      } else {
        EXPECT_EQ(got, want) << "value " << i << " (" << values[i] << "): got 0x" << std::hex
                             << got << ", want 0x" << want;
      }
    }
    // Back in the typed form the output converts exactly: each value is the rounded one.
    request.set_response_form(v1::TENSOR_FORM_TYPED);
    ASSERT_TRUE(Infer(*daemon->stub, request, &response).ok());
    ASSERT_EQ(response.outputs(0).float_data_size(), count);
    for (size_t i = 0; i < values.size(); ++i) {
      const float back = response.outputs(0).float_data(static_cast<int>(i));
      if (std::isnan(values[i])) {
        EXPECT_TRUE(std::isnan(back)) << i;
        continue;
      }
      const uint16_t again = dtype == DataType::kFloat16 ? ReferenceFloat16Bits(back)
                                                         : ReferenceBFloat16Bits(back);
      const uint16_t want = dtype == DataType::kFloat16 ? ReferenceFloat16Bits(values[i])
                                                        : ReferenceBFloat16Bits(values[i]);
      EXPECT_EQ(again, want) << "value " << i;
    }
  }
}

}  // namespace
}  // namespace infer_dtypes_e2e_test
}  // namespace neuronserve::testing
