// nrt_execute computes what each op means: expected values are computed here, independently.
#include <cmath>
#include <random>

#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace {

class ExecuteTest : public SimTest {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    Init();
  }

  // One op over input x (and optionally y) to output z, all float32.
  static json OneOpModel(const std::string& op, std::vector<uint32_t> x_shape,
                         std::vector<uint32_t> z_shape,
                         std::optional<std::vector<uint32_t>> y_shape = std::nullopt) {
    json inputs = json::array({Float32("x", x_shape)});
    json op_inputs = json::array({"x"});
    if (y_shape) {
      inputs.push_back(Float32("y", *y_shape));
      op_inputs.push_back("y");
    }
    return {{"inputs", inputs},
            {"outputs", json::array({Float32("z", z_shape)})},
            {"ops", json::array({{{"op", op}, {"inputs", op_inputs}, {"output", "z"}}})}};
  }

  std::vector<float> RunOneOp(const json& model, const FloatMap& inputs, size_t out_count) {
    ModelPtr loaded = MustLoad(model);
    FloatMap outputs;
    EXPECT_EQ(Run(loaded.get(), 0, inputs, {{"z", out_count}}, &outputs), NRT_SUCCESS);
    return outputs["z"];
  }
};

std::vector<float> RandomFloats(size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> values(count);
  for (float& v : values) v = dist(rng);
  return values;
}

TEST_F(ExecuteTest, IdentityCopiesTheInput) {
  std::vector<float> x = {1.5f, -2.0f, 3.25f, 0.0f};
  EXPECT_EQ(RunOneOp(OneOpModel("identity", {2, 2}, {2, 2}), {{"x", x}}, 4), x);
}

TEST_F(ExecuteTest, Relu) {
  EXPECT_EQ(RunOneOp(OneOpModel("relu", {4}, {4}), {{"x", {-1.0f, 0.0f, 2.5f, -0.5f}}}, 4),
            (std::vector<float>{0.0f, 0.0f, 2.5f, 0.0f}));
}

TEST_F(ExecuteTest, TanhAndSigmoid) {
  std::vector<float> x = {-3.0f, -0.5f, 0.0f, 0.5f, 40.0f, -40.0f};
  std::vector<float> tanh = RunOneOp(OneOpModel("tanh", {6}, {6}), {{"x", x}}, 6);
  std::vector<float> sigmoid = RunOneOp(OneOpModel("sigmoid", {6}, {6}), {{"x", x}}, 6);
  ASSERT_EQ(tanh.size(), 6u);
  ASSERT_EQ(sigmoid.size(), 6u);
  for (size_t i = 0; i < x.size(); ++i) {
    double e = std::exp(2.0 * x[i]);
    double expected_tanh = std::isinf(e) ? 1.0 : (e - 1.0) / (e + 1.0);
    EXPECT_NEAR(tanh[i], expected_tanh, 1e-6) << x[i];
    EXPECT_NEAR(sigmoid[i], 1.0 / (1.0 + std::exp(-static_cast<double>(x[i]))), 1e-6) << x[i];
  }
  EXPECT_EQ(sigmoid[2], 0.5f);
}

TEST_F(ExecuteTest, MatmulSmallCase) {
  // [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] = [[58,64],[139,154]]
  EXPECT_EQ(RunOneOp(OneOpModel("matmul", {2, 3}, {2, 2}, std::vector<uint32_t>{3, 2}),
                     {{"x", {1, 2, 3, 4, 5, 6}}, {"y", {7, 8, 9, 10, 11, 12}}}, 4),
            (std::vector<float>{58, 64, 139, 154}));
}

TEST_F(ExecuteTest, MatmulRandomAgainstDoubleReference) {
  constexpr size_t m = 9, k = 33, n = 5;
  std::mt19937 rng(7);
  std::vector<float> a = RandomFloats(m * k, rng);
  std::vector<float> b = RandomFloats(k * n, rng);
  std::vector<float> c = RunOneOp(OneOpModel("matmul", {m, k}, {m, n}, std::vector<uint32_t>{k, n}),
                                  {{"x", a}, {"y", b}}, m * n);
  ASSERT_EQ(c.size(), m * n);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      double expected = 0, magnitude = 0;
      for (size_t p = 0; p < k; ++p) {
        expected += static_cast<double>(a[i * k + p]) * b[p * n + j];
        magnitude += std::abs(static_cast<double>(a[i * k + p]) * b[p * n + j]);
      }
      EXPECT_NEAR(c[i * n + j], expected, 1e-5 * magnitude + 1e-6) << i << "," << j;
    }
  }
}

