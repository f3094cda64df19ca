#include "server/http_routes.h"

#include "absl/strings/str_cat.h"
#include "server/models_json.h"

namespace neuronserve {

std::map<std::string, HttpServer::Handler> HttpRoutes(HttpRouteSources sources) {
  std::map<std::string, HttpServer::Handler> routes;
  routes["/metrics"] = [metrics = sources.metrics] {
    return HttpResponse{200, metrics::MetricsRegistry::kContentType, metrics->RenderText()};
  };
  routes["/livez"] = [health = sources.health] {
    const HealthReport report = health();
    return report.live ? HttpResponse{200, "text/plain; charset=utf-8", "ok\n"}
                       : HttpResponse{503, "text/plain; charset=utf-8",
                                      absl::StrCat("not live: ", report.live_reason, "\n")};
  };
  routes["/readyz"] = [health = sources.health] {
    const HealthReport report = health();
    return report.serving ? HttpResponse{200, "text/plain; charset=utf-8", "ok\n"}
                          : HttpResponse{503, "text/plain; charset=utf-8",
                                         absl::StrCat("not ready: ", report.serving_reason, "\n")};
  };
  routes["/v1/models"] = [health = sources.health, models = sources.models] {
    return HttpResponse{200, "application/json", ModelsJson(models(), health())};
  };
  return routes;
}

}  // namespace neuronserve
