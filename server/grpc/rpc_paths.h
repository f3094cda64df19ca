// The method paths of both gRPC services' RPCs (rpc::k...), as the CallGuard is asked about them
// and server/security/rpc_scope.h's table knows them; each front end's call type names its own
// (grpc_infer_call.h). Constants only: no gRPC header.
#ifndef NEURON_SERVE_SERVER_GRPC_RPC_PATHS_H_
#define NEURON_SERVE_SERVER_GRPC_RPC_PATHS_H_

#include <string_view>

namespace neuronserve {

namespace rpc {
inline constexpr std::string_view kEnumerate = "/neuronserve.v1.NeuronServing/Enumerate";
inline constexpr std::string_view kGetModel = "/neuronserve.v1.NeuronServing/GetModel";
inline constexpr std::string_view kListModels = "/neuronserve.v1.NeuronServing/ListModels";
inline constexpr std::string_view kInfer = "/neuronserve.v1.NeuronServing/Infer";
inline constexpr std::string_view kInferStream = "/neuronserve.v1.NeuronServing/InferStream";
inline constexpr std::string_view kLoadModel = "/neuronserve.v1.NeuronServing/LoadModel";
inline constexpr std::string_view kUnloadModel = "/neuronserve.v1.NeuronServing/UnloadModel";
inline constexpr std::string_view kRegisterSharedMemory =
    "/neuronserve.v1.NeuronServing/RegisterSharedMemory";
inline constexpr std::string_view kSharedMemoryStatus =
    "/neuronserve.v1.NeuronServing/SharedMemoryStatus";
inline constexpr std::string_view kUnregisterSharedMemory =
    "/neuronserve.v1.NeuronServing/UnregisterSharedMemory";
// The Open Inference Protocol (server/v2/v2_inference_service.h).
inline constexpr std::string_view kServerLive = "/inference.GRPCInferenceService/ServerLive";
inline constexpr std::string_view kServerReady = "/inference.GRPCInferenceService/ServerReady";
inline constexpr std::string_view kModelReady = "/inference.GRPCInferenceService/ModelReady";
inline constexpr std::string_view kServerMetadata =
    "/inference.GRPCInferenceService/ServerMetadata";
inline constexpr std::string_view kModelMetadata = "/inference.GRPCInferenceService/ModelMetadata";
inline constexpr std::string_view kModelInfer = "/inference.GRPCInferenceService/ModelInfer";
inline constexpr std::string_view kModelStreamInfer =
    "/inference.GRPCInferenceService/ModelStreamInfer";
inline constexpr std::string_view kModelStatistics =
    "/inference.GRPCInferenceService/ModelStatistics";
inline constexpr std::string_view kModelConfig = "/inference.GRPCInferenceService/ModelConfig";
inline constexpr std::string_view kRepositoryIndex =
    "/inference.GRPCInferenceService/RepositoryIndex";
inline constexpr std::string_view kRepositoryModelLoad =
    "/inference.GRPCInferenceService/RepositoryModelLoad";
inline constexpr std::string_view kRepositoryModelUnload =
    "/inference.GRPCInferenceService/RepositoryModelUnload";
inline constexpr std::string_view kSystemSharedMemoryStatus =
    "/inference.GRPCInferenceService/SystemSharedMemoryStatus";
inline constexpr std::string_view kSystemSharedMemoryRegister =
    "/inference.GRPCInferenceService/SystemSharedMemoryRegister";
inline constexpr std::string_view kSystemSharedMemoryUnregister =
    "/inference.GRPCInferenceService/SystemSharedMemoryUnregister";
inline constexpr std::string_view kCudaSharedMemoryStatus =
    "/inference.GRPCInferenceService/CudaSharedMemoryStatus";
inline constexpr std::string_view kCudaSharedMemoryRegister =
    "/inference.GRPCInferenceService/CudaSharedMemoryRegister";
inline constexpr std::string_view kCudaSharedMemoryUnregister =
    "/inference.GRPCInferenceService/CudaSharedMemoryUnregister";
}  // namespace rpc

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_RPC_PATHS_H_
