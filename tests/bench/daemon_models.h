// The identity models the bench loads into the daemon, built with the sim-model library
// (the same files `neuronctl sim-model --identity 1,N --latency-us L` writes) and uploaded
// through the LoadModel RPC like any client would: one NEFF, or a batched model's variants.
#ifndef NEURON_SERVE_TESTS_BENCH_DAEMON_MODELS_H_
#define NEURON_SERVE_TESTS_BENCH_DAEMON_MODELS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "grpcpp/support/status.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"

namespace neuronserve::bench {

struct IdentityModel {
  std::string name;
  uint64_t tensor_bytes = 4096;  // float32 [1, tensor_bytes / 4], in and out
  uint64_t latency_us = 0;       // simulated device time per execution
  int replicas = 1;
  // A batched model: the identity compiled for each batch size (rows of tensor_bytes), each
  // with its own device time per execution; empty: one NEFF of one row at latency_us.
  struct Variant {
    uint32_t batch_size = 1;
    uint64_t latency_us = 0;
  };
  std::vector<Variant> variants;
  // Its one replica starts at this core, shared with the other models that say the same.
  std::optional<uint32_t> shared_core;
  // Tensor sets bound per replica (ModelConfig.pipeline_depth): 1 runs copies and executions of
  // a replica one after another; 0 leaves it to the daemon's --pipeline-depth.
  uint32_t pipeline_depth = 0;
  // The version label it is loaded under (empty: none).
  std::string version;
  // A batched model's dynamic_batching.max_queue_delay_microseconds: how long a free core may
  // wait for more rows (0: the daemon's default, no wait).
  uint64_t max_queue_delay_us = 0;
};

// Uploads the model's sim NEFF (header with size and SHA-256, then 1 MiB chunks) and waits
// until it is READY. A model that cannot be built is INVALID_ARGUMENT.
grpc::Status LoadIdentityModel(v1::NeuronServing::Stub& stub, const IdentityModel& model);

grpc::Status UnloadModel(v1::NeuronServing::Stub& stub, const std::string& name);

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_DAEMON_MODELS_H_
