#include "client/neuronctl/bench/bench_command.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "client/lib/client.h"
#include "client/neuronctl/bench/bench_inputs.h"
#include "client/neuronctl/bench/bench_level_runner.h"
#include "client/neuronctl/bench/bench_report.h"
#include "client/neuronctl/bench/concurrency_range.h"
#include "client/neuronctl/bench/progress_line.h"
#include "client/neuronctl/bench/request_issuer.h"
#include "client/neuronctl/connection_flags.h"
#include "client/neuronctl/flag_values.h"
#include "client/neuronctl/output_format.h"
#include "client/neuronctl/protocol_flag.h"
#include "client/neuronctl/random_inputs.h"
#include "client/neuronctl/registered_tensor_region.h"
#include "client/neuronctl/shared_memory_flags.h"
#include "client/neuronctl/tensor_form_flag.h"
#include "client/neuronctl/usage_error.h"

namespace neuronserve::neuronctl {
namespace {

constexpr auto kOwnFlags = std::to_array<FlagSpec>({
    {"concurrency-range", FlagType::kValue, "START:END:STEP", "1:1",
     "requests in flight at each level; STEP is N (add N) or xF (multiply by F)"},
    {"duration", FlagType::kValue, "DURATION", "5s", "measurement time of each level"},
    {"requests", FlagType::kValue, "N", "",
     "measure exactly N requests per level instead of a --duration"},
    {"warmup", FlagType::kValue, "DURATION", "1s",
     "unmeasured traffic before each level's measurement; 0 for none"},
    {"stream", FlagType::kBoolean, "", "",
     "send on InferStream (one stream per request in flight) instead of unary Infer"},
    kTensorFormFlag,
    kProtocolFlag,
    kSharedMemoryFlag,
    kSharedMemoryPrefixFlag,
    {"seed", FlagType::kValue, "N", "0", "seed of the random input values"},
    kRandomMaxFlag,
    {"format", FlagType::kValue, "table|csv|json", "",
     "report format (default: table, or json with --output=json)"},
});
constexpr auto kBenchFlags = WithConnectionFlags(kOwnFlags);

constexpr absl::string_view kBenchDescription =
    "Measures a model under load, like Triton's perf_analyzer. For each level of\n"
    "--concurrency-range, keeps that many requests in flight (one worker thread per request,\n"
    "each sending its next request as soon as the previous one is answered): first for\n"
    "--warmup, not counted, then for --duration (or for exactly --requests requests).\n"
    "\n"
    "Inputs are random values (fixed by --seed) of the dtypes and shapes the server reports for\n"
    "the model, generated once before the run: float inputs uniform in [-1, 1) (float16,\n"
    "bfloat16 and fp8 rounded to their format), integer inputs uniform in [0, --random-max)\n"
    "(default 2, so token ids and attention masks are valid). Inputs of dtype 'unknown' are\n"
    "refused.\n"
    "\n"
    "--concurrency-range=START:END:STEP: levels START, START+STEP, ... (STEP N), or START,\n"
    "START*F, ... (STEP xF), up to END; END is a level only when a step lands on it (1:10:x2 is\n"
    "1,2,4,8). START alone is one level; START:END steps by 1. At most 1024.\n"
    "\n"
    "Each level reports: concurrency; requests (successful ones completed within the\n"
    "measurement window); throughput in requests/s; client-measured latency p50/p90/p95/p99\n"
    "in ms (nearest rank: always an observed latency); the server-reported mean queue time and\n"
    "device time in ms; for a batched model, the mean rows of the executions its requests ran\n"
    "in (batch: theirs and their batch-mates', padding not counted; '-' when the server did\n"
    "not say, as over --protocol=v2); and failed requests by gRPC code name (e.g.\n"
    "UNAVAILABLE: 3).\n"
    "Throughput, latencies and server times are of successful requests only. With --duration,\n"
    "a request counts when it completes inside the window; with --requests, exactly N are\n"
    "sent per level after the warmup (successes plus errors add up to N).\n"
    "\n"
    "--format: table (default; a row per level as it ends), csv (a header and a row per level),\n"
    "or json (one document with a \"levels\" array). --output=json means --format=json;\n"
    "--output=json with --format=table or csv is a usage error.\n"
    "\n"
    "On a terminal, stderr shows a live progress line (level, elapsed/total, requests,\n"
    "current req/s), erased before each result; otherwise one line per level is written.\n"
    "--protocol=v2 sends the same requests to the Open Inference Protocol's ModelInfer (with\n"
    "--stream, Triton's ModelStreamInfer) instead of Infer, so both front ends are measured\n"
    "with the same tool; v2 responses carry no queue or device time unless the server adds\n"
    "them as queue_us / device_us response parameters (else they show as 0).\n"
    "--shared-memory: the inputs are written once into a POSIX shared-memory object registered\n"
    "with the daemon, and each request in flight has its own area there for its outputs, so\n"
    "the requests and answers carry no tensor bytes (the daemon needs\n"
    "--allow-client-shared-memory, the same user and /dev/shm). The object is unregistered and\n"
    "removed when the run ends.\n"
    "--timeout is the deadline of each unary request; a stream's deadline is the level's\n"
    "warmup + duration + --timeout (no deadline with --requests).\n"
    "\n"
    "Exits 1 when the model is not loaded, the server cannot be reached, or every request of a\n"
    "level failed (the report so far is printed first, and later levels are not run).\n"
    "\n"
    "Example:\n"
    "  neuronctl bench mlp --concurrency-range=1:16:x2 --duration=5s --server=127.0.0.1:8001";

absl::StatusOr<absl::Duration> GetWarmup(const ParsedArgs& args) {
  const std::string value = args.Get("warmup").value_or("0");
  absl::Duration warmup;
  if (!absl::ParseDuration(value, &warmup) || warmup < absl::ZeroDuration() ||
      warmup == absl::InfiniteDuration()) {
    return UsageError(
        absl::StrCat("--warmup: '", value, "' is not a duration (e.g. 1s, 500ms, or 0 for none)"));
  }
  return warmup;
}

absl::StatusOr<ReportFormat> GetReportFormat(const ParsedArgs& args) {
  absl::StatusOr<OutputFormat> output = GetOutputFormat(args);
  if (!output.ok()) return output.status();
  const bool json_output = *output == OutputFormat::kJson;
  if (!args.Has("format")) return json_output ? ReportFormat::kJson : ReportFormat::kTable;
  const std::string value = *args.Get("format");
  ReportFormat format;
  if (value == "table") {
    format = ReportFormat::kTable;
  } else if (value == "csv") {
    format = ReportFormat::kCsv;
  } else if (value == "json") {
    format = ReportFormat::kJson;
  } else {
    return UsageError(absl::StrCat("--format must be table, csv or json, got '", value, "'"));
  }
  if (json_output && format != ReportFormat::kJson) {
    return UsageError(
        absl::StrCat("--format=", value, " contradicts --output=json; give only one of them"));
  }
  return format;
}

// Everything the command line says, checked before the server is contacted.
struct BenchPlan {
  std::vector<uint32_t> levels;
  LevelOptions level;  // concurrency filled in per level
  BenchSetup setup;
  ReportFormat format = ReportFormat::kTable;
  absl::Duration stream_timeout = absl::InfiniteDuration();
  std::string shared_memory_prefix;
};

absl::StatusOr<BenchPlan> PlanFromFlags(const ParsedArgs& args) {
  if (args.positional().size() != 1) {
    return UsageError(args.positional().empty()
                          ? "give the MODEL to benchmark"
                          : absl::StrCat("give one MODEL, not ", args.positional().size(),
                                         " (unexpected '", args.positional()[1], "')"));
  }
  BenchPlan plan;
  plan.setup.model = args.positional()[0];

  absl::StatusOr<std::vector<uint32_t>> levels =
      ParseConcurrencyRange(args.Get("concurrency-range").value_or(""));
  if (!levels.ok()) return levels.status();
  plan.levels = *std::move(levels);

  if (args.Has("requests")) {
    if (args.Has("duration")) {
      return UsageError("give --duration or --requests, not both");
    }
    absl::StatusOr<uint64_t> requests = GetPositiveFlag(args, "requests");
    if (!requests.ok()) return requests.status();
    plan.level.requests = *requests;
  } else {
    absl::StatusOr<absl::Duration> duration = GetDurationFlag(args, "duration");
    if (!duration.ok()) return duration.status();
    if (*duration == absl::InfiniteDuration()) {
      return UsageError("--duration: 'inf' is not a positive duration");
    }
    plan.level.duration = *duration;
  }
  absl::StatusOr<absl::Duration> warmup = GetWarmup(args);
  if (!warmup.ok()) return warmup.status();
  plan.level.warmup = *warmup;

  absl::StatusOr<bool> raw = GetRawTensorForm(args);
  if (!raw.ok()) return raw.status();
  absl::StatusOr<client::Protocol> protocol = GetProtocol(args);
  if (!protocol.ok()) return protocol.status();
  absl::StatusOr<uint64_t> seed = GetUnsignedFlag(args, "seed");
  if (!seed.ok()) return seed.status();
  absl::StatusOr<uint64_t> random_max = GetRandomMax(args);
  if (!random_max.ok()) return random_max.status();
  absl::StatusOr<ReportFormat> format = GetReportFormat(args);
  if (!format.ok()) return format.status();
  plan.format = *format;

  plan.setup.shared_memory = args.GetBool("shared-memory");
  if (plan.setup.shared_memory) {
    absl::StatusOr<std::string> prefix = GetRequiredFlag(args, "shared-memory-prefix");
    if (!prefix.ok()) return prefix.status();
    plan.shared_memory_prefix = *std::move(prefix);
  }
  plan.setup.stream = args.GetBool("stream");
  plan.setup.raw = *raw;
  plan.setup.protocol = *protocol;
  plan.setup.seed = *seed;
  plan.setup.random_max = *random_max;
  plan.setup.warmup = plan.level.warmup;
  plan.setup.duration = plan.level.duration;
  plan.setup.requests = plan.level.requests;

  if (plan.level.requests == 0) {
    // A stream spans the whole level, so its deadline is the level's length plus the slack one
    // request gets.
    absl::StatusOr<absl::Duration> timeout = GetDurationFlag(args, "timeout");
    if (!timeout.ok()) return timeout.status();
    plan.stream_timeout = plan.level.warmup + plan.level.duration + *timeout;
  }
  return plan;
}

std::string LevelNote(const BenchPlan& plan, size_t index) {
  const LevelOptions& level = plan.level;
  return absl::StrCat("bench: level ", index + 1, "/", plan.levels.size(), ", concurrency ",
                      plan.levels[index], ": ",
                      level.warmup > absl::ZeroDuration()
                          ? absl::StrCat(absl::FormatDuration(level.warmup), " warmup, then ")
                          : "",
                      level.requests > 0 ? absl::StrCat(level.requests, " requests")
                                         : absl::FormatDuration(level.duration));
}

absl::Status RunBench(const ParsedArgs& args, const CommandIo& io) {
  absl::StatusOr<BenchPlan> plan = PlanFromFlags(args);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<std::unique_ptr<client::Client>> connected = ConnectFromFlags(args);
  if (!connected.ok()) return connected.status();
  client::Client& client = **connected;
  const std::string& model_name = plan->setup.model;

  absl::StatusOr<v1::ModelStatus> model = client.GetModel(model_name);
  if (!model.ok()) return model.status();
  if (model->state() != v1::MODEL_STATE_READY) {
    return absl::FailedPreconditionError(absl::StrCat(
        "model '", model_name, "' is ", v1::ModelState_Name(model->state()), ", not READY"));
  }
  absl::StatusOr<std::unique_ptr<BenchInputs>> inputs =
      BenchInputs::Generate(*model, plan->setup.seed, plan->setup.random_max);
  if (!inputs.ok()) return inputs.status();
  const std::vector<client::NamedTensor>* tensors = &(*inputs)->tensors();
  // With --shared-memory: one region for the whole run, an output area per request in flight.
  std::unique_ptr<RegisteredTensorRegion> shared;
  if (plan->setup.shared_memory) {
    absl::StatusOr<std::unique_ptr<RegisteredTensorRegion>> region =
        RegisteredTensorRegion::Create(client, *model, *tensors, /*outputs=*/{},
                                       *std::max_element(plan->levels.begin(), plan->levels.end()),
                                       plan->setup.protocol, plan->shared_memory_prefix);
    if (!region.ok()) return region.status();
    shared = *std::move(region);
    tensors = &shared->inputs();
  }
  io.err << "bench: model '" << model_name << "', " << tensors->size() << " input(s), "
         << (*inputs)->bytes() << " bytes per request, "
         << (plan->setup.stream ? "stream" : "unary") << ", "
         << (shared != nullptr
                 ? absl::StrCat("shared-memory (region of ", shared->size(), " bytes)")
             : plan->setup.raw ? "raw"
                               : "float")
         << " tensors, " << ProtocolName(plan->setup.protocol) << " protocol\n";

  const bool stream = plan->setup.stream;
  client::InferOptions options;
  options.raw = plan->setup.raw;
  options.protocol = plan->setup.protocol;
  const absl::Duration stream_timeout = plan->stream_timeout;
  // Each worker of a level takes the next output slot; reset before every level.
  std::atomic<uint32_t> next_slot{0};
  const IssuerFactory make_issuer = [&]() -> std::unique_ptr<RequestIssuer> {
    client::InferOptions worker = options;
    if (shared != nullptr) worker.output_shared_memory = shared->outputs(next_slot++);
    if (stream) return MakeStreamIssuer(client, model_name, *tensors, worker, stream_timeout);
    return MakeUnaryIssuer(client, model_name, *tensors, worker);
  };

  ReportWriter report(plan->format, plan->setup, io.out);
  ProgressLine progress(io.err, io.err_is_terminal);
  for (size_t index = 0; index < plan->levels.size(); ++index) {
    LevelOptions options = plan->level;
    options.concurrency = plan->levels[index];
    next_slot = 0;
    if (!io.err_is_terminal) io.err << LevelNote(*plan, index) << "\n" << std::flush;
    const LevelResult result = RunLevel(options, make_issuer, [&](const LevelProgress& snapshot) {
      progress.Draw(FormatProgress(index + 1, plan->levels.size(), options.concurrency, snapshot));
    });
    progress.Erase();
    report.AddLevel(result);
    if (result.requests == 0 && result.error_count() > 0) {
      report.Finish();
      return absl::UnavailableError(
          absl::StrCat("every request at concurrency ", result.concurrency, " failed (",
                       ErrorsText(result), "); the first: ", result.first_error));
    }
  }
  report.Finish();
  return absl::OkStatus();
}

}  // namespace

const Subcommand& BenchCommand() {
  static const Subcommand command = {
      "bench",      "measure a model's throughput and latency under load (like perf_analyzer)",
      kBenchDescription, kBenchFlags,
      &RunBench,    "MODEL",
  };
  return command;
}

}  // namespace neuronserve::neuronctl
