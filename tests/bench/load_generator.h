// The client half of the benchmark: keeps a fixed number of unary calls in flight against one
// target (echo or Infer) from one process, on gRPC's callback API, so that 64 calls in flight
// need no 64 client threads: each "slot" starts its next call from the completion callback of
// its previous one.
#ifndef NEURON_SERVE_TESTS_BENCH_LOAD_GENERATOR_H_
#define NEURON_SERVE_TESTS_BENCH_LOAD_GENERATOR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "client/neuronctl/bench/latency_stats.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"
#include "inference/grpc_service.pb.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve::bench {

// Starts one unary call to the target; `done` runs exactly once, on a gRPC thread, when the
// call ends. Echo, Infer and ModelInfer all fit this shape, so all are driven by the same client
// code (RunLoad and CallOnce are instantiated for the native and the v2 messages).
template <typename Request, typename Response>
using StartCallOf = std::function<void(grpc::ClientContext* context, const Request* request,
                                       Response* response, std::function<void(grpc::Status)> done)>;
// Empty when `response` is what the request should get, else what is wrong with it. Called on
// every response, so it should be cheap (sizes, not contents).
template <typename Response>
using CheckResponseOf = std::function<std::string(const Response& response)>;

using StartCall = StartCallOf<v1::InferRequest, v1::InferResponse>;
using CheckResponse = CheckResponseOf<v1::InferResponse>;
using V2StartCall = StartCallOf<inference::ModelInferRequest, inference::ModelInferResponse>;
using V2CheckResponse = CheckResponseOf<inference::ModelInferResponse>;

struct LoadOptions {
  int concurrency = 1;
  absl::Duration warmup = absl::Milliseconds(500);
  absl::Duration measure = absl::Seconds(2);
  // Each phase also lasts until this many calls per slot completed in it (at most `max_extra`
  // longer), so that a slow cell is not judged on a handful of completions.
  int min_calls_per_slot = 2;
  absl::Duration max_extra = absl::Seconds(60);
  // The measured phase also ends once this many calls completed in it (0: no such end), for a
  // run that counts requests rather than time (the RSS run). The calls still in flight then
  // complete but are not counted.
  uint64_t stop_after_calls = 0;
  absl::Duration call_timeout = absl::Seconds(60);
};

struct LoadResult {
  uint64_t completed = 0;  // successful calls that ended inside the measured window(s)
  double seconds = 0;      // the measured window(s)
  uint64_t failed = 0;     // failed calls and wrong responses, warm-up included
  std::string first_error;
  std::vector<int64_t> latencies_ns;  // of the successful calls in the window(s)

  double PerSecond() const { return seconds > 0 ? static_cast<double>(completed) / seconds : 0; }
  neuronctl::LatencySummary Latency() const;
  // Adds another window of the same target (the rounds of a cell).
  void Add(const LoadResult& other);
};

// Runs warm-up then measurement with options.concurrency calls of `request` in flight, and
// waits for every call to end. `request` must stay unchanged until it returns (the calls only
// read it, concurrently).
template <typename Request, typename Response>
LoadResult RunLoad(const StartCallOf<Request, Response>& start, const Request& request,
                   const CheckResponseOf<Response>& check, const LoadOptions& options);

// One call, waited for: the probe that checks a target answers correctly before it is loaded.
template <typename Request, typename Response>
grpc::Status CallOnce(const StartCallOf<Request, Response>& start, const Request& request,
                      Response* response, absl::Duration timeout);

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_LOAD_GENERATOR_H_
