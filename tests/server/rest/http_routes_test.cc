#include "server/rest/http_routes.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace neuronserve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Key;

// An exchange for calling a handler directly: a GET of the route's path, answered at once.
class CapturingExchange : public HttpExchange {
 public:
  std::string_view method() const override { return "GET"; }
  std::string_view path() const override { return ""; }
  std::string_view param(std::string_view) const override { return {}; }
  std::string_view header(std::string_view) const override { return {}; }
  std::string_view body() const override { return {}; }
  std::string_view peer() const override { return "ipv4:127.0.0.1:1"; }
  std::string_view identity() const override { return {}; }
  void OnClientGone(std::function<void()>) override {}
  void Respond(HttpResponse response) override {
    ++responses;
    last = std::move(response);
  }
  int responses = 0;
  HttpResponse last;
};

// The routes over a state the test sets: no daemon, no HTTP server, no gRPC.
class HttpRoutesTest : public ::testing::Test {
 protected:
  // Pattern -> a call of its GET handler that returns the one answer it gave at once.
  std::map<std::string, std::function<HttpResponse()>> Routes() {
    HttpRouteSources sources;
    sources.metrics = &metrics_;
    sources.health = [this] { return health_; };
    sources.models = [this] { return models_; };
    table_ = HttpRoutes(std::move(sources));
    std::map<std::string, std::function<HttpResponse()>> calls;
    for (const HttpRouteTable::Route& route : table_.routes()) {
      EXPECT_EQ(route.method, "GET") << route.pattern;
      calls[route.pattern] = [&route] {
        CapturingExchange exchange;
        route.handler(exchange);
        EXPECT_EQ(exchange.responses, 1) << route.pattern;
        return exchange.last;
      };
    }
    return calls;
  }

  HttpRouteTable table_;

  metrics::MetricsRegistry metrics_;
  HealthReport health_;
  std::vector<ModelInfo> models_;
};

TEST_F(HttpRoutesTest, ExactlyTheFourPaths) {
  EXPECT_THAT(Routes(),
              ElementsAre(Key("/livez"), Key("/metrics"), Key("/readyz"), Key("/v1/models")));
}

TEST_F(HttpRoutesTest, ProbesNeedNoTokenAndTheModelNamesNeedAnInferToken) {
  Routes();
  std::map<std::string, Scope> scopes;
  for (const HttpRouteTable::Route& route : table_.routes()) scopes[route.pattern] = route.scope;
  EXPECT_EQ(scopes["/livez"], Scope::kNone);
  EXPECT_EQ(scopes["/readyz"], Scope::kNone);
  EXPECT_EQ(scopes["/metrics"], Scope::kInfer);
  EXPECT_EQ(scopes["/v1/models"], Scope::kInfer);
}

TEST_F(HttpRoutesTest, ProbesAnswerOkWhileLiveAndServing) {
  health_.live = true;
  health_.serving = true;
  auto routes = Routes();
  for (const char* path : {"/livez", "/readyz"}) {
    const HttpResponse response = routes[path]();
    EXPECT_EQ(response.status, 200) << path;
    EXPECT_EQ(response.content_type, "text/plain; charset=utf-8") << path;
    EXPECT_EQ(response.body, "ok\n") << path;
  }
}

TEST_F(HttpRoutesTest, ProbesAnswer503WithTheReportsReason) {
  health_.live = false;
  health_.live_reason = "core 1 stuck in one execution for 130s";
  health_.serving = false;
  health_.serving_reason = "draining";
  auto routes = Routes();
  const HttpResponse livez = routes["/livez"]();
  EXPECT_EQ(livez.status, 503);
  EXPECT_EQ(livez.body, "not live: core 1 stuck in one execution for 130s\n");
  const HttpResponse readyz = routes["/readyz"]();
  EXPECT_EQ(readyz.status, 503);
  EXPECT_EQ(readyz.body, "not ready: draining\n");
}

TEST_F(HttpRoutesTest, ProbesFollowTheLatestReport) {
  auto routes = Routes();
  health_.serving = false;
  EXPECT_EQ(routes["/readyz"]().status, 503);
  health_.serving = true;
  EXPECT_EQ(routes["/readyz"]().status, 200);
}

TEST_F(HttpRoutesTest, MetricsRendersTheRegistryAfterItsScrapeHooks) {
  metrics::Family<metrics::Gauge>& gauge = metrics_.AddGauge("test_gauge", "A gauge.", {});
  metrics_.AddScrapeHook([&gauge] { gauge.WithLabels({}).Set(7); });
  const HttpResponse response = Routes()["/metrics"]();
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.content_type, metrics::MetricsRegistry::kContentType);
  EXPECT_THAT(response.body, HasSubstr("test_gauge 7\n"));
}

TEST_F(HttpRoutesTest, ModelsAnswersJsonOfTheModelsAndTheirHealth) {
  ModelInfo ready;
  ready.identity = {"resnet", "2", ModelSource::kRepository};
  ready.state = ModelState::kReady;
  ModelInfo failed;
  failed.identity = {"broken", "", ModelSource::kUpload};
  failed.state = ModelState::kFailed;
  failed.error = "not a NEFF";
  models_ = {failed, ready};
  health_.serving = true;
  health_.models = {{"resnet", true}, {"broken", false}};

  const HttpResponse response = Routes()["/v1/models"]();
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.content_type, "application/json");
  const nlohmann::json body = nlohmann::json::parse(response.body);
  EXPECT_EQ(body["ready"], true);
  ASSERT_EQ(body["models"].size(), 2u);
  EXPECT_EQ(body["models"][0]["name"], "broken");
  EXPECT_EQ(body["models"][0]["state"], "FAILED");
  EXPECT_EQ(body["models"][0]["serving"], false);
  EXPECT_EQ(body["models"][0]["error"], "not a NEFF");
  EXPECT_EQ(body["models"][1]["name"], "resnet");
  EXPECT_EQ(body["models"][1]["version"], "2");
  EXPECT_EQ(body["models"][1]["state"], "READY");
  EXPECT_EQ(body["models"][1]["serving"], true);
}

}  // namespace
}  // namespace neuronserve
