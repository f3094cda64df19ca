#include "server/neuron_serving_service.h"

#include "server/enumerate_response.h"

namespace neuronserve {

NeuronServingService::NeuronServingService(const NrtRuntime& runtime,
                                           const DeviceInventory& inventory)
    : runtime_(runtime), inventory_response_(BuildEnumerateResponse(inventory)) {}

grpc::ServerUnaryReactor* NeuronServingService::Enumerate(grpc::CallbackServerContext* context,
                                                          const v1::EnumerateRequest* /*request*/,
                                                          v1::EnumerateResponse* response) {
  *response = inventory_response_;
  FillMemoryUse(runtime_, *response);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace neuronserve
