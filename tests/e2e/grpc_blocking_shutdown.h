// GrpcBlockingShutdown: makes the test process's last gRPC shutdown a blocking one, on the
// test's own thread. A test suite holds one from its start to its end (SetUpTestSuite,
// TearDownTestSuite).
//
// Why: the C++ API shuts gRPC down when its last object (a channel, a stub's context) goes,
// and when that last reference is dropped on one of gRPC's own threads, gRPC cleans up on a
// detached thread, which the process's exit can overtake. LeakSanitizer then reports whatever
// that cleanup had not yet freed: a TLS client's OpenSSL allocation, in a run of
// TlsE2ETest.AKubernetesSymlinkSwapIsServedToNewConnections under load. Holding a reference
// until the suite ends makes the last shutdown this one, which cleans up before it returns.
//
// Thread safety: Begin and End on the test's main thread, once each, in that order.
#ifndef NEURON_SERVE_TESTS_E2E_GRPC_BLOCKING_SHUTDOWN_H_
#define NEURON_SERVE_TESTS_E2E_GRPC_BLOCKING_SHUTDOWN_H_

#include "grpc/grpc.h"

namespace neuronserve::testing {

struct GrpcBlockingShutdown {
  static void Begin() { grpc_init(); }
  // Every channel and call of the suite is gone by now: this is gRPC's last reference.
  static void End() { grpc_shutdown_blocking(); }
};

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_E2E_GRPC_BLOCKING_SHUTDOWN_H_
