#include "server/rest/http_routes.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/rest/models_json.h"

namespace neuronserve {
namespace {

// A route answered at once from `answer`, on the HTTP thread.
HttpRouteTable::Route Immediate(std::string pattern, Scope scope, std::string name,
                                std::function<HttpResponse()> answer) {
  return {"GET", std::move(pattern), scope, std::move(name),
          [answer = std::move(answer)](HttpExchange& exchange) { exchange.Respond(answer()); }};
}

constexpr char kText[] = "text/plain; charset=utf-8";

HttpResponse Answer(int status, std::string content_type, std::string body) {
  HttpResponse response;
  response.status = status;
  response.content_type = std::move(content_type);
  response.body = std::move(body);
  return response;
}

}  // namespace

HttpRouteTable HttpRoutes(HttpRouteSources sources) {
  HttpRouteTable routes;
  routes.Add(Immediate("/metrics", Scope::kInfer, "metrics", [metrics = sources.metrics] {
    return Answer(200, metrics::MetricsRegistry::kContentType, metrics->RenderText());
  }));
  routes.Add(Immediate("/livez", Scope::kNone, "livez", [health = sources.health] {
    const HealthReport report = health();
    if (report.live) return Answer(200, kText, "ok\n");
    return Answer(503, kText, absl::StrCat("not live: ", report.live_reason, "\n"));
  }));
  routes.Add(Immediate("/readyz", Scope::kNone, "readyz", [health = sources.health] {
    const HealthReport report = health();
    if (report.serving) return Answer(200, kText, "ok\n");
    return Answer(503, kText, absl::StrCat("not ready: ", report.serving_reason, "\n"));
  }));
  routes.Add(Immediate("/v1/models", Scope::kInfer, "models",
                       [health = sources.health, models = sources.models] {
                         return Answer(200, "application/json", ModelsJson(models(), health()));
                       }));
  return routes;
}

}  // namespace neuronserve
