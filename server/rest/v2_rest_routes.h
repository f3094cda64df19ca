// The Open Inference Protocol's REST form (KServe v2 with Triton's extensions) on the daemon's
// HTTP server (server/http/): the routes AddV2RestRoutes adds to its table.
//
//   GET  /v2/health/live, /v2/health/ready                    200 or 400 (no token)
//   GET  /v2                                                    server metadata
//   GET  /v2/models/{name}[/versions/{version}]                 model metadata
//   GET  /v2/models/{name}[/versions/{version}]/ready           200 or 400 (no token)
//   GET  /v2/models/{name}[/versions/{version}]/stats, /v2/models/stats   statistics
//   POST /v2/models/{name}[/versions/{version}]/infer           inference (v2_rest_infer_call.h)
//   GET  /v2/systemsharedmemory[/region/{name}]/status          shared memory regions
//   POST /v2/systemsharedmemory/region/{name}/register          {"key", "offset", "byte_size"}
//   POST /v2/systemsharedmemory[/region/{name}]/unregister      (no name: every region)
//   GET/POST /v2/cudasharedmemory/...                           as a server without GPUs
//   POST /v2/repository/index                                   repository index (admin)
//   POST /v2/repository/models/{name}/load, .../unload          (admin)
// The scopes are the gRPC methods' (server/security/rpc_scope.h); the answers are
// server/oip/v2_answers.h's, the same as the gRPC service's, rendered as Triton's JSON; an error is
// {"error": "..."} with the HTTP status of its code (server/http/http_status.h). Repository calls
// are written to the audit log as the gRPC ones are, and answered from the registry's thread when
// the load or unload ends; with
// --admin-listen set they are 403 here, naming the admin listener.
//
// Shared-memory register and unregister are audited by region name (never the key).
//
// Thread safety: the handlers run on the HTTP server's threads at once; everything they reach
// allows that. Ownership: the handlers share a copy of `sources`; what it points to (the
// InferContext, the registry, the repository, the logs) must outlive the HTTP server.
#ifndef NEURON_SERVE_SERVER_REST_V2_REST_ROUTES_H_
#define NEURON_SERVE_SERVER_REST_V2_REST_ROUTES_H_

#include <string>

#include "server/call/infer_context.h"
#include "server/http/http_route_table.h"
#include "server/oip/v2_answers.h"
#include "server/repository/model_loading_context.h"

namespace neuronserve {

struct V2RestSources {
  const InferContext* infer = nullptr;
  ModelLoadingContext loading;
  HealthSource health;
  // The admin listener's address when --admin-listen is set (the repository routes are then
  // refused here, naming it); empty otherwise.
  std::string admin_listener_elsewhere;
};

void AddV2RestRoutes(HttpRouteTable& routes, V2RestSources sources);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REST_V2_REST_ROUTES_H_
