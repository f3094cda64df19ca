#include "server/rest/v2_rest_routes.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "server/call/shared_memory_calls.h"
#include "server/http/http_status.h"
#include "server/logs/audit_log.h"
#include "server/oip/v2_model_config.h"
#include "server/rest/triton_json.h"
#include "server/rest/v2_rest_admin_bodies.h"
#include "server/rest/v2_rest_infer_call.h"
#include "server/rest/v2_rest_json.h"
#include "server/security/rpc_scope.h"
#include "server/shared_memory/shared_memory_registry.h"

namespace neuronserve {
namespace {

using Json = nlohmann::json;

// The gRPC method each route answers as, for its scope (server/security/rpc_scope.h's v2 rows).
Scope ScopeOf(std::string_view rpc) {
  return RequiredScope(absl::StrCat("/inference.GRPCInferenceService/", std::string(rpc)));
}

// A probe's answer: 200 with no body, or 400 saying why not (as KServe's v2 REST and Triton).
HttpResponse ProbeResponse(bool yes, std::string_view why_not) {
  if (yes) {
    HttpResponse response;
    response.content_type = "application/json";
    return response;
  }
  return HttpErrorResponse(400, why_not);
}

class Routes {
 public:
  explicit Routes(V2RestSources sources) : s_(std::move(sources)) {}

  void Live(HttpExchange& exchange) const {
    const std::optional<HealthReport> report = s_.health();
    exchange.Respond(ProbeResponse(
        V2ServerLive(report), report.has_value() ? absl::StrCat("not live: ", report->live_reason)
                                                 : "not live: starting or stopping"));
  }

  void Ready(HttpExchange& exchange) const {
    const std::optional<HealthReport> report = s_.health();
    exchange.Respond(ProbeResponse(V2ServerReady(report),
                                   report.has_value()
                                       ? absl::StrCat("not ready: ", report->serving_reason)
                                       : "not ready: starting or stopping"));
  }

  void ModelReady(HttpExchange& exchange) const {
    const std::string name(exchange.param("name"));
    const std::string version(exchange.param("version"));
    const bool ready = V2ModelReady(s_.health(), *s_.loading.registry, name, version);
    exchange.Respond(ProbeResponse(
        ready, version.empty()
                   ? absl::StrCat("model '", name, "' is not ready")
                   : absl::StrCat("model '", name, "' version '", version, "' is not ready")));
  }

  void ServerMetadata(HttpExchange& exchange) const {
    inference::ServerMetadataResponse metadata;
    V2ServerMetadata(metadata);
    exchange.Respond(JsonResponse(200, ServerMetadataJson(metadata)));
  }

  void ModelMetadata(HttpExchange& exchange) const {
    AnswerModelQuery<inference::ModelMetadataResponse>(exchange, V2ModelMetadata,
                                                       ModelMetadataJson);
  }

  void Statistics(HttpExchange& exchange) const {
    AnswerModelQuery<inference::ModelStatisticsResponse>(exchange, V2ModelStatistics,
                                                         StatisticsJson);
  }

  // Triton's configuration of the serving version, in Triton's JSON form
  // (server/rest/triton_json.h): the ModelConfig object itself, as Triton answers, not wrapped in a
  // response.
  void Config(HttpExchange& exchange) const {
    AnswerModelQuery<inference::ModelConfig>(exchange, V2ModelConfig, TritonJson);
  }

  void Infer(HttpExchange& exchange) const { V2RestInferCall::Start(*s_.infer, exchange); }

  // Triton's system shared memory extension, over the daemon's one registry: the same regions
  // as the gRPC service's.
  void SharedMemoryStatus(HttpExchange& exchange) const {
    const std::string name(exchange.param("name"));
    auto regions = SharedMemoryRegions(*s_.infer, name);
    if (!regions.ok()) return exchange.Respond(HttpErrorResponse(regions.status()));
    exchange.Respond(JsonResponse(200, SharedMemoryRegionsJson(*regions)));
  }

  // Body: {"key": "...", "offset": N, "byte_size": N} (offset optional, 0).
  void SharedMemoryRegister(HttpExchange& exchange) const {
    constexpr std::string_view kRpc = "RestSystemSharedMemoryRegister";
    const std::string name(exchange.param("name"));
    RestRegisterBody body;
    absl::Status status = ParseRestRegisterBody(exchange.body(), name, body);
    const RegionAudit audit = [&](const absl::Status& result, std::string_view region) {
      Audit(exchange, kRpc, "", result, region);
    };
    if (status.ok()) {
      status =
          RegisterSharedMemoryRegion(*s_.infer, audit, name, body.key, body.offset, body.byte_size);
    } else {
      audit(status, name);
    }
    if (!status.ok()) return exchange.Respond(HttpErrorResponse(status));
    exchange.Respond(JsonResponse(200, Json::object()));
  }

