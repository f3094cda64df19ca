// Waiting in the HTTP server's tests for what the server's threads do: until a condition holds
// (with a deadline, polled every millisecond), or checking that one keeps holding for a period
// (the absence of a callback can only be checked over some time).
#ifndef NEURON_SERVE_TESTS_SERVER_HTTP_POLLING_H_
#define NEURON_SERVE_TESTS_SERVER_HTTP_POLLING_H_

#include <functional>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace neuronserve::http_polling {

// True once `done` holds; false when `timeout` passed first.
inline bool PollUntil(const std::function<bool()>& done,
                      absl::Duration timeout = absl::Seconds(5)) {
  const absl::Time until = absl::Now() + timeout;
  while (!done()) {
    if (absl::Now() >= until) return false;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return true;
}

// True when `holds` held at every check for all of `period`.
inline bool StaysTrueFor(const std::function<bool()>& holds, absl::Duration period) {
  const absl::Time until = absl::Now() + period;
  while (absl::Now() < until) {
    if (!holds()) return false;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return holds();
}

}  // namespace neuronserve::http_polling

#endif  // NEURON_SERVE_TESTS_SERVER_HTTP_POLLING_H_
