// What the ClientLibraryE2ETest files share: the client library's names, connect options for a
// target, CONNECT (a client connected to a running daemon, or the test fails), and a byte
// string as the span the library takes.
//
// Thread safety: free functions.
#ifndef NEURON_SERVE_TESTS_E2E_CLIENT_LIBRARY_SUPPORT_H_
#define NEURON_SERVE_TESTS_E2E_CLIENT_LIBRARY_SUPPORT_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/lib/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"

namespace neuronserve::testing::client_library_e2e_test {

using client::Client;
using client::ConnectOptions;
using client::HealthStatus;
using client::InferOptions;
using client::InferResult;
using client::InferSession;
using client::InferStreamResult;
using client::NamedTensor;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::FloatEq;
using ::testing::HasSubstr;
using ::testing::Pointwise;

// Connects `var` (a std::unique_ptr<Client>) with `options`, failing the test if it cannot.
#define CONNECT(var, options)                                                           \
  std::unique_ptr<Client> var;                                                          \
  {                                                                                     \
    absl::StatusOr<std::unique_ptr<Client>> var##_connected = Client::Connect(options); \
    ASSERT_TRUE(var##_connected.ok()) << var##_connected.status();                      \
    var = *std::move(var##_connected);                                                  \
  }

inline ConnectOptions To(const std::string& target) {
  ConnectOptions options;
  options.target = target;
  options.timeout = absl::Seconds(60);
  return options;
}

inline absl::Span<const uint8_t> Bytes(const std::string& bytes) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace neuronserve::testing::client_library_e2e_test

#endif  // NEURON_SERVE_TESTS_E2E_CLIENT_LIBRARY_SUPPORT_H_
