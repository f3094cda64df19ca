// `neuronctl bench MODEL`: a load generator in the manner of Triton's perf_analyzer. Keeps N
// requests in flight for each level of --concurrency-range and reports throughput, latency
// percentiles, the server's queue and device times, and errors by gRPC code.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_COMMAND_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_COMMAND_H_

#include "client/neuronctl/subcommand.h"

namespace neuronserve::neuronctl {

const Subcommand& BenchCommand();

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_COMMAND_H_
