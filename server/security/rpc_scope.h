// Which scope of bearer token each RPC needs: the one table of what a token may do.
//
// Scopes: infer (inference, GetModel, ListModels, Enumerate) and admin (LoadModel, UnloadModel;
// an admin token may do everything an infer token may). Health needs none. The Open Inference
// Protocol's methods (inference.GRPCInferenceService) are in the same table: its probes
// (ServerLive, ServerReady, ModelReady) need none, its metadata, statistics and inference need
// infer, its Repository* calls need admin; so every listener and every protocol asks one table.
//
// Thread safety: pure functions.
#ifndef NEURON_SERVE_SERVER_SECURITY_RPC_SCOPE_H_
#define NEURON_SERVE_SERVER_SECURITY_RPC_SCOPE_H_

#include <string_view>

namespace neuronserve {

enum class Scope {
  kNone,   // probes: no token needed
  kInfer,  // read and infer
  kAdmin,  // change what is loaded
};

// "none", "infer", "admin".
std::string_view ScopeName(Scope scope);

// True when a token of scope `held` may call an RPC that needs `needed`.
bool ScopeAllows(Scope held, Scope needed);

// The scope an RPC needs, by its gRPC method path ("/neuronserve.v1.NeuronServing/LoadModel").
// A method the table does not know needs admin: a new RPC is closed until someone decides.
Scope RequiredScope(std::string_view method_path);

// The RPC's short name for logs ("/neuronserve.v1.NeuronServing/LoadModel" -> "LoadModel").
std::string_view RpcName(std::string_view method_path);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_SECURITY_RPC_SCOPE_H_
