// Every op on every dtype through the C ABI (nrt_load, tensors, nrt_execute), as the daemon
// drives the simulator. The kernels' rounding, saturation and edge cases are covered in
// compute/; here the point is that a model of any dtype loads, binds, executes and returns the
// values the op means, and that an execution-time failure (a gather index out of range) is
// NRT_EXEC_BAD_INPUT with a line naming the op and the index. Test values are small numbers that
// every dtype holds exactly, so the expected bytes are written here without any rounding code.
#include <cmath>
#include <cstring>

#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace {

struct DtypeInfo {
  const char* name;
  size_t size;
  bool is_float;
  bool is_signed;    // integers only
  int exponent_bits;  // float formats other than float32
  int mantissa_bits;
};

const DtypeInfo kDtypes[] = {
    {"float32", 4, true, true, 8, 23},   {"fp32r", 4, true, true, 8, 23},
    {"float16", 2, true, true, 5, 10},   {"bfloat16", 2, true, true, 8, 7},
    {"fp8_e3", 1, true, true, 3, 4},     {"fp8_e4", 1, true, true, 4, 3},
    {"fp8_e5", 1, true, true, 5, 2},     {"int8", 1, false, true, 0, 0},
    {"uint8", 1, false, false, 0, 0},    {"int16", 2, false, true, 0, 0},
    {"uint16", 2, false, false, 0, 0},   {"int32", 4, false, true, 0, 0},
    {"uint32", 4, false, false, 0, 0},   {"int64", 8, false, true, 0, 0},
    {"uint64", 8, false, false, 0, 0},
};

// gtest prints a parameter with this instead of its bytes.
void PrintTo(const DtypeInfo& info, std::ostream* out) { *out << info.name; }

// The bits of a value that `info` holds exactly (a small whole number or half): sign, then the
// biased exponent, then the mantissa without its leading 1. No rounding is ever needed.
uint64_t ExactBits(const DtypeInfo& info, double value) {
  if (!info.is_float) return static_cast<uint64_t>(static_cast<int64_t>(value));
  if (std::string(info.name) == "float32" || std::string(info.name) == "fp32r") {
    float f = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  }
  const uint64_t sign = value < 0 ? 1 : 0;
  const double magnitude = std::fabs(value);
  uint64_t body = 0;
  if (magnitude != 0) {
    int exponent = 0;
    const double fraction = std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^exponent
    const int bias = (1 << (info.exponent_bits - 1)) - 1;
    const uint64_t mantissa =
        static_cast<uint64_t>(std::ldexp(fraction * 2 - 1, info.mantissa_bits));
    body = (static_cast<uint64_t>(exponent - 1 + bias) << info.mantissa_bits) | mantissa;
  }
  return (sign << (info.exponent_bits + info.mantissa_bits)) | body;
}

std::string Encode(const DtypeInfo& info, const std::vector<double>& values) {
  std::string bytes(values.size() * info.size, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    const uint64_t bits = ExactBits(info, values[i]);
    std::memcpy(bytes.data() + i * info.size, &bits, info.size);  // little-endian host
  }
  return bytes;
}

json Tensor(const std::string& name, const std::string& dtype, std::vector<uint32_t> shape) {
  return json{{"name", name}, {"dtype", dtype}, {"shape", shape}};
}

class DtypeOpsTest : public SimTest, public ::testing::WithParamInterface<DtypeInfo> {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    Init();
  }
  const DtypeInfo& dtype() const { return GetParam(); }
  std::string Bytes(const std::vector<double>& values) const { return Encode(dtype(), values); }

  // One op z = op(x[, y]); x, y and z of the test's dtype unless given.
  json OneOp(const std::string& op, std::vector<uint32_t> x_shape, std::vector<uint32_t> z_shape,
             std::optional<std::vector<uint32_t>> y_shape = std::nullopt,
             json attributes = json::object(), std::string z_dtype = "") const {
    json inputs = json::array({Tensor("x", dtype().name, x_shape)});
    json op_inputs = json::array({"x"});
    if (y_shape) {
      inputs.push_back(Tensor("y", dtype().name, *y_shape));
      op_inputs.push_back("y");
    }
    json step = {{"op", op}, {"inputs", op_inputs}, {"output", "z"}};
    step.update(attributes);
    return {{"inputs", inputs},
            {"outputs", json::array({Tensor("z", z_dtype.empty() ? dtype().name : z_dtype,
                                            z_shape)})},
            {"ops", json::array({step})}};
  }
};

