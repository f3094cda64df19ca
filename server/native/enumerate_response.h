// DeviceInventory (core/) -> EnumerateResponse (proto), and the live memory use of each core.
#ifndef NEURON_SERVE_SERVER_NATIVE_ENUMERATE_RESPONSE_H_
#define NEURON_SERVE_SERVER_NATIVE_ENUMERATE_RESPONSE_H_

#include "core/device/device_inventory.h"
#include "core/nrt/nrt_runtime.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve {

// The static part of the answer: everything but memory use, which changes.
v1::EnumerateResponse BuildEnumerateResponse(const DeviceInventory& inventory);

// Fills memory_used_bytes of each core from the runtime; leaves 0 where the runtime cannot say.
void FillMemoryUse(const NrtRuntime& runtime, v1::EnumerateResponse& response);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_NATIVE_ENUMERATE_RESPONSE_H_
