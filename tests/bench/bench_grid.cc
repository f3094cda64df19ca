// Bench's grid: sizes x forms x concurrency, Infer and ModelInfer against the echo servers.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/bench/bench.h"
#include "tests/bench/payload.h"

namespace neuronserve::bench {

std::vector<ComparisonRow> Bench::RunComparison() {
  std::vector<ComparisonRow> rows;
  PrintComparisonHeader(flags_.infer_replicas);
  for (uint64_t size : flags_.sizes) {
    IdentityModel model{absl::StrCat("bench-identity-", size), size, 0, flags_.infer_replicas};
    std::optional<grpc::Status> loaded;  // at the first cell that runs
    for (const std::string& form_name : flags_.forms) {
      const TensorForm form = form_name == "float" ? TensorForm::kFloat : TensorForm::kRaw;
      const v1::InferRequest request = MakeRequest(model.name, size, form);
      const inference::ModelInferRequest v2 = MakeV2Request(request);
      for (int concurrency : flags_.concurrency) {
        if (const std::string why = WhyOverBudget(size, concurrency, flags_.memory_budget);
            !why.empty()) {
          PrintComparisonSkipped(size, form, concurrency, why);
          continue;
        }
        if (!loaded.has_value()) loaded = LoadIdentityModel(*daemon_stub_, model);
        ComparisonRow row{size, form, concurrency, {}, {}, {}, {}};
        row.echo.error = Probe(echo_call_, request);
        row.hand_off_echo.error = Probe(hand_off_echo_call_, request);
        row.infer.error = LoadedOrProbe(*loaded, infer_call_, request);
        row.v2.error = loaded->ok() ? Probe(v2_call_, v2) : row.infer.error;
        for (int round = 0; round < flags_.rounds; ++round) {
          const LoadOptions options = OptionsFor(flags_, concurrency, round, flags_.rounds);
          MeasureRound(echo_call_, request, ExpectSameSize(request), options, row.echo);
          MeasureRound(hand_off_echo_call_, request, ExpectSameSize(request), options,
                       row.hand_off_echo);
          MeasureRound(infer_call_, request, ExpectSameSize(request), options, row.infer);
          MeasureRound(v2_call_, v2, V2ExpectSameSize(v2), options, row.v2);
        }
        failed_ |= !row.echo.ok() || !row.hand_off_echo.ok() || !row.infer.ok() || !row.v2.ok();
        PrintComparisonRow(row);
        rows.push_back(std::move(row));
      }
    }
    if (loaded.has_value() && loaded->ok()) Unload(model.name);
  }
  return rows;
}

}  // namespace neuronserve::bench