TEST_P(DtypeOpsTest, IdentityAndReshapeCopyTheBytes) {
  const std::string x = Bytes({1, 2, 3, 4, 5, 6});
  ModelPtr identity = MustLoad(OneOp("identity", {2, 3}, {2, 3}));
  ByteMap out;
  ASSERT_EQ(RunBytes(identity.get(), {{"x", x}}, {{"z", x.size()}}, &out), NRT_SUCCESS);
  EXPECT_EQ(out["z"], x);
  ModelPtr reshape = MustLoad(OneOp("reshape", {2, 3}, {3, 1, 2}, std::nullopt,
                                    {{"shape", {3, 1, 2}}}));
  ASSERT_EQ(RunBytes(reshape.get(), {{"x", x}}, {{"z", x.size()}}, &out), NRT_SUCCESS);
  EXPECT_EQ(out["z"], x);
}

TEST_P(DtypeOpsTest, ArithmeticWithBroadcasting) {
  // x [2,2] op y [2]: y repeats over the rows.
  const std::vector<double> x = {1, 2, 3, 4};
  const std::vector<double> y = {1, 2};
  struct Case {
    const char* op;
    std::vector<double> expected;
  };
  const Case cases[] = {
      {"add", {2, 4, 4, 6}},
      {"mul", {1, 4, 3, 8}},
      // Integers divide truncating toward zero.
      {"div", dtype().is_float ? std::vector<double>{1, 1, 3, 2} : std::vector<double>{1, 1, 3, 2}},
      {"sub", {0, 0, 2, 2}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    ModelPtr model = MustLoad(OneOp(c.op, {2, 2}, {2, 2}, std::vector<uint32_t>{2}));
    ByteMap out;
    ASSERT_EQ(RunBytes(model.get(), {{"x", Bytes(x)}, {"y", Bytes(y)}},
                       {{"z", 4 * dtype().size}}, &out),
              NRT_SUCCESS);
    EXPECT_EQ(out["z"], Bytes(c.expected));
  }
  // Halves: 3 / 2 is 1.5 for the float types and 1 for the integers.
  ModelPtr half = MustLoad(OneOp("div", {1}, {1}, std::vector<uint32_t>{1}));
  ByteMap out;
  ASSERT_EQ(RunBytes(half.get(), {{"x", Bytes({3})}, {"y", Bytes({2})}}, {{"z", dtype().size}},
                     &out),
            NRT_SUCCESS);
  EXPECT_EQ(out["z"], Bytes({dtype().is_float ? 1.5 : 1.0}));
}

TEST_P(DtypeOpsTest, ReduceSumAndMeanOverEachAxis) {
  // x [2,3] = {{1,2,3},{4,5,6}} except where a type cannot hold the sums exactly: fp8_e5 (two
  // mantissa bits) holds 5 and 7 but not 9 or 15, so it gets {{1,2,3},{3,2,1}}.
  const bool coarse = std::string(dtype().name) == "fp8_e5";
  const std::vector<double> x = coarse ? std::vector<double>{1, 2, 3, 3, 2, 1}
                                       : std::vector<double>{1, 2, 3, 4, 5, 6};
  struct Case {
    const char* op;
    uint32_t axis;
    std::vector<uint32_t> shape;
    std::vector<double> expected;
    std::vector<double> expected_coarse;
  };
  const Case cases[] = {
      {"reduce_sum", 0, {3}, {5, 7, 9}, {4, 4, 4}},
      {"reduce_sum", 1, {2}, {6, 15}, {6, 6}},
      // Integer means truncate: 15 / 3 = 5, 7 / 2 = 3; floats: 2.5, 3.5, 4.5.
      {"reduce_mean", 0, {3}, {2.5, 3.5, 4.5}, {2, 2, 2}},
      {"reduce_mean", 1, {2}, {2, 5}, {2, 2}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.op) + " axis " + std::to_string(c.axis));
    ModelPtr model = MustLoad(OneOp(c.op, {2, 3}, c.shape, std::nullopt, {{"axis", c.axis}}));
    std::vector<double> expected = coarse ? c.expected_coarse : c.expected;
    if (!dtype().is_float) {
      for (double& v : expected) v = std::trunc(v);
    }
    ByteMap out;
    ASSERT_EQ(RunBytes(model.get(), {{"x", Bytes(x)}}, {{"z", expected.size() * dtype().size}},
                       &out),
              NRT_SUCCESS);
    EXPECT_EQ(out["z"], Bytes(expected));
  }
}

