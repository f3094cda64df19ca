#include "server/rest/http_routes.h"

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

}  // namespace

HttpRouteTable HttpRoutes(HttpRouteSources sources) {
  HttpRouteTable routes;
  routes.Add(Immediate("/metrics", Scope::kInfer, "metrics", [metrics = sources.metrics] {
    return HttpResponse{200, metrics::MetricsRegistry::kContentType, metrics->RenderText()};
  }));
  routes.Add(Immediate("/livez", Scope::kNone, "livez", [health = sources.health] {
    const HealthReport report = health();
    return report.live ? HttpResponse{200, "text/plain; charset=utf-8", "ok\n"}
                       : HttpResponse{503, "text/plain; charset=utf-8",
                                      absl::StrCat("not live: ", report.live_reason, "\n")};
  }));
  routes.Add(Immediate("/readyz", Scope::kNone, "readyz", [health = sources.health] {
    const HealthReport report = health();
    return report.serving ? HttpResponse{200, "text/plain; charset=utf-8", "ok\n"}
                          : HttpResponse{503, "text/plain; charset=utf-8",
                                         absl::StrCat("not ready: ", report.serving_reason, "\n")};
  }));
  routes.Add(Immediate(
      "/v1/models", Scope::kInfer, "models", [health = sources.health, models = sources.models] {
        return HttpResponse{200, "application/json", ModelsJson(models(), health())};
      }));
  return routes;
}

}  // namespace neuronserve
