// Gather (sim/compute/kernels.h): rows copied on every dtype with int32 and int64
// indices, and indices out of range.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "sim/compute/kernels.h"
#include "tests/sim/compute/test_tensor.h"

namespace neuronserve::nrtsim::compute {
namespace {

using testing::Int128;
using testing::TestTensor;

TEST(Gather, CopiesRowsOfEveryDtype) {
  std::vector<DataType> types(std::begin(testing::kFloatTypes), std::end(testing::kFloatTypes));
  types.insert(types.end(), std::begin(testing::kIntegerTypes), std::end(testing::kIntegerTypes));
  const std::vector<Int128> picks = {4, 0, 2, 2};
  for (DataType type : types) {
    std::vector<double> values;
    for (int i = 0; i < 15; ++i) values.push_back(i - 7);
    const TestTensor table = testing::AnyTensor(type, {5, 3}, values);
    for (DataType index_type : {DataType::kInt32, DataType::kInt64}) {
      const TestTensor indices = testing::IntegerTensor(index_type, {2, 2}, picks);
      TestTensor expected{type, {2, 2, 3}, {}};
      const size_t row_bytes = 3 * DataTypeSize(type);
      for (Int128 pick : picks) {
        const std::byte* row = table.bytes.data() + static_cast<size_t>(pick) * row_bytes;
        expected.bytes.insert(expected.bytes.end(), row, row + row_bytes);
      }
      TestTensor out = testing::UnwrittenTensor(type, {2, 2, 3});
      EXPECT_EQ(Gather(table.view(), indices.view(), out.mutable_view()), std::nullopt);
      testing::ExpectSameElements(expected, out, "gather");
    }
  }
}

TEST(Gather, RankOneTableGivesSingleElements) {
  const TestTensor table = testing::IntegerTensor(DataType::kUInt16, {4}, {10, 20, 30, 40});
  const TestTensor indices = testing::IntegerTensor(DataType::kInt64, {3}, {3, 3, 1});
  TestTensor out = testing::UnwrittenTensor(DataType::kUInt16, {3});
  EXPECT_EQ(Gather(table.view(), indices.view(), out.mutable_view()), std::nullopt);
  EXPECT_TRUE(out.integer_value(0) == 40);
  EXPECT_TRUE(out.integer_value(1) == 40);
  EXPECT_TRUE(out.integer_value(2) == 20);
}

TEST(Gather, IndexOutOfRangeNamesValuePositionAndRows) {
  const TestTensor table =
      testing::FloatTensor(DataType::kFloat32, {5, 2}, std::vector<double>(10, 1.0));
  struct Case {
    DataType index_type;
    std::vector<Int128> indices;
    std::string message;
  };
  const Case cases[] = {
      {DataType::kInt32, {0, -1, 2}, "index -1 at position 1 is outside the table's 5 rows"},
      {DataType::kInt64, {0, 1, 2, 5}, "index 5 at position 3 is outside the table's 5 rows"},
      {DataType::kInt64,
       {Int128{1} << 40},
       "index 1099511627776 at position 0 is outside the table's 5 rows"},
      {DataType::kInt32,
       {-2147483648},
       "index -2147483648 at position 0 is outside the table's 5 rows"},
  };
  for (const Case& c : cases) {
    const TestTensor indices =
        testing::IntegerTensor(c.index_type, {static_cast<uint32_t>(c.indices.size())}, c.indices);
    TestTensor out =
        testing::UnwrittenTensor(DataType::kFloat32, {static_cast<uint32_t>(c.indices.size()), 2});
    EXPECT_EQ(Gather(table.view(), indices.view(), out.mutable_view()), c.message);
  }
  // The brief's example: 100 rows, index 70000 at position 5.
  const TestTensor big_table =
      testing::IntegerTensor(DataType::kInt8, {100}, std::vector<Int128>(100, 0));
  const TestTensor indices =
      testing::IntegerTensor(DataType::kInt32, {2, 3}, {0, 1, 2, 3, 4, 70000});
  TestTensor out = testing::UnwrittenTensor(DataType::kInt8, {2, 3});
  EXPECT_EQ(Gather(big_table.view(), indices.view(), out.mutable_view()),
            "index 70000 at position 5 is outside the table's 100 rows");
}

}  // namespace
}  // namespace neuronserve::nrtsim::compute
