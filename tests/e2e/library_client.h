// The C++ client library connected to a test's daemon, for the e2e tests of the library.
#ifndef NEURON_SERVE_TESTS_E2E_LIBRARY_CLIENT_H_
#define NEURON_SERVE_TESTS_E2E_LIBRARY_CLIENT_H_

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "client/lib/client.h"
#include "gtest/gtest.h"

namespace neuronserve::testing {

// A Client of `address` with a 60 s default deadline; null (and a test failure) when Connect
// refuses.
inline std::unique_ptr<client::Client> ConnectLibraryClient(const std::string& address) {
  client::ConnectOptions options;
  options.target = address;
  options.timeout = absl::Seconds(60);
  absl::StatusOr<std::unique_ptr<client::Client>> connected = client::Client::Connect(options);
  EXPECT_TRUE(connected.ok()) << connected.status();
  return connected.ok() ? *std::move(connected) : nullptr;
}

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_E2E_LIBRARY_CLIENT_H_