  void SharedMemoryUnregister(HttpExchange& exchange) const {
    constexpr std::string_view kRpc = "RestSystemSharedMemoryUnregister";
    const std::string name(exchange.param("name"));
    // Never waits: a region requests still use is unmapped when the last of them finishes.
    UnregisterSharedMemoryRegions(
        *s_.infer,
        [&](const absl::Status& result, std::string_view region) {
          Audit(exchange, kRpc, "", result, region);
        },
        name);
    exchange.Respond(JsonResponse(200, Json::object()));
  }

  // The CUDA extension, as a server without GPUs.
  void CudaSharedMemoryStatus(HttpExchange& exchange) const {
    const std::string name(exchange.param("name"));
    if (!name.empty()) {
      return exchange.Respond(HttpErrorResponse(SharedMemoryRegistry::NoCudaRegion(name)));
    }
    exchange.Respond(JsonResponse(200, Json::array()));
  }
  void CudaSharedMemoryRegister(HttpExchange& exchange) const {
    exchange.Respond(HttpErrorResponse(
        SharedMemoryRegistry::CudaRegistrationRefused(std::string(exchange.param("name")))));
  }
  void CudaSharedMemoryUnregister(HttpExchange& exchange) const {
    exchange.Respond(JsonResponse(200, Json::object()));
  }

  void RepositoryIndex(HttpExchange& exchange) const {
    constexpr std::string_view kRpc = "RestRepositoryIndex";
    if (Refused(exchange, kRpc, "")) return;
    bool ready_only = false;
    absl::Status status = ParseRestIndexBody(exchange.body(), ready_only);
    inference::RepositoryIndexResponse index;
    if (status.ok()) status = V2RepositoryIndex(s_.loading, ready_only, index);
    Audit(exchange, kRpc, "", status);
    if (!status.ok()) return exchange.Respond(HttpErrorResponse(status));
    exchange.Respond(JsonResponse(200, RepositoryIndexJson(index)));
  }

  void Load(HttpExchange& exchange) const {
    constexpr std::string_view kRpc = "RestRepositoryModelLoad";
    const std::string name(exchange.param("name"));
    if (Refused(exchange, kRpc, name)) return;
    google::protobuf::Map<std::string, inference::ModelRepositoryParameter> parameters;
    if (absl::Status parsed =
            V2LoadRefusal(name, ParseRestLoadParameters(exchange.body(), parameters));
        !parsed.ok()) {
      Audit(exchange, kRpc, name, parsed);
      return exchange.Respond(HttpErrorResponse(parsed));
    }
    V2RepositoryLoad(s_.loading, name, "", parameters,
                     Finisher(exchange, kRpc, name, V2UploadedBytes(parameters)));
  }

  void Unload(HttpExchange& exchange) const {
    constexpr std::string_view kRpc = "RestRepositoryModelUnload";
    const std::string name(exchange.param("name"));
    if (Refused(exchange, kRpc, name)) return;
    // Triton's unload parameters (unload_dependents) mean nothing without ensembles: the body
    // is not read.
    V2RepositoryUnload(s_.loading, name, "", Finisher(exchange, kRpc, name));
  }

 private:
  // A query about the path's model ({name}, and {version} when given): `answer` fills the gRPC
  // call's message (V2ModelMetadata, ...), and `render` gives its JSON; an error is its own.
  template <typename Response, typename Answer, typename Render>
  void AnswerModelQuery(HttpExchange& exchange, Answer answer, Render render) const {
    Response response;
    const absl::Status status = answer(*s_.loading.registry, std::string(exchange.param("name")),
                                       std::string(exchange.param("version")), response);
    if (!status.ok()) return exchange.Respond(HttpErrorResponse(status));
    exchange.Respond(JsonResponse(200, render(response)));
  }

  void Audit(HttpExchange& exchange, std::string_view rpc, std::string_view model,
             const absl::Status& status, std::string_view region = {},
             std::optional<uint64_t> bytes = std::nullopt) const {
    if (s_.infer->audit_log == nullptr) return;
    AuditRecord record;
    record.rpc = rpc;
    record.peer = exchange.peer();
    record.identity = exchange.identity();
    record.model = model;
    record.region = region;
    record.code = status.code();
    const std::string message(status.message());
    record.message = message;
    record.bytes = bytes;
    s_.infer->audit_log->Record(record);
  }

