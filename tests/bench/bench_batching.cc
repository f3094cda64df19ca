// Bench's batching run: the dynamic batcher against batch 1, then two batched models sharing
// a core.
#include <thread>
#include <utility>
#include <vector>

#include "tests/bench/bench.h"
#include "tests/bench/payload.h"

namespace neuronserve::bench {

void Bench::RunBatching() {
  const uint64_t size = flags_.batching_size;
  const std::vector<IdentityModel::Variant> variants = {{1, flags_.batch1_latency_us},
                                                        {8, flags_.batch8_latency_us}};
  IdentityModel batch1{"bench-batch1", size, flags_.batch1_latency_us, 1, {}, {}};
  IdentityModel batched{"bench-batched", size, 0, 1, variants, {}};
  PrintBatchingHeader(size, flags_.batch1_latency_us, flags_.batch8_latency_us);
  const grpc::Status batch1_loaded = LoadIdentityModel(*daemon_stub_, batch1);
  const grpc::Status batched_loaded = LoadIdentityModel(*daemon_stub_, batched);
  const v1::InferRequest batch1_request = MakeRequest(batch1.name, size, TensorForm::kRaw);
  const v1::InferRequest batched_request = MakeRequest(batched.name, size, TensorForm::kRaw);
  std::vector<BatchingRow> rows;
  for (int concurrency : flags_.batching_concurrency) {
    BatchingRow row;
    row.concurrency = concurrency;
    row.batch1.error = LoadedOrProbe(batch1_loaded, infer_call_, batch1_request);
    row.batched.error = LoadedOrProbe(batched_loaded, infer_call_, batched_request);
    for (int round = 0; round < flags_.rounds; ++round) {
      const LoadOptions options = OptionsFor(flags_, concurrency, round, flags_.rounds);
      MeasureRound(infer_call_, batch1_request, ExpectSameSize(batch1_request), options,
                   row.batch1);
      MeasureRound(infer_call_, batched_request, ExpectSameSize(batched_request), options,
                   row.batched);
    }
    failed_ |= !row.batch1.ok() || !row.batched.ok();
    PrintBatchingRow(row);
    rows.push_back(std::move(row));
  }
  if (batch1_loaded.ok()) Unload(batch1.name);
  if (batched_loaded.ok()) Unload(batched.name);

  IdentityModel first{"bench-share-a", size, 0, 1, variants, 0};
  IdentityModel second{"bench-share-b", size, 0, 1, variants, 0};
  const grpc::Status first_loaded = LoadIdentityModel(*daemon_stub_, first);
  const grpc::Status second_loaded = LoadIdentityModel(*daemon_stub_, second);
  const v1::InferRequest first_request = MakeRequest(first.name, size, TensorForm::kRaw);
  const v1::InferRequest second_request = MakeRequest(second.name, size, TensorForm::kRaw);
  SharingRow sharing;
  sharing.concurrency = flags_.batching_share_concurrency;
  sharing.first.error = LoadedOrProbe(first_loaded, infer_call_, first_request);
  sharing.second.error = LoadedOrProbe(second_loaded, infer_call_, second_request);
  // One window, both loads at once: the point is what each gets while the other competes.
  const LoadOptions options = OptionsFor(flags_, sharing.concurrency, 0, 1);
  std::thread other([&] {
    MeasureRound(infer_call_, second_request, ExpectSameSize(second_request), options,
                 sharing.second);
  });
  MeasureRound(infer_call_, first_request, ExpectSameSize(first_request), options, sharing.first);
  other.join();
  failed_ |= !sharing.first.ok() || !sharing.second.ok();
  PrintSharingRow(sharing);
  if (first_loaded.ok()) Unload(first.name);
  if (second_loaded.ok()) Unload(second.name);
  PrintBatchingTargets(rows, sharing);
}

}  // namespace neuronserve::bench
