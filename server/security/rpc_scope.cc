#include "server/security/rpc_scope.h"

#include <array>
#include <utility>

namespace neuronserve {
namespace {

constexpr std::string_view kNativeService = "/neuronserve.v1.NeuronServing/";

constexpr std::array<std::pair<std::string_view, Scope>, 10> kNativeMethods = {{
    {"Infer", Scope::kInfer},
    {"InferStream", Scope::kInfer},
    {"GetModel", Scope::kInfer},
    {"ListModels", Scope::kInfer},
    {"Enumerate", Scope::kInfer},
    {"LoadModel", Scope::kAdmin},
    {"UnloadModel", Scope::kAdmin},
    {"RegisterSharedMemory", Scope::kInfer},
    {"SharedMemoryStatus", Scope::kInfer},
    {"UnregisterSharedMemory", Scope::kInfer},
}};

// The Open Inference Protocol (issue 18): the probes need no token, as gRPC health does; what
// reads models or infers needs infer; the repository calls change what is loaded: admin.
constexpr std::string_view kV2Service = "/inference.GRPCInferenceService/";

// Shared memory (issue 33): registering and unregistering a region needs infer, as using one
// does, and is audited (v2_inference_service.cc).
constexpr std::array<std::pair<std::string_view, Scope>, 18> kV2Methods = {{
    {"ServerLive", Scope::kNone},
    {"ServerReady", Scope::kNone},
    {"ModelReady", Scope::kNone},
    {"ServerMetadata", Scope::kInfer},
    {"ModelMetadata", Scope::kInfer},
    {"ModelInfer", Scope::kInfer},
    {"ModelStreamInfer", Scope::kInfer},
    {"ModelStatistics", Scope::kInfer},
    {"ModelConfig", Scope::kInfer},
    {"RepositoryIndex", Scope::kAdmin},
    {"RepositoryModelLoad", Scope::kAdmin},
    {"RepositoryModelUnload", Scope::kAdmin},
    {"SystemSharedMemoryStatus", Scope::kInfer},
    {"SystemSharedMemoryRegister", Scope::kInfer},
    {"SystemSharedMemoryUnregister", Scope::kInfer},
    {"CudaSharedMemoryStatus", Scope::kInfer},
    {"CudaSharedMemoryRegister", Scope::kInfer},
    {"CudaSharedMemoryUnregister", Scope::kInfer},
}};

template <size_t N>
const Scope* FindMethod(std::string_view method_path, std::string_view service,
                        const std::array<std::pair<std::string_view, Scope>, N>& methods) {
  if (!method_path.starts_with(service)) return nullptr;
  const std::string_view method = method_path.substr(service.size());
  for (const auto& [name, scope] : methods) {
    if (name == method) return &scope;
  }
  return nullptr;
}

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
  if (const Scope* scope = FindMethod(method_path, kNativeService, kNativeMethods)) return *scope;
  if (const Scope* scope = FindMethod(method_path, kV2Service, kV2Methods)) return *scope;
  return Scope::kAdmin;
}

std::string_view RpcName(std::string_view method_path) {
  const size_t slash = method_path.rfind('/');
  return slash == std::string_view::npos ? method_path : method_path.substr(slash + 1);
}

}  // namespace neuronserve