TEST_F(ExecuteTest, AddAndMulOnEqualShapes) {
  FloatMap in = {{"x", {1, 2, 3, 4}}, {"y", {10, 20, 30, 40}}};
  EXPECT_EQ(RunOneOp(OneOpModel("add", {2, 2}, {2, 2}, std::vector<uint32_t>{2, 2}), in, 4),
            (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(RunOneOp(OneOpModel("mul", {2, 2}, {2, 2}, std::vector<uint32_t>{2, 2}), in, 4),
            (std::vector<float>{10, 40, 90, 160}));
}

TEST_F(ExecuteTest, BroadcastsARank1OperandOverTheLastDimension) {
  // x [2,3] + y [3], and y [3] * x [2,3] (the vector may be either operand).
  FloatMap in = {{"x", {1, 2, 3, 4, 5, 6}}, {"y", {10, 20, 30}}};
  EXPECT_EQ(RunOneOp(OneOpModel("add", {2, 3}, {2, 3}, std::vector<uint32_t>{3}), in, 6),
            (std::vector<float>{11, 22, 33, 14, 25, 36}));
  json vector_first = OneOpModel("mul", {2, 3}, {2, 3}, std::vector<uint32_t>{3});
  vector_first["ops"][0]["inputs"] = {"y", "x"};
  EXPECT_EQ(RunOneOp(vector_first, in, 6), (std::vector<float>{10, 40, 90, 40, 100, 180}));
}

TEST_F(ExecuteTest, SoftmaxSmallCaseAndLargeValuesStayFinite) {
  std::vector<float> z =
      RunOneOp(OneOpModel("softmax", {2, 2}, {2, 2}), {{"x", {0, 0, 1000, 1001}}}, 4);
  ASSERT_EQ(z.size(), 4u);
  EXPECT_FLOAT_EQ(z[0], 0.5f);
  EXPECT_FLOAT_EQ(z[1], 0.5f);
  // e^0 / (e^0 + e^1) and e^1 / (e^0 + e^1): a naive exp(1000) would give NaN.
  EXPECT_NEAR(z[2], 1.0 / (1.0 + std::exp(1.0)), 1e-6);
  EXPECT_NEAR(z[3], std::exp(1.0) / (1.0 + std::exp(1.0)), 1e-6);
}

TEST_F(ExecuteTest, SoftmaxRandomAgainstDoubleReference) {
  constexpr size_t rows = 6, cols = 17;
  std::mt19937 rng(11);
  std::vector<float> x = RandomFloats(rows * cols, rng);
  for (float& v : x) v *= 10;
  std::vector<float> z =
      RunOneOp(OneOpModel("softmax", {rows, cols}, {rows, cols}), {{"x", x}}, rows * cols);
  ASSERT_EQ(z.size(), rows * cols);
  for (size_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (size_t c = 0; c < cols; ++c) sum += std::exp(static_cast<double>(x[r * cols + c]));
    for (size_t c = 0; c < cols; ++c) {
      EXPECT_NEAR(z[r * cols + c], std::exp(static_cast<double>(x[r * cols + c])) / sum, 1e-6);
    }
  }
}

TEST_F(ExecuteTest, MlpWithConstantsMatchesReference) {
  // y = softmax(relu(x W1 + b1) W2): x [1,3], W1 [3,2], b1 [2], W2 [2,2].
  json model = {{"inputs", {Float32("x", {1, 3})}},
                {"outputs", {Float32("y", {1, 2})}},
                {"constants",
                 {{"w1", {{"shape", {3, 2}}, {"data", {1, -1, 0.5, 2, -1, 1}}}},
                  {"b1", {{"shape", {2}}, {"data", {0.5, -10}}}},
                  {"w2", {{"shape", {2, 2}}, {"data", {1, 0, 0, 1}}}}}},
                {"ops",
                 {{{"op", "matmul"}, {"inputs", {"x", "w1"}}, {"output", "h"}},
                  {{"op", "add"}, {"inputs", {"h", "b1"}}, {"output", "hb"}},
                  {{"op", "relu"}, {"inputs", {"hb"}}, {"output", "r"}},
                  {{"op", "matmul"}, {"inputs", {"r", "w2"}}, {"output", "logits"}},
                  {{"op", "softmax"}, {"inputs", {"logits"}}, {"output", "y"}}}}};
  ModelPtr loaded = MustLoad(model);
  FloatMap out;
  ASSERT_EQ(Run(loaded.get(), 0, {{"x", {1, 2, 3}}}, {{"y", 2}}, &out), NRT_SUCCESS);
  // h = [1*1+2*0.5+3*-1, 1*-1+2*2+3*1] = [-1, 6]; +b1 = [-0.5, -4]; relu = [0, 0];
  // logits = [0, 0]; softmax = [0.5, 0.5].
  EXPECT_EQ(out["y"], (std::vector<float>{0.5f, 0.5f}));
  ASSERT_EQ(Run(loaded.get(), 0, {{"x", {3, 0, 0}}}, {{"y", 2}}, &out), NRT_SUCCESS);
  // h = [3, -3]; +b1 = [3.5, -13]; relu = [3.5, 0]; softmax = [e^3.5, 1] / (e^3.5 + 1).
  double e = std::exp(3.5);
  EXPECT_NEAR(out["y"][0], e / (e + 1), 1e-6);
  EXPECT_NEAR(out["y"][1], 1 / (e + 1), 1e-6);
}

TEST_F(ExecuteTest, NonFloatIdentityIsAByteCopy) {
  json model = {{"inputs", {{{"name", "ids"}, {"dtype", "int32"}, {"shape", {3}}}}},
                {"outputs", {{{"name", "out"}, {"dtype", "int32"}, {"shape", {3}}}}},
                {"ops", {{{"op", "identity"}, {"inputs", {"ids"}}, {"output", "out"}}}}};
  ModelPtr loaded = MustLoad(model);
  int32_t ids[3] = {-7, 123456789, 42};
  TensorPtr in = MustAllocate(NRT_TENSOR_PLACEMENT_HOST, -1, sizeof(ids));
  TensorPtr out = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, sizeof(ids));
  ASSERT_EQ(api().nrt_tensor_write(in.get(), ids, 0, sizeof(ids)), NRT_SUCCESS);
  TensorSetPtr in_set = MustAllocateSet(), out_set = MustAllocateSet();
  MustAdd(in_set.get(), "ids", in.get());
  MustAdd(out_set.get(), "out", out.get());
  ASSERT_EQ(api().nrt_execute(loaded.get(), in_set.get(), out_set.get()), NRT_SUCCESS);
  int32_t result[3] = {};
  ASSERT_EQ(api().nrt_tensor_read(out.get(), result, 0, sizeof(result)), NRT_SUCCESS);
  EXPECT_EQ(result[0], -7);
  EXPECT_EQ(result[1], 123456789);
  EXPECT_EQ(result[2], 42);
}

// Inputs are read in place unless an output tensor is also an input tensor: here the first
// output overwrites x's tensor before the second output (identity of x) is written, and the
// second must still be the x that came in.
TEST_F(ExecuteTest, AnOutputTensorThatIsAlsoAnInputDoesNotChangeLaterOutputs) {
  json model = {{"inputs", json::array({Float32("x", {4})})},
                {"outputs", json::array({Float32("square", {4}), Float32("same", {4})})},
                {"ops", json::array({{{"op", "mul"}, {"inputs", {"x", "x"}}, {"output", "square"}},
                                     {{"op", "identity"}, {"inputs", {"x"}}, {"output", "same"}}})}};
  ModelPtr loaded = MustLoad(model);
  TensorPtr shared = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 4 * sizeof(float));
  TensorPtr same = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 4 * sizeof(float));
  WriteFloats(shared.get(), {-1, 2, -3, 4});
  TensorSetPtr in_set = MustAllocateSet(), out_set = MustAllocateSet();
  MustAdd(in_set.get(), "x", shared.get());
  MustAdd(out_set.get(), "square", shared.get());
  MustAdd(out_set.get(), "same", same.get());
  ASSERT_EQ(api().nrt_execute(loaded.get(), in_set.get(), out_set.get()), NRT_SUCCESS);
  EXPECT_EQ(ReadFloats(shared.get()), (std::vector<float>{1, 4, 9, 16}));
  EXPECT_EQ(ReadFloats(same.get()), (std::vector<float>{-1, 2, -3, 4}));
}

TEST_F(ExecuteTest, CountsExecutions) {
  ModelPtr loaded = MustLoad(OneOpModel("relu", {1}, {1}));
  uint64_t before = Stats().executions;
  FloatMap out;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Run(loaded.get(), 0, {{"x", {1}}}, {{"z", 1}}, &out), NRT_SUCCESS);
  }
  EXPECT_EQ(Stats().executions, before + 3);
}

}  // namespace
}  // namespace nrtsim_test