TEST_P(DtypeOpsTest, MatmulAndRelu) {
  ModelPtr matmul = MustLoad(OneOp("matmul", {2, 2}, {2, 2}, std::vector<uint32_t>{2, 2}));
  ByteMap out;
  // [[1,2],[0,1]] x [[1,1],[2,0]] = [[5,1],[2,0]]
  ASSERT_EQ(RunBytes(matmul.get(), {{"x", Bytes({1, 2, 0, 1})}, {"y", Bytes({1, 1, 2, 0})}},
                     {{"z", 4 * dtype().size}}, &out),
            NRT_SUCCESS);
  EXPECT_EQ(out["z"], Bytes({5, 1, 2, 0}));

  ModelPtr relu = MustLoad(OneOp("relu", {3}, {3}));
  const std::vector<double> x = dtype().is_signed ? std::vector<double>{-2, 0, 3}
                                                  : std::vector<double>{2, 0, 3};
  const std::vector<double> expected = dtype().is_signed ? std::vector<double>{0, 0, 3}
                                                         : std::vector<double>{2, 0, 3};
  ASSERT_EQ(RunBytes(relu.get(), {{"x", Bytes(x)}}, {{"z", 3 * dtype().size}}, &out),
            NRT_SUCCESS);
  EXPECT_EQ(out["z"], Bytes(expected));
}

TEST_P(DtypeOpsTest, GatherRowsByInt32AndInt64Indices) {
  for (const char* index_type : {"int32", "int64"}) {
    SCOPED_TRACE(index_type);
    const DtypeInfo& indices =
        std::string(index_type) == "int32" ? kDtypes[11] : kDtypes[13];  // int32, int64
    json model = {{"inputs", {Tensor("table", dtype().name, {3, 2}), Tensor("ids", index_type, {1, 4})}},
                  {"outputs", {Tensor("rows", dtype().name, {1, 4, 2})}},
                  {"ops", {{{"op", "gather"}, {"inputs", {"table", "ids"}}, {"output", "rows"}}}}};
    ModelPtr loaded = MustLoad(model);
    const std::string table = Bytes({1, 2, 3, 4, 5, 6});
    ByteMap out;
    ASSERT_EQ(RunBytes(loaded.get(), {{"table", table}, {"ids", Encode(indices, {2, 0, 0, 1})}},
                       {{"rows", 8 * dtype().size}}, &out),
              NRT_SUCCESS);
    EXPECT_EQ(out["rows"], Bytes({5, 6, 1, 2, 1, 2, 3, 4}));

    for (double bad : {3.0, -1.0}) {
      testing::internal::CaptureStderr();
      const NRT_STATUS status = RunBytes(loaded.get(),
                                         {{"table", table}, {"ids", Encode(indices, {0, 1, bad, 2})}},
                                         {{"rows", 8 * dtype().size}}, &out);
      const std::string printed = testing::internal::GetCapturedStderr();
      EXPECT_EQ(status, NRT_EXEC_BAD_INPUT);
      EXPECT_NE(printed.find("nrtsim: nrt_execute: op 0 (gather): index " +
                             std::to_string(static_cast<int>(bad)) + " at position 2"),
                std::string::npos)
          << printed;
    }
  }
}

