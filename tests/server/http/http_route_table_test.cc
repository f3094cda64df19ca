#include "server/http/http_route_table.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace neuronserve {
namespace {

HttpRouteTable::Route R(std::string method, std::string pattern, std::string name) {
  return {std::move(method), std::move(pattern), Scope::kInfer, std::move(name),
          [](HttpExchange&) {}};
}

HttpRouteTable Table() {
  HttpRouteTable table;
  table.Add(R("GET", "/v2/models/{name}", "ModelMetadata"));
  table.Add(R("GET", "/v2/models/{name}/ready", "ModelReady"));
  table.Add(R("GET", "/v2/models/stats", "Stats"));
  table.Add(R("POST", "/v2/models/{name}/infer", "ModelInfer"));
  table.Add(R("POST", "/v2/models/{name}/versions/{version}/infer", "ModelInferVersion"));
  table.Add(R("GET", "/metrics", "metrics"));
  return table;
}

TEST(HttpRouteTableTest, ALiteralBeatsAParameterAtTheFirstSegmentWhereTheyDiffer) {
  const HttpRouteTable table = Table();
  std::vector<std::string> storage;
  HttpRouteTable::Match match = table.Find("GET", "/v2/models/stats", storage);
  ASSERT_NE(match.route, nullptr);
  EXPECT_EQ(match.route->name, "Stats");
  EXPECT_TRUE(match.params.empty());
  match = table.Find("GET", "/v2/models/mlp", storage);
  ASSERT_NE(match.route, nullptr);
  EXPECT_EQ(match.route->name, "ModelMetadata");
  ASSERT_EQ(match.params.size(), 1u);
  EXPECT_EQ(match.params[0].first, "name");
  EXPECT_EQ(match.params[0].second, "mlp");
}

TEST(HttpRouteTableTest, ParametersAreDecodedAndAnEncodedSlashStaysInItsSegment) {
  const HttpRouteTable table = Table();
  std::vector<std::string> storage;
  const HttpRouteTable::Match match =
      table.Find("POST", "/v2/models/team%2Fmlp/versions/2%20b/infer", storage);
  ASSERT_NE(match.route, nullptr);
  EXPECT_EQ(match.route->name, "ModelInferVersion");
  ASSERT_EQ(match.params.size(), 2u);
  EXPECT_EQ(match.params[0].second, "team/mlp");
  EXPECT_EQ(match.params[1].first, "version");
  EXPECT_EQ(match.params[1].second, "2 b");
}

TEST(HttpRouteTableTest, AMalformedEscapeMatchesNothing) {
  const HttpRouteTable table = Table();
  std::vector<std::string> storage;
  for (const char* path : {"/v2/models/a%2", "/v2/models/a%zz", "/v2/models/%"}) {
    const HttpRouteTable::Match match = table.Find("GET", path, storage);
    EXPECT_EQ(match.route, nullptr) << path;
    EXPECT_EQ(match.allowed, "") << path;
  }
  std::string out;
  EXPECT_FALSE(PercentDecodeSegment("a%g1", out));
  EXPECT_TRUE(PercentDecodeSegment("a%41%2f", out));
  EXPECT_EQ(out, "aA/");
}

TEST(HttpRouteTableTest, UnknownPathIs404AndAWrongMethodListsTheAllowedOnes) {
  const HttpRouteTable table = Table();
  std::vector<std::string> storage;
  HttpRouteTable::Match match = table.Find("GET", "/nope", storage);
  EXPECT_EQ(match.route, nullptr);
  EXPECT_EQ(match.allowed, "");
  match = table.Find("GET", "/v2/models//ready", storage);  // an empty parameter
  EXPECT_EQ(match.route, nullptr);
  EXPECT_EQ(match.allowed, "");
  match = table.Find("DELETE", "/metrics", storage);
  EXPECT_EQ(match.route, nullptr);
  EXPECT_EQ(match.allowed, "GET, HEAD");
  match = table.Find("GET", "/v2/models/mlp/infer", storage);
  EXPECT_EQ(match.route, nullptr);
  EXPECT_EQ(match.allowed, "POST");
}

TEST(HttpRouteTableTest, HeadIsAnsweredByTheGetRoute) {
  const HttpRouteTable table = Table();
  std::vector<std::string> storage;
  const HttpRouteTable::Match match = table.Find("HEAD", "/metrics", storage);
  ASSERT_NE(match.route, nullptr);
  EXPECT_EQ(match.route->name, "metrics");
}

TEST(HttpRouteTableTest, ASecondRouteForTheSameMethodAndPatternReplacesTheFirst) {
  HttpRouteTable table = Table();
  table.Add(R("GET", "/metrics", "metrics2"));
  EXPECT_EQ(table.routes().size(), Table().routes().size());
  std::vector<std::string> storage;
  EXPECT_EQ(table.Find("GET", "/metrics", storage).route->name, "metrics2");
}

}  // namespace
}  // namespace neuronserve
