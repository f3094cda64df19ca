// The REST table's baseline: a bare HTTP/1.1 server on libmicrohttpd that answers every request
// with its own body, run as its own process (the bench re-executes itself with
// --serve-http-echo) like the gRPC echo server. It runs libmicrohttpd the way the daemon's
// HTTP server does (server/http/http_server.cc: its own polling threads on epoll, the same
// number of them, keep-alive, the same connection limit and idle timeout), so that what the
// REST table measures beyond it is the daemon's REST front end and inference path, not a
// differently tuned HTTP server.
#ifndef NEURON_SERVE_TESTS_BENCH_HTTP_ECHO_SERVER_H_
#define NEURON_SERVE_TESTS_BENCH_HTTP_ECHO_SERVER_H_

#include <cstdint>
#include <string>

namespace neuronserve::bench {

// Serves on `listen_address` (HOST:PORT, port 0 picks one), writes
// "bench HTTP echo server listening on HOST:PORT" to stderr, and runs until SIGTERM or SIGINT.
// Every request is answered 200 with its body, Content-Type application/octet-stream and the
// request's Inference-Header-Content-Length (0 when it had none), as the daemon's binary answer
// carries them, so one client check fits both; a body over `max_body_bytes` is answered 413.
// Returns the process exit code: 0 after a clean shutdown, 1 if it cannot listen.
int RunHttpEchoServer(const std::string& listen_address, uint64_t max_body_bytes);

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_HTTP_ECHO_SERVER_H_
