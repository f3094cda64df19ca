#include "tests/bench/http_load.h"

#include <algorithm>
#include <thread>

namespace neuronserve::bench {

LoadResult RunHttpLoad(const std::string& address, const HttpPost& post, const HttpCheck& check,
                       const LoadOptions& options) {
  const absl::Time start = absl::Now();
  const absl::Time measure_from = start + options.warmup;
  const absl::Time measure_until = measure_from + options.measure;
  std::vector<LoadResult> per_slot(options.concurrency);
  std::vector<std::thread> slots;
  for (int slot = 0; slot < options.concurrency; ++slot) {
    slots.emplace_back([&, slot] {
      LoadResult& result = per_slot[slot];
      HttpConnection connection(address);
      int measured = 0;
      // Until the window ends and this slot completed its share inside it (bounded).
      while (absl::Now() < measure_until || (measured < options.min_calls_per_slot &&
                                             absl::Now() < measure_until + options.max_extra)) {
        const absl::Time sent = absl::Now();
        const HttpAnswer answer = connection.Send(post);
        const absl::Time done = absl::Now();
        std::string wrong = answer.status == 0 ? answer.error : check(answer);
        if (!wrong.empty()) {
          if (result.failed++ == 0) result.first_error = wrong;
          if (answer.status == 0) break;
          continue;
        }
        if (sent >= measure_from) {
          ++result.completed;
          ++measured;
          result.latencies_ns.push_back(absl::ToInt64Nanoseconds(done - sent));
        }
      }
    });
  }
  for (std::thread& slot : slots) slot.join();
  LoadResult total;
  for (LoadResult& result : per_slot) {
    total.completed += result.completed;
    total.failed += result.failed;
    if (total.first_error.empty()) total.first_error = result.first_error;
    total.latencies_ns.insert(total.latencies_ns.end(), result.latencies_ns.begin(),
                              result.latencies_ns.end());
  }
  total.seconds = absl::ToDoubleSeconds(std::max(absl::Now(), measure_until) - measure_from);
  return total;
}

}  // namespace neuronserve::bench
