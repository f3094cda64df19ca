// What the operations tests need besides the API clients: HTTP GETs through the real curl
// binary (tests/support/http_get.h, as an operator or a probe would scrape), gRPC health Watch
// streams that record every status they receive, and waiting, with a deadline, for what the
// daemon changes on its own threads: a line in its log, its requests in flight, any condition.
#ifndef NEURON_SERVE_TESTS_E2E_OPS_CLIENT_H_
#define NEURON_SERVE_TESTS_E2E_OPS_CLIENT_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "tests/support/child_process.h"
#include "tests/support/http_get.h"

namespace neuronserve::testing {

using HealthStatus = grpc::health::v1::HealthCheckResponse::ServingStatus;

// Polls `condition` (every 10 ms) until it holds: true, or false once `timeout` has passed.
// The one way these tests wait for state the daemon changes asynchronously (a model's counters,
// a health status, a file it writes, ...) instead of reading it once or sleeping.
bool WaitUntil(const std::function<bool()>& condition, absl::Duration timeout = absl::Seconds(20));

// The first capture group of `pattern` (a std::regex; the whole match if it has no group) in
// the process's stderr, once it appears: a line reaches the capture some time after the daemon
// wrote it, so a test that expects a line waits for it here rather than reading Stderr() once.
std::optional<std::string> WaitForLog(const ChildProcess& process, const std::string& pattern,
                                      absl::Duration timeout = absl::Seconds(20));

// Waits until the daemon holds `count` requests or more, queued or executing, as its own
// metrics say (neuronserve_queue_depth + neuronserve_executions_in_flight, scraped from the
// HTTP endpoint its log names); false after 10 s.
bool WaitUntilInFlight(const ChildProcess& process, int count);

// One Watch call on the health service, read on its own thread; every status it receives is
// kept in order. Cancelled on destruction.
class HealthWatch {
 public:
  HealthWatch(const std::shared_ptr<grpc::Channel>& channel, const std::string& service);
  ~HealthWatch();
  HealthWatch(const HealthWatch&) = delete;
  HealthWatch& operator=(const HealthWatch&) = delete;

  // Waits until the latest status received is `status`; false on timeout.
  bool WaitForLatest(HealthStatus status, absl::Duration timeout = absl::Seconds(20));
  std::vector<HealthStatus> Received() const;
  // The call's status once it ended (nullopt while it runs).
  std::optional<grpc::Status> Ended() const;

 private:
  std::unique_ptr<grpc::health::v1::Health::Stub> stub_;
  grpc::ClientContext context_;
  mutable absl::Mutex mutex_;
  std::vector<HealthStatus> received_ ABSL_GUARDED_BY(mutex_);
  std::optional<grpc::Status> ended_ ABSL_GUARDED_BY(mutex_);
  std::thread reader_;
};

// Names of the statuses, for failure messages: "SERVICE_UNKNOWN NOT_SERVING SERVING".
std::string Describe(const std::vector<HealthStatus>& statuses);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_E2E_OPS_CLIENT_H_
