// The baseline server of neuron_serve_bench: BenchEcho on the gRPC callback API, run as its own
// process (the bench re-executes itself with --serve-echo) so that, like the daemon, it shares
// no threads, allocator or completion queues with the load-generating client.
#ifndef NEURON_SERVE_TESTS_BENCH_ECHO_SERVER_H_
#define NEURON_SERVE_TESTS_BENCH_ECHO_SERVER_H_

#include <cstdint>
#include <string>

namespace neuronserve::bench {

// Where the echo server answers a request.
enum class EchoAnswer {
  // On the gRPC thread that received it: the cheapest a gRPC server can be.
  kInline,
  // From one answering thread the handler queues the request to, which copies the bytes and
  // calls Finish: the least any server pays that keeps gRPC's threads off a device, as the
  // daemon does by giving every request to a core's worker. On a machine where waking a thread
  // is dear this hop alone costs a share of the inline echo's throughput, which no such server
  // can win back; the bench shows it beside the daemon.
  kHandOff,
};

// Serves BenchEcho on `listen_address` (port 0 picks one), writes
// "bench echo server listening on HOST:PORT" to stderr, and runs until SIGTERM or SIGINT.
// Like the daemon it receives messages up to `max_message_bytes` and sends any size.
// Returns the process exit code: 0 after a clean shutdown, 1 if it cannot listen.
int RunEchoServer(const std::string& listen_address, uint64_t max_message_bytes, EchoAnswer answer);

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_ECHO_SERVER_H_
