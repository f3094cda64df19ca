// neuron_serve_bench: the inference path's benchmark (see BenchUsage in bench_flags.cc), and
// the servers it starts as children of itself. main reads the flags and runs the mode they
// name: an echo server, the RSS, version-churn or soak run, or the default run (tests/bench/
// bench.h).
#include <cstdio>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "tests/bench/bench.h"
#include "tests/bench/bench_flags.h"
#include "tests/bench/echo_server.h"
#include "tests/bench/http_echo_server.h"
#include "tests/bench/soak_run.h"

int main(int argc, char** argv) {
  using namespace neuronserve::bench;
  absl::StatusOr<BenchFlags> flags = ParseBenchFlags(argc, argv);
  if (!flags.ok()) {
    std::fprintf(stderr, "neuron_serve_bench: %s\n", std::string(flags.status().message()).c_str());
    return 2;
  }
  if (flags->help) {
    std::printf("%s", BenchUsage().c_str());
    return 0;
  }
  // As the daemon does (server/daemon/main.cc): no deadlock graph behind every absl::Mutex lock
  // of gRPC's, in the echo server and in this client, so the baseline is gRPC at its cheapest.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  if (flags->serve_echo) {
    return RunEchoServer(flags->listen, flags->max_message_bytes,
                         flags->echo_hand_off ? EchoAnswer::kHandOff : EchoAnswer::kInline);
  }
  if (flags->serve_http_echo) return RunHttpEchoServer(flags->listen, flags->max_message_bytes);
  if (flags->rss_run) return Bench(*flags).RunRss();
  if (flags->churn_run) return Bench(*flags).RunChurn();
  if (flags->soak_run) {
    SoakOptions soak;
    soak.daemon = flags->daemon;
    soak.nrt_library = flags->nrt_library;
    soak.daemon_args = flags->daemon_args;
    soak.duration = absl::Seconds(flags->soak_seconds);
    soak.clients = flags->soak_clients;
    soak.seed = static_cast<uint32_t>(flags->soak_seed);
    soak.fault_statuses = flags->soak_fault_statuses;
    soak.check_rss = !flags->soak_skip_rss_bound;
    soak.scrape_every = absl::Seconds(flags->soak_scrape_seconds);
    soak.reuse_labels = flags->soak_reuse_labels;
    return RunSoak(soak);
  }
  return Bench(*flags).Run();
}
