// Bench's pipelining run: a copy-bound model on a daemon whose copies cost time, with and
// without pipelining.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "tests/bench/bench.h"
#include "tests/bench/payload.h"

namespace neuronserve::bench {

using ::neuronserve::testing::ChildProcess;

void Bench::RunPipelining() {
  const uint64_t size = flags_.pipelining_size;
  const uint64_t dma_bytes_per_second =
      std::max<uint64_t>(1, std::llround(2.0 * static_cast<double>(size) * 1e6 /
                                         static_cast<double>(flags_.pipelining_copy_us)));
  const int cores =
      *std::max_element(flags_.pipelining_replicas.begin(), flags_.pipelining_replicas.end());
  std::map<std::string, std::string> env = {
      {"NRTSIM_DMA_BYTES_PER_SECOND", std::to_string(dma_bytes_per_second)}};
  // A lock directory of its own, inside the bench's private one (removed with it): the main
  // daemon holds its cores until the end of the run, and in one directory the simulator would
  // refuse this daemon the same core numbers. Different lock directories are different
  // machines, which is what this daemon is: one whose copies cost time.
  if (const char* lock_dir = std::getenv("NRTSIM_LOCK_DIR"); lock_dir != nullptr) {
    env["NRTSIM_LOCK_DIR"] = absl::StrCat(lock_dir, "/pipelining");
  }
  std::unique_ptr<ChildProcess> daemon = StartDaemon(cores, env);
  const std::string address = AddressOf(*daemon, "pipelining neuron-serve daemon");
  if (address.empty()) {
    failed_ = true;
    return;
  }
  std::printf(
      "\npipelining daemon = child process %s on %s, NRTSIM_CORES=%d, "
      "NRTSIM_DMA_BYTES_PER_SECOND=%llu, a lock directory of its own\n",
      flags_.daemon.c_str(), address.c_str(), cores,
      static_cast<unsigned long long>(dma_bytes_per_second));
  const std::unique_ptr<v1::NeuronServing::Stub> stub =
      v1::NeuronServing::NewStub(Connect(address, ChannelLimit()));
  const StartCall call = InferCallOn(stub.get());
  const std::string metrics_address = HttpAddressOf(*daemon);

  PrintPipeliningHeader(flags_.pipelining_latency_us, flags_.pipelining_copy_us, size,
                        dma_bytes_per_second);
  std::vector<PipeliningRow> rows;
  for (int replicas : flags_.pipelining_replicas) {
    for (uint32_t depth : {1u, 2u}) {
      IdentityModel model{absl::StrCat("bench-pipelining-", replicas, "-", depth), size,
                          flags_.pipelining_latency_us, replicas};
      model.pipeline_depth = depth;
      PipeliningRow row;
      row.replicas = replicas;
      row.depth = depth;
      row.concurrency = replicas * flags_.pipelining_concurrency_per_replica;
      row.latency_us = flags_.pipelining_latency_us;
      row.copy_us = flags_.pipelining_copy_us;
      std::optional<CoreTotals> before;
      std::optional<CoreTotals> after;
      row.infer =
          MeasureModel(*stub, call, model, row.concurrency, metrics_address, &before, &after);
      if (before.has_value() && after.has_value() && after->executions > before->executions) {
        const double busy = after->busy_seconds - before->busy_seconds;
        row.execution_us = busy * 1e6 / (after->executions - before->executions);
        row.busy_share = busy / (replicas * absl::ToDoubleSeconds(after->at - before->at));
      }
      failed_ |= !row.infer.ok();
      PrintPipeliningRow(row);
      rows.push_back(std::move(row));
    }
  }
  PrintPipeliningTargets(rows);
  StopDaemon(*daemon, "the pipelining neuron-serve");
}

}  // namespace neuronserve::bench
