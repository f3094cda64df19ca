#include "client/neuronctl/bench/bench_report.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/neuronctl/protocol_flag.h"

namespace neuronserve::neuronctl {
namespace {

double Milliseconds(int64_t nanoseconds) { return static_cast<double>(nanoseconds) / 1e6; }

// Three decimals: microseconds, the resolution that matters for a ~1 ms device time.
std::string MsText(int64_t nanoseconds) {
  return absl::StrFormat("%.3f", Milliseconds(nanoseconds));
}

// The columns of a table row, in order; TableHeader's titles must match them.
constexpr absl::string_view kTableFormat = "%11s %9s %10s %9s %9s %9s %9s %9s %10s %6s  %s";

// The mean rows per execution, when the server reported them (a batched model, native API).
bool HasBatch(const LevelResult& level) { return level.requests > 0 && level.mean_batch_rows > 0; }
std::string BatchText(const LevelResult& level) {
  return absl::StrFormat("%.2f", level.mean_batch_rows);
}

}  // namespace

std::string ErrorsText(const LevelResult& level) {
  if (level.errors.empty()) return "-";
  return absl::StrJoin(level.errors, ", ", [](std::string* out, const auto& entry) {
    absl::StrAppend(out, entry.first, ": ", entry.second);
  });
}

std::string TableHeader() {
  return absl::StrFormat(kTableFormat, "concurrency", "requests", "req/s", "p50 ms", "p90 ms",
                         "p95 ms", "p99 ms", "queue ms", "device ms", "batch", "errors");
}

std::string TableRow(const LevelResult& level) {
  const bool any = level.requests > 0;
  auto ms = [any](int64_t nanoseconds) { return any ? MsText(nanoseconds) : std::string("-"); };
  return absl::StrFormat(kTableFormat, absl::StrCat(level.concurrency),
                         absl::StrCat(level.requests), absl::StrFormat("%.1f", level.throughput()),
                         ms(level.latency.p50_ns), ms(level.latency.p90_ns),
                         ms(level.latency.p95_ns), ms(level.latency.p99_ns),
                         ms(level.mean_queue_ns), ms(level.mean_device_ns),
                         HasBatch(level) ? BatchText(level) : std::string("-"), ErrorsText(level));
}

std::string CsvHeader() {
  return "concurrency,requests,errors,throughput_rps,p50_ms,p90_ms,p95_ms,p99_ms,mean_queue_ms,"
         "mean_device_ms,mean_batch_rows,error_codes";
}

std::string CsvRow(const LevelResult& level) {
  const bool any = level.requests > 0;
  auto ms = [any](int64_t nanoseconds) { return any ? MsText(nanoseconds) : std::string(); };
  // Code names are [A-Z_], so "CODE:N;CODE:N" needs no quoting in one field.
  const std::string codes =
      absl::StrJoin(level.errors, ";", [](std::string* out, const auto& entry) {
        absl::StrAppend(out, entry.first, ":", entry.second);
      });
  return absl::StrCat(level.concurrency, ",", level.requests, ",", level.error_count(), ",",
                      absl::StrFormat("%.3f", level.throughput()), ",", ms(level.latency.p50_ns),
                      ",", ms(level.latency.p90_ns), ",", ms(level.latency.p95_ns), ",",
                      ms(level.latency.p99_ns), ",", ms(level.mean_queue_ns), ",",
                      ms(level.mean_device_ns), ",",
                      HasBatch(level) ? BatchText(level) : std::string(), ",", codes);
}

nlohmann::json LevelJson(const LevelResult& level) {
  const bool any = level.requests > 0;
  auto ms = [any](int64_t nanoseconds) {
    return any ? nlohmann::json(Milliseconds(nanoseconds)) : nlohmann::json(nullptr);
  };
  nlohmann::json errors = nlohmann::json::object();
  for (const auto& [code, count] : level.errors) errors[code] = count;
  return {
      {"concurrency", level.concurrency},
      {"requests", level.requests},
      {"error_count", level.error_count()},
      {"errors", std::move(errors)},
      {"measured_s", absl::ToDoubleSeconds(level.measured)},
      {"throughput_rps", level.throughput()},
      {"latency_ms",
       {{"p50", ms(level.latency.p50_ns)},
        {"p90", ms(level.latency.p90_ns)},
        {"p95", ms(level.latency.p95_ns)},
        {"p99", ms(level.latency.p99_ns)},
        {"mean", ms(level.latency.mean_ns)}}},
      {"mean_queue_ms", ms(level.mean_queue_ns)},
      {"mean_device_ms", ms(level.mean_device_ns)},
      {"mean_batch_rows",
       HasBatch(level) ? nlohmann::json(level.mean_batch_rows) : nlohmann::json(nullptr)},
  };
}

nlohmann::json ReportJson(const BenchSetup& setup, const std::vector<LevelResult>& levels) {
  nlohmann::json report = {
      {"model", setup.model},
      {"api", setup.stream ? "stream" : "unary"},
      {"form", setup.shared_memory ? "shared-memory"
               : setup.raw         ? "raw"
                                   : "typed"},
      {"protocol", std::string(ProtocolName(setup.protocol))},
      {"seed", setup.seed},
      {"random_max", setup.random_max},
      {"warmup_s", absl::ToDoubleSeconds(setup.warmup)},
  };
  if (setup.requests > 0) {
    report["requests_per_level"] = setup.requests;
  } else {
    report["duration_s"] = absl::ToDoubleSeconds(setup.duration);
  }
  nlohmann::json list = nlohmann::json::array();
  for (const LevelResult& level : levels) list.push_back(LevelJson(level));
  report["levels"] = std::move(list);
  return report;
}

void ReportWriter::AddLevel(const LevelResult& level) {
  const bool first = levels_.empty();
  switch (format_) {
    case ReportFormat::kTable:
      if (first) out_ << TableHeader() << "\n";
      out_ << TableRow(level) << "\n" << std::flush;
      break;
    case ReportFormat::kCsv:
      if (first) out_ << CsvHeader() << "\n";
      out_ << CsvRow(level) << "\n" << std::flush;
      break;
    case ReportFormat::kJson:
      break;
  }
  levels_.push_back(level);
}

void ReportWriter::Finish() {
  if (format_ == ReportFormat::kJson) out_ << ReportJson(setup_, levels_).dump(2) << "\n";
}

}  // namespace neuronserve::neuronctl
