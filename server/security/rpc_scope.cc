#include "server/security/rpc_scope.h"

#include <array>
#include <utility>

namespace neuronserve {
namespace {

constexpr std::string_view kNativeService = "/neuronserve.v1.NeuronServing/";

constexpr std::array<std::pair<std::string_view, Scope>, 7> kNativeMethods = {{
    {"Infer", Scope::kInfer},
    {"InferStream", Scope::kInfer},
    {"GetModel", Scope::kInfer},
    {"ListModels", Scope::kInfer},
    {"Enumerate", Scope::kInfer},
    {"LoadModel", Scope::kAdmin},
    {"UnloadModel", Scope::kAdmin},
}};

constexpr std::string_view kV2Service = "/inference.GRPCInferenceService/";

constexpr std::array<std::pair<std::string_view, Scope>, 2> kV2Methods = {{
    {"ModelInfer", Scope::kInfer},
    {"ModelStreamInfer", Scope::kInfer},
}};

}  // namespace

std::string_view ScopeName(Scope scope) {
  switch (scope) {
    case Scope::kNone:
      return "none";
    case Scope::kInfer:
      return "infer";
    case Scope::kAdmin:
      return "admin";
  }
  return "unknown";
}

bool ScopeAllows(Scope held, Scope needed) {
  return static_cast<int>(held) >= static_cast<int>(needed);
}

Scope RequiredScope(std::string_view method_path) {
  if (method_path.starts_with("/grpc.health.v1.Health/")) return Scope::kNone;
  if (method_path.starts_with(kNativeService)) {
    const std::string_view method = method_path.substr(kNativeService.size());
    for (const auto& [name, scope] : kNativeMethods) {
      if (name == method) return scope;
    }
  }
  if (method_path.starts_with(kV2Service)) {
    const std::string_view method = method_path.substr(kV2Service.size());
    for (const auto& [name, scope] : kV2Methods) {
      if (name == method) return scope;
    }
  }
  return Scope::kAdmin;
}

std::string_view RpcName(std::string_view method_path) {
  const size_t slash = method_path.rfind('/');
  return slash == std::string_view::npos ? method_path : method_path.substr(slash + 1);
}

}  // namespace neuronserve
