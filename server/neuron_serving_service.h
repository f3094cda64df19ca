// neuronserve.v1.NeuronServing on the gRPC callback API.
//
// Handlers never block on the device: Enumerate answers from the inventory taken at start plus
// the runtime's memory counters, which are host-side reads.
#ifndef NEURON_SERVE_SERVER_NEURON_SERVING_SERVICE_H_
#define NEURON_SERVE_SERVER_NEURON_SERVING_SERVICE_H_

#include "core/device/device_inventory.h"
#include "core/nrt/nrt_runtime.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"

namespace neuronserve {

class NeuronServingService final : public v1::NeuronServing::CallbackService {
 public:
  // `runtime` must outlive the service.
  NeuronServingService(const NrtRuntime& runtime, const DeviceInventory& inventory);

  grpc::ServerUnaryReactor* Enumerate(grpc::CallbackServerContext* context,
                                      const v1::EnumerateRequest* request,
                                      v1::EnumerateResponse* response) override;

 private:
  const NrtRuntime& runtime_;
  const v1::EnumerateResponse inventory_response_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_NEURON_SERVING_SERVICE_H_
