// HttpRoutes: the daemon's own HTTP paths (the server is server/http/http_server.h), each GET
// (and HEAD), each answered at once on the HTTP thread:
//   /metrics    the Prometheus text of the metrics registry (its scrape hooks run first)
//   /livez      200 "ok" while live, else 503 "not live: REASON"
//   /readyz     200 "ok" while service "" is SERVING, else 503 "not ready: REASON"
//   /v1/models  the JSON model summary (models_json.h)
// The probes answer from the health monitor's last published report, so HTTP and gRPC health
// never disagree. Scopes: the probes need no token (Scope::kNone); /metrics and /v1/models
// name the models, as ListModels does, so with token files they need an infer token
// (Scope::kInfer); without token files every path is open.
//
// Thread safety: the handlers run on the HTTP server's threads, concurrently; the sources must
// allow that (MetricsRegistry, HealthMonitor::Latest and ModelRegistry::List do). Ownership:
// the handlers borrow `metrics` and hold copies of the two functions; whatever those reach
// must outlive the HTTP server.
#ifndef NEURON_SERVE_SERVER_REST_HTTP_ROUTES_H_
#define NEURON_SERVE_SERVER_REST_HTTP_ROUTES_H_

#include <functional>
#include <string>
#include <vector>

#include "core/health/health_evaluator.h"
#include "core/metrics/metrics_registry.h"
#include "core/serving/model/model_info.h"
#include "server/http/http_route_table.h"

namespace neuronserve {

struct HttpRouteSources {
  metrics::MetricsRegistry* metrics = nullptr;
  std::function<HealthReport()> health;            // the last published report
  std::function<std::vector<ModelInfo>()> models;  // every model, by name
};

// The four routes, in a table the caller may add more to (the REST front end does).
HttpRouteTable HttpRoutes(HttpRouteSources sources);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REST_HTTP_ROUTES_H_
