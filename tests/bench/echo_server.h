// The baseline server of neuron_serve_bench: BenchEcho on the gRPC callback API, run as its own
// process (the bench re-executes itself with --serve-echo) so that, like the daemon, it shares
// no threads, allocator or completion queues with the load-generating client.
#ifndef NEURON_SERVE_TESTS_BENCH_ECHO_SERVER_H_
#define NEURON_SERVE_TESTS_BENCH_ECHO_SERVER_H_

#include <cstdint>
#include <string>

namespace neuronserve::bench {

// Serves BenchEcho on `listen_address` (port 0 picks one), writes
// "bench echo server listening on HOST:PORT" to stderr, and runs until SIGTERM or SIGINT.
// Like the daemon it receives messages up to `max_message_bytes` and sends any size.
// Returns the process exit code: 0 after a clean shutdown, 1 if it cannot listen.
int RunEchoServer(const std::string& listen_address, uint64_t max_message_bytes);

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_ECHO_SERVER_H_