  // With --admin-listen, the repository calls are the admin listener's (as on the gRPC port):
  // answered 403 naming it, and audited.
  bool Refused(HttpExchange& exchange, std::string_view rpc, std::string_view model) const {
    if (s_.admin_listener_elsewhere.empty()) return false;
    const absl::Status refused = absl::PermissionDeniedError(
        absl::StrCat(std::string(rpc), " is served on the admin listener ",
                     s_.admin_listener_elsewhere, ", not on this HTTP endpoint"));
    Audit(exchange, rpc, model, refused);
    exchange.Respond(HttpErrorResponse(refused));
    return true;
  }

  // The answer of a load or unload, from the registry's thread (or at once when refused);
  // `uploaded`: an upload's bytes, for its audit line.
  V2Done Finisher(HttpExchange& exchange, std::string_view rpc, const std::string& model,
                  std::optional<uint64_t> uploaded = std::nullopt) const {
    return [this, &exchange, rpc, model, uploaded](const absl::Status& status) {
      Audit(exchange, rpc, model, status, {}, uploaded);
      if (!status.ok()) return exchange.Respond(HttpErrorResponse(status));
      HttpResponse done;
      done.content_type = "application/json";
      exchange.Respond(std::move(done));
    };
  }

  const V2RestSources s_;
};

}  // namespace

void AddV2RestRoutes(HttpRouteTable& routes, V2RestSources sources) {
  auto shared = std::make_shared<const Routes>(std::move(sources));
  const auto add = [&](std::string method, std::string pattern, std::string_view rpc,
                       void (Routes::*handler)(HttpExchange&) const) {
    routes.Add({std::move(method), std::move(pattern), ScopeOf(rpc),
                absl::StrCat("Rest", std::string(rpc)),
                [shared, handler](HttpExchange& exchange) { ((*shared).*handler)(exchange); }});
  };
  add("GET", "/v2/health/live", "ServerLive", &Routes::Live);
  add("GET", "/v2/health/ready", "ServerReady", &Routes::Ready);
  add("GET", "/v2", "ServerMetadata", &Routes::ServerMetadata);
  for (const std::string& model :
       {std::string("/v2/models/{name}"), std::string("/v2/models/{name}/versions/{version}")}) {
    add("GET", model, "ModelMetadata", &Routes::ModelMetadata);
    add("GET", model + "/ready", "ModelReady", &Routes::ModelReady);
    add("GET", model + "/stats", "ModelStatistics", &Routes::Statistics);
    add("GET", model + "/config", "ModelConfig", &Routes::Config);
    add("POST", model + "/infer", "ModelInfer", &Routes::Infer);
  }
  add("GET", "/v2/models/stats", "ModelStatistics", &Routes::Statistics);
  // Status and unregister: of every region, or of the one the path names.
  for (const std::string& region : {std::string(), std::string("/region/{name}")}) {
    const std::string system = "/v2/systemsharedmemory" + region;
    const std::string cuda = "/v2/cudasharedmemory" + region;
    add("GET", system + "/status", "SystemSharedMemoryStatus", &Routes::SharedMemoryStatus);
    add("POST", system + "/unregister", "SystemSharedMemoryUnregister",
        &Routes::SharedMemoryUnregister);
    add("GET", cuda + "/status", "CudaSharedMemoryStatus", &Routes::CudaSharedMemoryStatus);
    add("POST", cuda + "/unregister", "CudaSharedMemoryUnregister",
        &Routes::CudaSharedMemoryUnregister);
  }
  add("POST", "/v2/systemsharedmemory/region/{name}/register", "SystemSharedMemoryRegister",
      &Routes::SharedMemoryRegister);
  add("POST", "/v2/cudasharedmemory/region/{name}/register", "CudaSharedMemoryRegister",
      &Routes::CudaSharedMemoryRegister);
  add("POST", "/v2/repository/index", "RepositoryIndex", &Routes::RepositoryIndex);
  add("POST", "/v2/repository/models/{name}/load", "RepositoryModelLoad", &Routes::Load);
  add("POST", "/v2/repository/models/{name}/unload", "RepositoryModelUnload", &Routes::Unload);
}

}  // namespace neuronserve
