// Bench's replica scaling: throughput of 1 to N replicas of a fixed-latency model against
// the ideal, and the one-round measurement of a model that the pipelining run shares.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/bench/bench.h"
#include "tests/bench/payload.h"

namespace neuronserve::bench {

std::vector<ScalingRow> Bench::RunScaling() {
  std::vector<ScalingRow> rows;
  PrintScalingHeader(flags_.scaling_latency_us, flags_.scaling_size);
  for (int replicas : flags_.scaling_replicas) {
    IdentityModel model{absl::StrCat("bench-scaling-", replicas), flags_.scaling_size,
                        flags_.scaling_latency_us, replicas};
    ScalingRow row;
    row.replicas = replicas;
    // Two requests in flight per replica by default: one executing, one queued behind it, so
    // no core idles between a completion and the client's next call.
    row.concurrency = replicas * flags_.scaling_concurrency_per_replica;
    row.ideal_per_second = replicas * 1e6 / static_cast<double>(flags_.scaling_latency_us);
    row.infer = MeasureModel(*daemon_stub_, infer_call_, model, row.concurrency);
    failed_ |= !row.infer.ok();
    PrintScalingRow(row);
    rows.push_back(std::move(row));
  }
  return rows;
}

Measurement Bench::MeasureModel(v1::NeuronServing::Stub& stub, const StartCall& call,
                                const IdentityModel& model, int concurrency,
                                const std::string& metrics_address,
                                std::optional<CoreTotals>* before,
                                std::optional<CoreTotals>* after) {
  Measurement measurement;
  const grpc::Status loaded = LoadIdentityModel(stub, model);
  const v1::InferRequest request = MakeRequest(model.name, model.tensor_bytes, TensorForm::kRaw);
  measurement.error = LoadedOrProbe(loaded, call, request);
  if (before != nullptr) *before = ScrapeCoreTotals(metrics_address);
  MeasureRound(call, request, ExpectSameSize(request), OptionsFor(flags_, concurrency, 0, 1),
               measurement);
  if (after != nullptr) *after = ScrapeCoreTotals(metrics_address);
  if (loaded.ok()) Unload(stub, model.name);
  return measurement;
}

}  // namespace neuronserve::bench
