// The soak's reckoning, with the traffic stopped: every request answered exactly once and
// right, the daemon's counts, device memory, queues and RSS where they must be, and its exit.
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/bench/daemon_models.h"
#include "tests/bench/soak.h"
#include "tests/support/sanitizer_report.h"

namespace neuronserve::bench::soak {

using ::neuronserve::testing::ParsePrometheusText;
using ::neuronserve::testing::ProcessStatusBytes;
using ::neuronserve::testing::PromSample;
using ::neuronserve::testing::SanitizerReport;

bool Soak::Reckon(const std::map<Kind, Tally>& by_kind) {
  std::printf("\n%-14s %9s %9s %7s %5s %5s %5s %5s %9s  expected errors\n", "clients", "requests",
              "ok", "wrong", "lost", "dup", "unexp", "left", "");
  Tally all;
  for (const auto& [kind, tally] : by_kind) {
    if (kind == Kind::kLifecycle) continue;
    PrintTally(KindName(kind), tally);
    all.Add(tally);
  }
  PrintTally("all", all);
  for (const auto& [code, message] : all.first_message) {
    std::printf("  first %s: %s\n", code.c_str(), message.c_str());
  }
  for (const std::string& example : all.examples) std::printf("  problem: %s\n", example.c_str());
  std::printf(
      "lifecycle: %llu loads and replacements, %llu unloads, %llu refused (faults, "
      "replacement in progress); %llu fault files written; FAILED seen %llu times\n",
      static_cast<unsigned long long>(loads_.load()),
      static_cast<unsigned long long>(unloads_.load()),
      static_cast<unsigned long long>(failed_lifecycle_.load()),
      static_cast<unsigned long long>(fault_files_.load()), FailedModelsSeen());
  bool held = all.Problems() == 0 && all.ok > 0;
  // The daemon's side of "exactly once": it counted no more answers than were sent.
  const std::optional<std::map<std::string, double>> answered = AnsweredByProtocol();
  if (!answered.has_value()) {
    held = false;
  } else {
    uint64_t sent_grpc = 0;
    uint64_t sent_rest = 0;
    for (const auto& [kind, tally] : by_kind) {
      (kind == Kind::kRest ? sent_rest : sent_grpc) += tally.requests;
    }
    const double counted_grpc = Get(*answered, "native") + Get(*answered, "v2");
    const double counted_rest = Get(*answered, "v2_http");
    std::printf(
        "the daemon counted %.0f gRPC answers (%llu sent) and %.0f REST answers (%llu "
        "sent)\n",
        counted_grpc, static_cast<unsigned long long>(sent_grpc), counted_rest,
        static_cast<unsigned long long>(sent_rest));
    if (counted_grpc > static_cast<double>(sent_grpc) ||
        counted_rest > static_cast<double>(sent_rest)) {
      std::printf("soak: FAILED: the daemon counted more answers than requests were sent\n");
      held = false;
    }
  }
  {
    absl::MutexLock lock(&problems_mutex_);
    for (const std::string& problem : problems_) std::printf("  problem: %s\n", problem.c_str());
    held = held && problems_.empty();
  }
  std::printf(
      "answers: %llu requests, %llu lost or duplicated, %llu wrong, %llu unexpected "
      "errors: %s\n",
      static_cast<unsigned long long>(all.requests),
      static_cast<unsigned long long>(all.lost + all.duplicated),
      static_cast<unsigned long long>(all.wrong), static_cast<unsigned long long>(all.unexpected),
      held ? "held" : "FAILED");
  return held;
}

unsigned long long Soak::FailedModelsSeen() {
  absl::MutexLock lock(&problems_mutex_);
  return failed_models_seen_;
}

double Soak::Get(const std::map<std::string, double>& values, const std::string& key) {
  const auto found = values.find(key);
  return found == values.end() ? 0 : found->second;
}

void Soak::PrintTally(const char* name, const Tally& tally) {
  std::vector<std::string> codes;
  for (const auto& [code, count] : tally.expected) codes.push_back(absl::StrCat(code, ": ", count));
  std::printf(
      "%-14s %9llu %9llu %7llu %5llu %5llu %5llu %5llu %9s  %s\n", name,
      static_cast<unsigned long long>(tally.requests), static_cast<unsigned long long>(tally.ok),
      static_cast<unsigned long long>(tally.wrong), static_cast<unsigned long long>(tally.lost),
      static_cast<unsigned long long>(tally.duplicated),
      static_cast<unsigned long long>(tally.unexpected),
      static_cast<unsigned long long>(tally.abandoned), "", absl::StrJoin(codes, ", ").c_str());
}

std::optional<std::vector<PromFamily>> Soak::Scrape() {
  HttpConnection connection(http_address_);
  connection.set_receive_timeout(kPatientDeadline);
  HttpPost get;
  get.method = "GET";
  get.path = "/metrics";
  const HttpAnswer answer = connection.Send(get);
  if (answer.status != 200) {
    std::printf("soak: /metrics answered %d %s\n", answer.status, answer.error.c_str());
    return std::nullopt;
  }
  absl::StatusOr<std::vector<PromFamily>> families = ParsePrometheusText(answer.body);
  if (!families.ok()) {
    std::printf("soak: /metrics does not parse: %s\n", families.status().ToString().c_str());
    return std::nullopt;
  }
  return *std::move(families);
}

std::optional<std::map<std::string, double>> Soak::AnsweredByProtocol() {
  std::optional<std::vector<PromFamily>> families = Scrape();
  if (!families.has_value()) return std::nullopt;
  std::printf(
      "at the end: %.0f retired versions' series waiting for this scrape, %.0f dropped "
      "unscraped; the allocator's bytes in use %.1f MiB\n",
      Total(*families, "neuronserve_retired_metric_versions"),
      Total(*families, "neuronserve_retired_versions_unscraped_total"),
      Total(*families, "neuronserve_heap_in_use_bytes") / 1048576.0);
  std::map<std::string, double> by_protocol;
  for (const PromFamily& family : *families) {
    if (family.name != "neuronserve_requests_by_protocol_total") continue;
    for (const PromSample& sample : family.samples) {
      const auto protocol = sample.labels.find("protocol");
      if (protocol != sample.labels.end()) by_protocol[protocol->second] += sample.value;
    }
  }
  return by_protocol;
}

double Soak::Total(const std::vector<PromFamily>& families, const std::string& name) {
  double total = 0;
  for (const PromFamily& family : families) {
    if (family.name != name) continue;
    for (const PromSample& sample : family.samples) total += sample.value;
  }
  return total;
}

bool Soak::CheckQuiescentState() {
  const uint64_t scraped_rss = ProcessStatusBytes(daemon_->pid(), "VmRSS");  // after a scrape
  bool held = true;
  // Queues and held bytes drain by themselves (a hung-up REST request is withdrawn at once,
  // but the last answers may still be on their way): polled with a deadline.
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  std::string queues;
  for (;;) {
    std::optional<std::vector<PromFamily>> families = Scrape();
    if (families.has_value()) {
      const double depth = Total(*families, "neuronserve_queue_depth");
      const double in_flight = Total(*families, "neuronserve_executions_in_flight");
      const double bytes = Total(*families, "neuronserve_queued_request_bytes");
      queues = absl::StrCat("queue depth ", depth, ", executions in flight ", in_flight,
                            ", queued request bytes ", bytes);
      if (depth == 0 && in_flight == 0 && bytes == 0) break;
    }
    if (absl::Now() >= deadline) {
      held = false;
      break;
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  std::printf("queues after the traffic: %s: %s\n", queues.c_str(), held ? "empty" : "FAILED");

  // Device memory: per core, the tensor sets of the replicas on it (identity models have no
  // constants), against what the runtime says is in use.
  std::map<uint32_t, uint64_t> expected;
  v1::ListModelsResponse list;
  {
    grpc::ClientContext context;
    SetDeadline(context, kPatientDeadline);
    if (!stub_->ListModels(&context, v1::ListModelsRequest(), &list).ok()) held = false;
  }
  std::vector<std::string> loaded;
  for (const v1::ModelStatus& model : list.models()) {
    loaded.push_back(absl::StrCat(model.name(), " ", v1::ModelState_Name(model.state())));
    if (model.state() != v1::MODEL_STATE_READY) continue;
    for (const v1::ModelReplica& replica : model.replicas()) {
      if (!replica.cores().empty()) expected[replica.cores(0)] += replica.tensor_bytes();
    }
  }
  const std::optional<std::map<uint32_t, uint64_t>> used = DeviceMemoryUsed();
  const bool memory_held = used.has_value() && MemoryMatches(expected, *used);
  std::printf("device memory with %s loaded: %s\n", absl::StrJoin(loaded, ", ").c_str(),
              memory_held ? "each core's use equals its replicas' tensor sets" : "FAILED");
  held = held && memory_held;
  for (const v1::ModelStatus& model : list.models()) {
    const grpc::Status status = UnloadModel(*stub_, model.name());
    if (!status.ok()) {
      std::printf("soak: unloading '%s' failed: %s\n", model.name().c_str(),
                  status.error_message().c_str());
      held = false;
    }
  }
  const std::map<uint32_t, uint64_t> none;
  std::optional<std::map<uint32_t, uint64_t>> after = DeviceMemoryUsed();
  const bool freed = after.has_value() && MemoryMatches(none, *after);
  std::printf("device memory after unloading every model: %s\n",
              freed ? "0 on every core" : "FAILED");
  held = held && freed;

  if (warm_rss_.has_value()) {
    const uint64_t allowed = options_.rss_growth_bytes;
    // The end against 10 s, as a leak shows; in between, a burst (queues filling while
    // faults stall the cores, up to --max-queue and --max-queued-bytes) may pass the bound.
    const bool bounded = !options_.check_rss || settled_rss_ <= *warm_rss_ + allowed;
    std::printf(
        "daemon RSS: %.1f MiB at %.0f s, %.1f MiB at most after it, %.1f MiB as the traffic "
        "ended and %.1f MiB once settled; bound %.1f MiB: %s (%.1f MiB after the end's "
        "first scrape)\n",
        *warm_rss_ / 1048576.0,
        absl::ToDoubleSeconds(std::min(options_.warm_rss_at, options_.duration / 2)),
        max_rss_after_warmup_ / 1048576.0, traffic_end_rss_ / 1048576.0, settled_rss_ / 1048576.0,
        (*warm_rss_ + allowed) / 1048576.0,
        !options_.check_rss ? "not checked"
        : bounded           ? "held"
                            : "FAILED",
        scraped_rss / 1048576.0);
    held = held && bounded;
  }
  return held;
}

std::optional<std::map<uint32_t, uint64_t>> Soak::DeviceMemoryUsed() {
  v1::EnumerateResponse cores;
  grpc::ClientContext context;
  SetDeadline(context, kPatientDeadline);
  if (!stub_->Enumerate(&context, v1::EnumerateRequest(), &cores).ok()) return std::nullopt;
  std::map<uint32_t, uint64_t> used;
  for (const v1::NeuronCore& core : cores.cores()) {
    if (core.memory_used_bytes() != 0) used[core.index()] = core.memory_used_bytes();
  }
  return used;
}

bool Soak::MemoryMatches(const std::map<uint32_t, uint64_t>& expected,
                         const std::map<uint32_t, uint64_t>& used) {
  bool same = true;
  std::set<uint32_t> cores;
  for (const auto& [core, bytes] : expected) cores.insert(core);
  for (const auto& [core, bytes] : used) cores.insert(core);
  for (uint32_t core : cores) {
    const uint64_t want = expected.count(core) ? expected.at(core) : 0;
    const uint64_t have = used.count(core) ? used.at(core) : 0;
    if (want != have) {
      std::printf("  core %u: %llu bytes in use, the loaded replicas hold %llu\n", core,
                  static_cast<unsigned long long>(have), static_cast<unsigned long long>(want));
      same = false;
    }
  }
  return same;
}

int Soak::Finish(bool held) {
  if (daemon_ != nullptr) {
    const int code = daemon_->StopWith(SIGTERM, absl::Seconds(30));
    if (code != 0) {
      // A sanitizer's report is shown whole, on stderr, by ChildProcess (from its
      // `==PID==ERROR:` line): its head is what a tail would cut.
      if (!SanitizerReport(daemon_->Stderr()).empty()) {
        std::printf(
            "soak: the daemon exited with %d, stopped by a sanitizer (its report is "
            "printed whole on stderr)\n",
            code);
      } else {
        std::printf("soak: the daemon exited with %d; the end of its log:\n%s\n", code,
                    TailOf(daemon_->Stderr()).c_str());
      }
      held = false;
    }
  }
  std::printf("soak: %s\n", held ? "every check held" : "FAILED");
  return held ? 0 : 1;
}

std::string Soak::TailOf(const std::string& log) {
  constexpr size_t kTail = 8192;
  return log.size() <= kTail ? log : log.substr(log.size() - kTail);
}

}  // namespace neuronserve::bench::soak
