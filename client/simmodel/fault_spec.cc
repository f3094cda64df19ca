#include "client/simmodel/fault_spec.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/nrt_status_names.h"

namespace neuronserve::simmodel {
namespace {

constexpr absl::string_view kForms =
    "on_execution=N:STATUS, every=N:STATUS or probability=P:SEED:STATUS";

absl::Status BadSpec(absl::string_view spec, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("bad fault '", spec, "': ", why));
}

absl::StatusOr<FaultStatus> ParseStatus(absl::string_view spec, absl::string_view text) {
  int32_t number = 0;
  if (absl::SimpleAtoi(text, &number)) {
    if (number == NRT_SUCCESS) return BadSpec(spec, "status 0 is NRT_SUCCESS, which is no fault");
    return FaultStatus(number);
  }
  const std::optional<NRT_STATUS> status = NrtStatusFromName(std::string_view(text.data(), text.size()));
  if (!status.has_value()) {
    return BadSpec(spec, absl::StrCat("unknown status '", text,
                                      "' (want an NRT_STATUS name such as NRT_HW_ERROR, or a "
                                      "number)"));
  }
  if (*status == NRT_SUCCESS) return BadSpec(spec, "NRT_SUCCESS is no fault");
  return FaultStatus(std::string(text));
}

absl::StatusOr<uint64_t> ParsePositiveCount(absl::string_view spec, absl::string_view what,
                                            absl::string_view text) {
  uint64_t value = 0;
  if (!absl::SimpleAtoi(text, &value) || value == 0) {
    return BadSpec(spec, absl::StrCat(what, " must be a positive integer, got '", text, "'"));
  }
  return value;
}

}  // namespace

absl::StatusOr<Fault> ParseFaultSpec(absl::string_view spec) {
  const std::vector<absl::string_view> key_and_rest = absl::StrSplit(spec, absl::MaxSplits('=', 1));
  if (key_and_rest.size() != 2) return BadSpec(spec, absl::StrCat("want ", kForms));
  const absl::string_view key = key_and_rest[0];
  const std::vector<absl::string_view> fields = absl::StrSplit(key_and_rest[1], ':');

  if (key == "on_execution" || key == "every") {
    if (fields.size() != 2) {
      return BadSpec(spec, absl::StrCat("want ", key, "=N:STATUS"));
    }
    absl::StatusOr<uint64_t> n = ParsePositiveCount(spec, "N", fields[0]);
    if (!n.ok()) return n.status();
    absl::StatusOr<FaultStatus> status = ParseStatus(spec, fields[1]);
    if (!status.ok()) return status.status();
    if (key == "on_execution") return Fault{FaultOnExecution{*n}, *std::move(status)};
    return Fault{FaultEvery{*n}, *std::move(status)};
  }

  if (key == "probability") {
    if (fields.size() != 3) return BadSpec(spec, "want probability=P:SEED:STATUS");
    double probability = 0;
    if (!absl::SimpleAtod(fields[0], &probability) || !(probability > 0 && probability <= 1)) {
      return BadSpec(spec, absl::StrCat("P must be a number in (0, 1], got '", fields[0], "'"));
    }
    uint64_t seed = 0;
    if (!absl::SimpleAtoi(fields[1], &seed)) {
      return BadSpec(spec,
                     absl::StrCat("SEED must be a non-negative integer, got '", fields[1], "'"));
    }
    absl::StatusOr<FaultStatus> status = ParseStatus(spec, fields[2]);
    if (!status.ok()) return status.status();
    return Fault{FaultWithProbability{probability, seed}, *std::move(status)};
  }

  return BadSpec(spec, absl::StrCat("unknown fault form '", key, "' (want ", kForms, ")"));
}

}  // namespace neuronserve::simmodel
