// The report of `neuronctl bench` in its three formats: an aligned table for people, CSV for
// spreadsheets, JSON for scripts. Table and CSV rows are written as each level ends, so a long
// run shows results as it goes; JSON is one document, written at the end.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_REPORT_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_REPORT_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "client/lib/infer_types.h"
#include "client/neuronctl/bench/bench_result.h"
#include "nlohmann/json.hpp"

namespace neuronserve::neuronctl {

enum class ReportFormat { kTable, kCsv, kJson };

// How the run was set up, for the JSON document.
struct BenchSetup {
  std::string model;
  bool stream = false;
  bool raw = true;
  bool shared_memory = false;  // tensors through a registered region (form "shared-memory")
  client::Protocol protocol = client::Protocol::kNative;
  uint64_t seed = 0;
  uint64_t random_max = 0;  // integer inputs are uniform in [0, random_max)
  absl::Duration warmup;
  absl::Duration duration;  // per level, when requests is 0
  uint64_t requests = 0;    // per level
};

// Lines without their newline. A level without a successful request shows "-" (table), empty
// fields (CSV) or null (JSON) for its latencies and server times.
std::string TableHeader();
std::string TableRow(const LevelResult& level);
std::string CsvHeader();
std::string CsvRow(const LevelResult& level);
// "RESOURCE_EXHAUSTED: 3, UNAVAILABLE: 1", or "-" for none.
std::string ErrorsText(const LevelResult& level);
nlohmann::json LevelJson(const LevelResult& level);
nlohmann::json ReportJson(const BenchSetup& setup, const std::vector<LevelResult>& levels);

// Writes the report to `out` as levels come in.
class ReportWriter {
 public:
  ReportWriter(ReportFormat format, BenchSetup setup, std::ostream& out)
      : format_(format), setup_(std::move(setup)), out_(out) {}

  void AddLevel(const LevelResult& level);
  // The JSON document (nothing for the other formats). Call once, after the last level.
  void Finish();

 private:
  const ReportFormat format_;
  const BenchSetup setup_;
  std::ostream& out_;
  std::vector<LevelResult> levels_;
};

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_REPORT_H_
