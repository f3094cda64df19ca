// The identity models the bench loads into the daemon, built with the sim-model library
// (the same files `neuronctl sim-model --identity 1,N --latency-us L` writes) and uploaded
// through the LoadModel RPC like any client would.
#ifndef NEURON_SERVE_TESTS_BENCH_DAEMON_MODELS_H_
#define NEURON_SERVE_TESTS_BENCH_DAEMON_MODELS_H_

#include <cstdint>
#include <string>

#include "grpcpp/support/status.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"

namespace neuronserve::bench {

struct IdentityModel {
  std::string name;
  uint64_t tensor_bytes = 4096;  // float32 [1, tensor_bytes / 4], in and out
  uint64_t latency_us = 0;       // simulated device time per execution
  int replicas = 1;
};

// Uploads the model's sim NEFF (header with size and SHA-256, then 1 MiB chunks) and waits
// until it is READY. A model that cannot be built is INVALID_ARGUMENT.
grpc::Status LoadIdentityModel(v1::NeuronServing::Stub& stub, const IdentityModel& model);

grpc::Status UnloadModel(v1::NeuronServing::Stub& stub, const std::string& name);

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_DAEMON_MODELS_H_