TEST_P(DtypeOpsTest, CastToAndFromEveryDtype) {
  for (const DtypeInfo& target : kDtypes) {
    SCOPED_TRACE(std::string(dtype().name) + " -> " + target.name);
    ModelPtr model =
        MustLoad(OneOp("cast", {4}, {4}, std::nullopt, {{"dtype", target.name}}, target.name));
    ByteMap out;
    ASSERT_EQ(RunBytes(model.get(), {{"x", Bytes({0, 1, 2, 7})}}, {{"z", 4 * target.size}}, &out),
              NRT_SUCCESS);
    EXPECT_EQ(out["z"], Encode(target, {0, 1, 2, 7}));
  }
}

TEST_P(DtypeOpsTest, FloatOnlyOpsAreRefusedForIntegersAndRunForFloats) {
  for (const char* op : {"tanh", "sigmoid", "softmax"}) {
    SCOPED_TRACE(op);
    ModelPtr model;
    testing::internal::CaptureStderr();
    const NRT_STATUS status = Load(OneOp(op, {2}, {2}), &model);
    const std::string printed = testing::internal::GetCapturedStderr();
    if (!dtype().is_float) {
      EXPECT_EQ(status, NRT_INVALID);
      EXPECT_NE(printed.find("takes a floating-point dtype"), std::string::npos) << printed;
      continue;
    }
    ASSERT_EQ(status, NRT_SUCCESS) << printed;
    ByteMap out;
    ASSERT_EQ(RunBytes(model.get(), {{"x", Bytes({0, 0})}}, {{"z", 2 * dtype().size}}, &out),
              NRT_SUCCESS);
    // tanh(0) = 0, sigmoid(0) = 0.5, softmax of equal values = 0.5 each.
    const double expected = std::string(op) == "tanh" ? 0.0 : 0.5;
    EXPECT_EQ(out["z"], Bytes({expected, expected}));
  }
}

INSTANTIATE_TEST_SUITE_P(EveryDtype, DtypeOpsTest, ::testing::ValuesIn(kDtypes),
                         [](const ::testing::TestParamInfo<DtypeInfo>& info) {
                           return std::string(info.param.name);
                         });

TEST_F(SimTest, ConstantsOfEveryDtypeAreEncodedInTheirDtype) {
  Init();
  for (const DtypeInfo& info : kDtypes) {
    SCOPED_TRACE(info.name);
    json model = {{"inputs", {Tensor("x", info.name, {3})}},
                  {"outputs", {Tensor("z", info.name, {3})}},
                  {"constants", {{"c", {{"shape", {3}}, {"data", {1, 2, 4}}, {"dtype", info.name}}}}},
                  {"ops", {{{"op", "add"}, {"inputs", {"x", "c"}}, {"output", "z"}}}}};
    ModelPtr loaded = MustLoad(model);
    ByteMap out;
    ASSERT_EQ(RunBytes(loaded.get(), {{"x", Encode(info, {1, 1, 2})}}, {{"z", 3 * info.size}},
                       &out),
              NRT_SUCCESS);
    EXPECT_EQ(out["z"], Encode(info, {2, 3, 6}));
  }
}

TEST_F(SimTest, IntegerConstantsMustBeWholeAndInRange) {
  Init();
  for (const auto& [dtype, data] : std::vector<std::pair<std::string, json>>{
           {"int8", {128}}, {"uint8", {-1}}, {"int32", {1.5}}, {"int64", {1e17}}}) {
    SCOPED_TRACE(dtype);
    json model = {{"inputs", {Tensor("x", dtype, {1})}},
                  {"outputs", {Tensor("z", dtype, {1})}},
                  {"constants", {{"c", {{"shape", {1}}, {"data", data}, {"dtype", dtype}}}}},
                  {"ops", {{{"op", "add"}, {"inputs", {"x", "c"}}, {"output", "z"}}}}};
    ModelPtr loaded;
    testing::internal::CaptureStderr();
    EXPECT_EQ(Load(model, &loaded), NRT_INVALID);
    EXPECT_NE(testing::internal::GetCapturedStderr().find("constant 'c': value 0"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace nrtsim_test
