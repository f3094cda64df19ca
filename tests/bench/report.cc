#include "tests/bench/report.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tests/bench/bench_flags.h"

namespace neuronserve::bench {
namespace {

const char* FormName(TensorForm form) { return form == TensorForm::kFloat ? "float" : "raw"; }

// "  12345.6   0.081   0.150", or the same width saying what went wrong.
std::string MeasurementColumns(const Measurement& measurement) {
  if (!measurement.result.has_value()) return absl::StrFormat("%12s %8s %8s", "error", "-", "-");
  const LoadResult& result = *measurement.result;
  const neuronctl::LatencySummary latency = result.Latency();
  return absl::StrFormat("%12.1f %8.3f %8.3f", result.PerSecond(), latency.p50_ns / 1e6,
                         latency.p99_ns / 1e6);
}

// Under a row: why a target could not be measured, or how many of its calls failed.
void PrintProblems(const char* target, const Measurement& measurement) {
  if (measurement.ok()) return;
  std::string line = absl::StrCat("    ", target, ": ");
  if (measurement.result.has_value() && measurement.result->failed > 0) {
    absl::StrAppend(&line, measurement.result->failed,
                    " calls failed, first: ", measurement.result->first_error);
  } else {
    absl::StrAppend(&line, measurement.error);
  }
  std::printf("%s\n", line.c_str());
}

std::string RatioColumn(const std::optional<double>& ratio) {
  return ratio.has_value() ? absl::StrFormat("%10.2f", *ratio) : absl::StrFormat("%10s", "-");
}

// "0.61", or "-" when not measured.
std::string RatioText(std::optional<double> ratio) {
  return ratio.has_value() ? absl::StrFormat("%.2f", *ratio) : "-";
}

// "+41 us met" against an upper bound.
std::string MicrosecondsVerdict(std::optional<double> above_us, double bound_us) {
  if (!above_us.has_value()) return "not measured";
  return absl::StrFormat("%+.0f us %s", *above_us, *above_us <= bound_us ? "met" : "MISSED");
}

std::string Verdict(std::optional<double> ratio, double target) {
  if (!ratio.has_value()) return "not measured";
  // Three decimals: 0.897 must not read as a missed 0.90.
  return absl::StrFormat("%.3f %s", *ratio, *ratio >= target ? "met" : "MISSED");
}

// `over`'s req/s over `base`'s, when both have a result (failed calls included: the row shows
// them) and `base` completed any.
std::optional<double> MeasuredRatio(const Measurement& over, const Measurement& base) {
  if (!over.result.has_value() || !base.result.has_value()) return std::nullopt;
  const double base_rate = base.result->PerSecond();
  if (base_rate <= 0) return std::nullopt;
  return over.result->PerSecond() / base_rate;
}

}  // namespace

std::optional<double> ComparisonRow::Ratio() const { return MeasuredRatio(infer, echo); }
std::optional<double> ComparisonRow::V2Ratio() const { return MeasuredRatio(v2, echo); }
std::optional<double> ComparisonRow::HandOffRatio() const {
  return MeasuredRatio(hand_off_echo, echo);
}
std::optional<double> ComparisonRow::InferOverHandOff() const {
  return MeasuredRatio(infer, hand_off_echo);
}

namespace {

// `over`'s p50 minus `base`'s, in microseconds, when both have a result.
std::optional<double> P50AboveUs(const Measurement& over, const Measurement& base) {
  if (!over.result.has_value() || !base.result.has_value()) return std::nullopt;
  return (over.result->Latency().p50_ns - base.result->Latency().p50_ns) / 1e3;
}

}  // namespace

std::optional<double> ComparisonRow::InferP50AboveEchoUs() const { return P50AboveUs(infer, echo); }
std::optional<double> ComparisonRow::HandOffP50AboveEchoUs() const {
  return P50AboveUs(hand_off_echo, echo);
}
std::optional<double> ProtocolRow::Ratio() const { return MeasuredRatio(v2, native); }

std::optional<double> SharedMemoryRow::Ratio() const { return MeasuredRatio(shared, raw); }

void PrintSharedMemoryHeader(int infer_replicas) {
  std::printf(
      "\n== Shared memory: Infer with the tensor in the request (raw_data) vs in registered "
      "POSIX shared-memory regions (input and output; identity, latency 0, %d replica%s; the "
      "simulator's copies free, NRTSIM_DMA_BYTES_PER_SECOND unset), rounds alternating ==\n",
      infer_replicas, infer_replicas == 1 ? "" : "s");
  std::printf("%-8s %5s | %12s %8s %8s | %12s %8s %8s | %10s\n", "size", "conc", "raw req/s",
              "p50 ms", "p99 ms", "shm req/s", "p50 ms", "p99 ms", "shm/raw");
  std::fflush(stdout);
}

void PrintSharedMemoryRow(const SharedMemoryRow& row) {
  std::printf("%-8s %5d | %s | %s | %s\n", FormatBytes(row.tensor_bytes).c_str(), row.concurrency,
              MeasurementColumns(row.raw).c_str(), MeasurementColumns(row.shared).c_str(),
              RatioColumn(row.Ratio()).c_str());
  PrintProblems("raw", row.raw);
  PrintProblems("shm", row.shared);
  std::fflush(stdout);
}

void PrintSharedMemoryTargets(const std::vector<SharedMemoryRow>& rows) {
  if (rows.empty()) return;
  std::vector<std::string> large;
  std::vector<std::string> small;
  for (const SharedMemoryRow& row : rows) {
    if (row.tensor_bytes == (uint64_t{64} << 20)) {
      large.push_back(absl::StrCat("conc ", row.concurrency, ": ", Verdict(row.Ratio(), 3.0)));
    } else if (row.tensor_bytes == 4096) {
      small.push_back(absl::StrCat("conc ", row.concurrency, ": ", Verdict(row.Ratio(), 0.95)));
    }
  }
  std::printf("64 MiB, shm/raw >= 3:                  %s\n",
              large.empty() ? "not run" : absl::StrJoin(large, "; ").c_str());
  std::printf("4 KiB, shm/raw no worse (>= 0.95):     %s\n",
              small.empty() ? "not run" : absl::StrJoin(small, "; ").c_str());
  std::fflush(stdout);
}

std::optional<double> ScalingRow::Ratio() const {
  if (!infer.result.has_value() || ideal_per_second <= 0) return std::nullopt;
  return infer.result->PerSecond() / ideal_per_second;
}

void PrintComparisonHeader(int infer_replicas) {
  std::printf(
      "\n== Infer and ModelInfer (v2) (identity, latency 0, %d replica%s) vs bare gRPC echo, "
      "and the echo answered from another thread (hand-off): unary calls, rounds "
      "alternating ==\n",
      infer_replicas, infer_replicas == 1 ? "" : "s");
  std::printf(
      "%-8s %-5s %5s | %12s %8s %8s | %12s %8s %8s | %12s %8s %8s | %12s %8s %8s | %10s %10s "
      "%10s %10s\n",
      "size", "form", "conc", "echo req/s", "p50 ms", "p99 ms", "hand-off", "p50 ms", "p99 ms",
      "infer req/s", "p50 ms", "p99 ms", "v2 req/s", "p50 ms", "p99 ms", "v2/echo", "infer/echo",
      "hand/echo", "infer/hand");
  std::fflush(stdout);
}

void PrintComparisonRow(const ComparisonRow& row) {
  std::printf("%-8s %-5s %5d | %s | %s | %s | %s | %s %s %s %s\n",
              FormatBytes(row.tensor_bytes).c_str(), FormName(row.form), row.concurrency,
              MeasurementColumns(row.echo).c_str(), MeasurementColumns(row.hand_off_echo).c_str(),
              MeasurementColumns(row.infer).c_str(), MeasurementColumns(row.v2).c_str(),
              RatioColumn(row.V2Ratio()).c_str(), RatioColumn(row.Ratio()).c_str(),
              RatioColumn(row.HandOffRatio()).c_str(), RatioColumn(row.InferOverHandOff()).c_str());
  PrintProblems("echo", row.echo);
  PrintProblems("hand-off echo", row.hand_off_echo);
  PrintProblems("infer", row.infer);
  PrintProblems("v2", row.v2);
  std::fflush(stdout);
}

void PrintComparisonSkipped(uint64_t tensor_bytes, TensorForm form, int concurrency,
                            const std::string& why) {
  std::printf("%-8s %-5s %5d | skipped: %s\n", FormatBytes(tensor_bytes).c_str(), FormName(form),
              concurrency, why.c_str());
  std::fflush(stdout);
}

void PrintScalingHeader(uint64_t latency_us, uint64_t tensor_bytes) {
  std::printf("\n== Scaling: identity model, latency %llu us, %s, unary Infer ==\n",
              static_cast<unsigned long long>(latency_us), FormatBytes(tensor_bytes).c_str());
  std::printf("%8s %5s | %12s %8s %8s | %12s | %10s\n", "replicas", "conc", "infer req/s", "p50 ms",
              "p99 ms", "ideal req/s", "of ideal");
  std::fflush(stdout);
}

void PrintScalingRow(const ScalingRow& row) {
  std::printf("%8d %5d | %s | %12.1f | %s\n", row.replicas, row.concurrency,
              MeasurementColumns(row.infer).c_str(), row.ideal_per_second,
              RatioColumn(row.Ratio()).c_str());
  PrintProblems("infer", row.infer);
  std::fflush(stdout);
}

std::optional<double> PipeliningRow::PerReplica() const {
  if (!infer.result.has_value() || replicas <= 0) return std::nullopt;
  return infer.result->PerSecond() / replicas;
}

std::optional<double> PipeliningRow::OfOverlapped() const {
  const std::optional<double> per_replica = PerReplica();
  if (!per_replica.has_value()) return std::nullopt;
  return *per_replica * std::max(ExecutionUs(), static_cast<double>(copy_us)) / 1e6;
}

std::optional<double> PipeliningRow::OfSerial() const {
  const std::optional<double> per_replica = PerReplica();
  if (!per_replica.has_value()) return std::nullopt;
  return *per_replica * (ExecutionUs() + static_cast<double>(copy_us)) / 1e6;
}

void PrintPipeliningHeader(uint64_t latency_us, uint64_t copy_us, uint64_t tensor_bytes,
                           uint64_t dma_bytes_per_second) {
  std::printf(
      "\n== Pipelining: identity model, execution %llu us, copies %llu us per request (%s in "
      "and out, second daemon with NRTSIM_DMA_BYTES_PER_SECOND=%llu), unary Infer ==\n",
      static_cast<unsigned long long>(latency_us), static_cast<unsigned long long>(copy_us),
      FormatBytes(tensor_bytes).c_str(), static_cast<unsigned long long>(dma_bytes_per_second));
  std::printf(
      "(exec us: the mean time an execution held its core, as the daemon measured it around "
      "nrt_execute (the simulator's sleep of %llu us overshoots on a loaded machine); 1/max and "
      "1/sum use it; util: the cores' busy seconds over replicas x wall time, warm-up included)\n",
      static_cast<unsigned long long>(latency_us));
  std::printf("%8s %5s %5s | %12s %8s %8s | %12s %8s | %10s %10s %10s\n", "replicas", "depth",
              "conc", "infer req/s", "p50 ms", "p99 ms", "req/s/rep", "exec us", "of 1/max",
              "of 1/sum", "util");
  std::fflush(stdout);
}

void PrintPipeliningRow(const PipeliningRow& row) {
  const std::optional<double> per_replica = row.PerReplica();
  std::printf("%8d %5u %5d | %s | %s %s | %s %s %s\n", row.replicas, row.depth, row.concurrency,
              MeasurementColumns(row.infer).c_str(),
              per_replica.has_value() ? absl::StrFormat("%12.1f", *per_replica).c_str()
                                      : absl::StrFormat("%12s", "-").c_str(),
              row.execution_us.has_value() ? absl::StrFormat("%8.0f", *row.execution_us).c_str()
                                           : absl::StrFormat("%8s", "-").c_str(),
              RatioColumn(row.OfOverlapped()).c_str(), RatioColumn(row.OfSerial()).c_str(),
              RatioColumn(row.Utilization()).c_str());
  PrintProblems("infer", row.infer);
  std::fflush(stdout);
}

void PrintPipeliningTargets(const std::vector<PipeliningRow>& rows) {
  if (rows.empty()) return;
  std::vector<std::string> pipelined;
  std::vector<std::string> unpipelined;
  std::string utilization_8 = "not run";
  for (const PipeliningRow& row : rows) {
    const std::string replicas =
        absl::StrCat(row.replicas, " replica", row.replicas == 1 ? "" : "s");
    if (row.depth == 2) {
      pipelined.push_back(absl::StrCat(replicas, ": ", Verdict(row.OfOverlapped(), 0.9)));
      if (row.replicas == 8) {
        utilization_8 = absl::StrCat(Verdict(row.Utilization(), 0.97), " (", row.concurrency / 8,
                                     " in flight per replica)");
      }
    } else if (row.depth == 1) {
      const std::optional<double> serial = row.OfSerial();
      unpipelined.push_back(absl::StrCat(
          replicas, ": ", serial.has_value() ? absl::StrFormat("%.3f", *serial) : "not measured"));
    }
  }
  std::printf("pipelining targets:\n");
  std::printf("  depth 2, req/s per replica >= 0.90 x 1/max(execution, copies): %s\n",
              pipelined.empty() ? "not run" : absl::StrJoin(pipelined, "; ").c_str());
  std::printf("  depth 2, device utilization at 8 replicas >= 0.97: %s\n", utilization_8.c_str());
  std::printf("  depth 1, req/s per replica over 1/(execution + copies) (information): %s\n",
              unpipelined.empty() ? "not run" : absl::StrJoin(unpipelined, "; ").c_str());
  std::fflush(stdout);
}

void PrintProtocolHeader(int infer_replicas) {
  std::printf(
      "\n== ModelInfer (v2) vs native Infer (identity, latency 0, %d replica%s, raw): unary "
      "calls ==\n",
      infer_replicas, infer_replicas == 1 ? "" : "s");
  std::printf("%-8s %5s | %12s %8s %8s | %12s %8s %8s | %10s\n", "size", "conc", "native req/s",
              "p50 ms", "p99 ms", "v2 req/s", "p50 ms", "p99 ms", "v2/native");
  std::fflush(stdout);
}

void PrintProtocolRow(const ProtocolRow& row) {
  std::printf("%-8s %5d | %s | %s | %s\n", FormatBytes(row.tensor_bytes).c_str(), row.concurrency,
              MeasurementColumns(row.native).c_str(), MeasurementColumns(row.v2).c_str(),
              RatioColumn(row.Ratio()).c_str());
  PrintProblems("native", row.native);
  PrintProblems("v2", row.v2);
  std::fflush(stdout);
}

namespace {
std::optional<double> RatioOf(const Measurement& over, const Measurement& base) {
  if (!over.ok() || !base.ok() || base.result->PerSecond() <= 0) return std::nullopt;
  return over.result->PerSecond() / base.result->PerSecond();
}
}  // namespace

std::optional<double> HttpRow::BinaryRatio() const { return RatioOf(rest_binary, grpc); }
std::optional<double> HttpRow::JsonRatio() const { return RatioOf(rest_json, grpc); }

void PrintHttpHeader(int infer_replicas) {
  std::printf(
      "\n== REST (HTTP/1.1 keep-alive) vs gRPC ModelInfer (identity, latency 0, %d replica%s): "
      "unary calls, same daemon, rounds alternating ==\n",
      infer_replicas, infer_replicas == 1 ? "" : "s");
  std::printf("%-8s %5s | %12s %8s %8s | %12s %8s %8s | %12s %8s %8s | %10s %10s\n", "size", "conc",
              "gRPC req/s", "p50 ms", "p99 ms", "binary req/s", "p50 ms", "p99 ms", "JSON req/s",
              "p50 ms", "p99 ms", "bin/gRPC", "JSON/gRPC");
  std::fflush(stdout);
}

void PrintHttpRow(const HttpRow& row) {
  std::printf("%-8s %5d | %s | %s | %s | %s %s\n", FormatBytes(row.tensor_bytes).c_str(),
              row.concurrency, MeasurementColumns(row.grpc).c_str(),
              MeasurementColumns(row.rest_binary).c_str(),
              MeasurementColumns(row.rest_json).c_str(), RatioColumn(row.BinaryRatio()).c_str(),
              RatioColumn(row.JsonRatio()).c_str());
  PrintProblems("gRPC", row.grpc);
  PrintProblems("REST binary", row.rest_binary);
  PrintProblems("REST JSON", row.rest_json);
  std::fflush(stdout);
}

std::optional<double> RestEchoRow::Ratio() const { return RatioOf(rest, http_echo); }

void PrintRestEchoHeader(int infer_replicas) {
  std::printf(
      "\n== REST binary (POST /v2/models/NAME/infer, binary data extension; identity, latency 0, "
      "%d replica%s) vs HTTP/1.1 echo (libmicrohttpd as the daemon runs it): the same request "
      "bytes, keep-alive, rounds alternating ==\n",
      infer_replicas, infer_replicas == 1 ? "" : "s");
  std::printf("%-8s %5s | %12s %8s %8s | %12s %8s %8s | %14s\n", "size", "conc", "echo req/s",
              "p50 ms", "p99 ms", "rest req/s", "p50 ms", "p99 ms", "rest/http-echo");
  std::fflush(stdout);
}

void PrintRestEchoRow(const RestEchoRow& row) {
  const std::optional<double> ratio = row.Ratio();
  std::printf("%-8s %5d | %s | %s | %14s\n", FormatBytes(row.tensor_bytes).c_str(), row.concurrency,
              MeasurementColumns(row.http_echo).c_str(), MeasurementColumns(row.rest).c_str(),
              ratio.has_value() ? absl::StrFormat("%.2f", *ratio).c_str() : "-");
  PrintProblems("HTTP echo", row.http_echo);
  PrintProblems("REST", row.rest);
  std::fflush(stdout);
}

void PrintRestEchoSkipped(uint64_t tensor_bytes, int concurrency, const std::string& why) {
  std::printf("%-8s %5d | skipped: %s\n", FormatBytes(tensor_bytes).c_str(), concurrency,
              why.c_str());
  std::fflush(stdout);
}

namespace {
std::string Mebibytes(uint64_t bytes) {
  return absl::StrFormat("%.1f MiB", static_cast<double>(bytes) / (1 << 20));
}
// "+1.3 MiB" / "-0.4 MiB": growth may be negative (the heap gave memory back).
std::string SignedMebibytes(uint64_t to, uint64_t from) {
  const double mib = (static_cast<double>(to) - static_cast<double>(from)) / (1 << 20);
  return absl::StrFormat("%+.1f MiB", mib);
}
}  // namespace

void PrintRssHeader(pid_t daemon_pid, const std::string& malloc_mode, uint64_t tensor_bytes,
                    int concurrency, uint64_t warmup_requests, uint64_t requests,
                    uint64_t sample_every) {
  std::printf(
      "\n== RSS run: the daemon (pid %d, --malloc=%s) alone, identity %s latency 0, %d in "
      "flight, %llu requests of warm-up then %llu, VmRSS sampled every %llu requests or 5 s ==\n",
      static_cast<int>(daemon_pid), malloc_mode.c_str(), FormatBytes(tensor_bytes).c_str(),
      concurrency, static_cast<unsigned long long>(warmup_requests),
      static_cast<unsigned long long>(requests), static_cast<unsigned long long>(sample_every));
  std::fflush(stdout);
}

void PrintRssProgress(const char* phase, uint64_t done, uint64_t total, double per_second,
                      uint64_t rss_bytes) {
  std::printf("%-8s %11llu of %llu requests  %10.1f req/s  RSS %s\n", phase,
              static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
              per_second, Mebibytes(rss_bytes).c_str());
  std::fflush(stdout);
}

void PrintRssSummary(const RssSummary& summary) {
  constexpr uint64_t kGrowthTarget = uint64_t{16} << 20;
  std::printf("rss summary (reported, not asserted):\n");
  std::printf("  requests: %llu after %llu of warm-up, %llu failed, %.1f req/s after warm-up\n",
              static_cast<unsigned long long>(summary.requests),
              static_cast<unsigned long long>(summary.warmup_requests),
              static_cast<unsigned long long>(summary.failed),
              summary.seconds > 0 ? static_cast<double>(summary.requests) / summary.seconds : 0.0);
  std::printf("  RSS after warm-up %s, final %s, max sampled %s, peak (VmHWM) %s\n",
              Mebibytes(summary.after_warmup_bytes).c_str(), Mebibytes(summary.final_bytes).c_str(),
              Mebibytes(summary.max_sampled_bytes).c_str(), Mebibytes(summary.peak_bytes).c_str());
  const bool met = summary.final_bytes <= summary.after_warmup_bytes + kGrowthTarget;
  std::printf("  growth after warm-up within 16 MiB: final %s (%s), max sampled %s\n",
              SignedMebibytes(summary.final_bytes, summary.after_warmup_bytes).c_str(),
              met ? "met" : "MISSED",
              SignedMebibytes(summary.max_sampled_bytes, summary.after_warmup_bytes).c_str());
  std::fflush(stdout);
}

void PrintTargets(const std::vector<ComparisonRow>& comparison,
                  const std::vector<ScalingRow>& scaling,
                  const std::vector<ProtocolRow>& protocol) {
  std::printf("\n== Targets (reported, not asserted) ==\n");
  // Issue 32's: infer (and v2) over the echo at 4 KiB, 1 MiB and 16 MiB, raw; the hand-off
  // echo's own ratio beside each, since no server that keeps gRPC's threads off the device can
  // beat it.
  struct SizeTarget {
    uint64_t bytes;
    double target;
    std::vector<std::string> cells;
  };
  std::vector<SizeTarget> size_targets = {
      {4096, 0.8, {}}, {uint64_t{1} << 20, 0.9, {}}, {uint64_t{16} << 20, 0.9, {}}};
  std::string p50 = "not run";
  for (const ComparisonRow& row : comparison) {
    if (row.form != TensorForm::kRaw) continue;
    for (SizeTarget& size : size_targets) {
      if (row.tensor_bytes != size.bytes) continue;
      size.cells.push_back(absl::StrCat(
          "conc ", row.concurrency, ": infer ", Verdict(row.Ratio(), size.target), ", v2 ",
          Verdict(row.V2Ratio(), size.target), " (hand-off ", RatioText(row.HandOffRatio()), ")"));
    }
    if (row.tensor_bytes == 4096 && row.concurrency == 1) {
      const std::optional<double> infer = row.InferP50AboveEchoUs();
      const std::optional<double> v2 = P50AboveUs(row.v2, row.echo);
      const std::optional<double> hand_off = row.HandOffP50AboveEchoUs();
      p50 = absl::StrCat("infer ", MicrosecondsVerdict(infer, 30), ", v2 ",
                         MicrosecondsVerdict(v2, 30), " (hand-off +",
                         hand_off.has_value() ? absl::StrFormat("%.0f us", *hand_off) : "-", ")");
    }
  }
  for (const SizeTarget& size : size_targets) {
    std::printf("%-7s infer and v2 / echo >= %.2f:  %s\n", FormatBytes(size.bytes).c_str(),
                size.target,
                size.cells.empty() ? "not run" : absl::StrJoin(size.cells, "; ").c_str());
  }
  std::printf("4 KiB at conc 1, p50 <= echo + 30 us:  %s\n", p50.c_str());
  std::string scaling_4 = "not run";
  for (const ScalingRow& row : scaling) {
    if (row.replicas == 4) scaling_4 = Verdict(row.Ratio(), 0.9);
  }
  std::printf("4 replicas, >= 0.90 of ideal:          %s\n", scaling_4.c_str());
  std::vector<std::string> v2_cells;
  for (const ProtocolRow& row : protocol) {
    const bool target_cell =
        (row.tensor_bytes == 4096 || row.tensor_bytes == (uint64_t{1} << 20)) &&
        (row.concurrency == 1 || row.concurrency == 64);
    if (!target_cell) continue;
    // "The same throughput within 10 %": either way.
    const std::optional<double> ratio = row.Ratio();
    const std::string verdict =
        ratio.has_value()
            ? absl::StrFormat("%.3f %s", *ratio, *ratio >= 0.9 && *ratio <= 1.1 ? "met" : "MISSED")
            : "not measured";
    v2_cells.push_back(
        absl::StrCat(FormatBytes(row.tensor_bytes), " conc ", row.concurrency, ": ", verdict));
  }
  std::printf("v2/native within 0.90..1.10:          %s\n",
              v2_cells.empty() ? "not run" : absl::StrJoin(v2_cells, "; ").c_str());
  std::fflush(stdout);
}

std::optional<double> BatchingRow::ThroughputRatio() const {
  if (!batch1.result.has_value() || !batched.result.has_value()) return std::nullopt;
  const double base = batch1.result->PerSecond();
  if (base <= 0) return std::nullopt;
  return batched.result->PerSecond() / base;
}

std::optional<double> BatchingRow::P50Ratio() const {
  if (!batch1.result.has_value() || !batched.result.has_value()) return std::nullopt;
  const int64_t base = batch1.result->Latency().p50_ns;
  if (base <= 0) return std::nullopt;
  return static_cast<double>(batched.result->Latency().p50_ns) / static_cast<double>(base);
}

std::optional<double> SharingRow::FirstShare() const {
  if (!first.result.has_value() || !second.result.has_value()) return std::nullopt;
  const double total = first.result->PerSecond() + second.result->PerSecond();
  if (total <= 0) return std::nullopt;
  return first.result->PerSecond() / total;
}

std::optional<double> SharingRow::SecondShare() const {
  const std::optional<double> first_share = FirstShare();
  if (!first_share.has_value()) return std::nullopt;
  return 1.0 - *first_share;
}

void PrintBatchingHeader(uint64_t row_bytes, uint64_t batch1_latency_us,
                         uint64_t batch8_latency_us) {
  std::printf(
      "\n== Batching: identity of %s a row; batch-1 NEFF (%llu us) vs variants of batch 1 "
      "(%llu us) and 8 (%llu us), 1 replica each ==\n",
      FormatBytes(row_bytes).c_str(), static_cast<unsigned long long>(batch1_latency_us),
      static_cast<unsigned long long>(batch1_latency_us),
      static_cast<unsigned long long>(batch8_latency_us));
  std::printf("%5s | %12s %8s %8s | %12s %8s %8s | %10s %10s\n", "conc", "batch-1 req/s", "p50 ms",
              "p99 ms", "batched req/s", "p50 ms", "p99 ms", "throughput", "p50");
  std::fflush(stdout);
}

void PrintBatchingRow(const BatchingRow& row) {
  std::printf("%5d | %s | %s | %s %s\n", row.concurrency, MeasurementColumns(row.batch1).c_str(),
              MeasurementColumns(row.batched).c_str(), RatioColumn(row.ThroughputRatio()).c_str(),
              RatioColumn(row.P50Ratio()).c_str());
  PrintProblems("batch-1", row.batch1);
  PrintProblems("batched", row.batched);
  std::fflush(stdout);
}

void PrintSharingRow(const SharingRow& row) {
  std::printf("two batched models sharing core 0, %d in flight each:\n", row.concurrency);
  std::printf("%5s | %12s %8s %8s | %12s %8s %8s | %10s %10s\n", "conc", "first req/s", "p50 ms",
              "p99 ms", "second req/s", "p50 ms", "p99 ms", "first", "second");
  std::printf("%5d | %s | %s | %s %s\n", row.concurrency, MeasurementColumns(row.first).c_str(),
              MeasurementColumns(row.second).c_str(), RatioColumn(row.FirstShare()).c_str(),
              RatioColumn(row.SecondShare()).c_str());
  PrintProblems("first", row.first);
  PrintProblems("second", row.second);
  std::fflush(stdout);
}

void PrintBatchingTargets(const std::vector<BatchingRow>& rows, const SharingRow& sharing) {
  if (rows.empty()) return;
  const BatchingRow* lowest = &rows.front();
  const BatchingRow* highest = &rows.front();
  for (const BatchingRow& row : rows) {
    if (row.concurrency < lowest->concurrency) lowest = &row;
    if (row.concurrency > highest->concurrency) highest = &row;
  }
  std::printf("batching targets:\n");
  std::printf("  batched/batch-1 throughput at %d in flight >= 3.5: %s\n", highest->concurrency,
              Verdict(highest->ThroughputRatio(), 3.5).c_str());
  const std::optional<double> p50 = lowest->P50Ratio();
  std::printf(
      "  batched/batch-1 p50 at %d in flight within 10 %% (<= 1.10): %s\n", lowest->concurrency,
      !p50.has_value() ? "not measured"
                       : absl::StrFormat("%.3f %s", *p50, *p50 <= 1.10 ? "met" : "MISSED").c_str());
  const std::optional<double> first = sharing.FirstShare();
  const std::optional<double> second = sharing.SecondShare();
  std::printf("  each model sharing a core >= 0.40 of it: first %s, second %s\n",
              Verdict(first, 0.4).c_str(), Verdict(second, 0.4).c_str());
  std::fflush(stdout);
}

}  // namespace neuronserve::bench
