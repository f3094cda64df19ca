// HTTP load for the bench's REST table: RunHttpLoad, the HTTP counterpart of RunLoad
// (load_generator.h) with the same LoadResult, so that the REST and gRPC columns are measured and
// reported alike, over one keep-alive connection (tests/support/http_connection.h) per slot.
//
// Thread safety: RunHttpLoad runs one thread per slot.
#ifndef NEURON_SERVE_TESTS_BENCH_HTTP_LOAD_H_
#define NEURON_SERVE_TESTS_BENCH_HTTP_LOAD_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "tests/bench/load_generator.h"
#include "tests/support/http_connection.h"

namespace neuronserve::bench {

using neuronserve::testing::HttpAddressInLog;
using neuronserve::testing::HttpAnswer;
using neuronserve::testing::HttpConnection;
using neuronserve::testing::HttpPost;

// Checks an answer: empty when right, else what is wrong.
using HttpCheck = std::function<std::string(const HttpAnswer& answer)>;

LoadResult RunHttpLoad(const std::string& address, const HttpPost& post, const HttpCheck& check,
                       const LoadOptions& options);

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_HTTP_LOAD_H_
