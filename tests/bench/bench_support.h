// The benchmark's shared pieces (tests/bench/bench.h's runs use them): its constants, the
// channels and calls it makes to its servers, the probe that checks a target answers right
// before it is measured, one round of load added to a measurement, and a scrape of a daemon's
// per-core totals.
//
// Thread safety: the functions keep no state; each may run on any thread. MeasureRound blocks
// for its round.
#ifndef NEURON_SERVE_TESTS_BENCH_BENCH_SUPPORT_H_
#define NEURON_SERVE_TESTS_BENCH_BENCH_SUPPORT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/time/time.h"
#include "bench_echo.grpc.pb.h"
#include "grpcpp/channel.h"
#include "inference/grpc_service.grpc.pb.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"
#include "tests/bench/bench_flags.h"
#include "tests/bench/load_generator.h"
#include "tests/bench/report.h"
#include "tests/support/child_process.h"

namespace neuronserve::bench {

constexpr absl::Duration kStartTimeout = absl::Seconds(30);
constexpr absl::Duration kStopTimeout = absl::Seconds(30);
constexpr absl::Duration kProbeTimeout = absl::Seconds(60);

// The daemon's own --max-message-bytes default (server/daemon/flags.cc): the bench raises it
// only when a request would not fit under it.
constexpr uint64_t kDaemonDefaultMaxMessageBytes = uint64_t{64} << 20;

// Room beside the tensor in a message or body: the protobuf framing and names, or the REST
// request's JSON part, each well under this.
constexpr uint64_t kMessageHeadroomBytes = uint64_t{1} << 20;

// What one request in flight holds, in copies of its tensor: on the client the request as
// serialized for its call and the response; in a server the request as received, the output
// and the response as serialized. A cell loads its baseline and the daemon in turn, but each
// server keeps what it freed (the tuned malloc trims only past 1 GiB free), so the machine
// holds both servers' peaks at once: 2 + 3 + 3. Measured at 16 MiB x 64 in flight: client 2.6 GiB,
// echo 2.5 GiB, daemon 2.5 GiB at their peaks, 7.3 GiB together against 8 GiB estimated. Fixed
// costs (a model's device tensors, the one request the client keeps per cell) are small beside it.
constexpr uint64_t kClientCopiesPerRequest = 2;
constexpr uint64_t kServerCopiesPerRequest = 3;
constexpr uint64_t kTensorCopiesPerRequestInFlight =
    kClientCopiesPerRequest + 2 * kServerCopiesPerRequest;

uint64_t BytesInFlight(uint64_t tensor_bytes, int concurrency);

// Empty when the cell's requests in flight fit `budget`, else the line that says why it is
// skipped.
std::string WhyOverBudget(uint64_t tensor_bytes, int concurrency, uint64_t budget);

// A channel whose messages may be as large as the servers accept (`max_message_bytes`); gRPC's
// default receive limit is 4 MiB.
std::shared_ptr<grpc::Channel> Connect(const std::string& address, int max_message_bytes);

// Waits for the "listening on" line; on failure prints the child's log and returns "".
std::string AddressOf(testing::ChildProcess& child, const char* what);

// One call whose answer is compared in full: a target that does not answer correctly is not
// loaded, its error goes in the table instead. Empty when the answer is right.
std::string Probe(const StartCall& start, const v1::InferRequest& request);

std::string Probe(const V2StartCall& start, const inference::ModelInferRequest& request);

// Round `round` of `rounds`: the first warms up for --warmup-seconds; later ones only until
// every slot has completed its calls (the connection is warm by then).
LoadOptions OptionsFor(const BenchFlags& flags, int concurrency, int round, int rounds);

// Adds one round of load to `measurement`, unless the target already failed its probe.
template <typename Request, typename Response>
void MeasureRound(const StartCallOf<Request, Response>& start, const Request& request,
                  const CheckResponseOf<Response>& check, const LoadOptions& options,
                  Measurement& measurement) {
  if (!measurement.error.empty()) return;
  LoadResult round = RunLoad(start, request, check, options);
  if (measurement.result.has_value()) {
    measurement.result->Add(round);
  } else {
    measurement.result = std::move(round);
  }
}

// Echo calls on `stub`, for RunLoad and Probe.
StartCall EchoCallOn(BenchEcho::Stub* stub);

// Infer calls on `stub`, for RunLoad and Probe.
StartCall InferCallOn(v1::NeuronServing::Stub* stub);

std::string HttpAddressOf(testing::ChildProcess& daemon);

// What every core of a daemon did so far, from its /metrics: the seconds its executions held
// it (measured around nrt_execute) and their count, summed over the cores.
struct CoreTotals {
  double busy_seconds = 0;
  double executions = 0;
  absl::Time at;
};

std::optional<CoreTotals> ScrapeCoreTotals(const std::string& http_address);

std::string SelfPath();

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_BENCH_SUPPORT_H_
