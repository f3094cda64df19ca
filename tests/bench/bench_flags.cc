#include "tests/bench/bench_flags.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "tests/support/build_paths.h"

namespace neuronserve::bench {
namespace {

// A byte count with an optional binary suffix: 4096, 4KiB, 1MiB, 16M.
bool ParseBytes(absl::string_view text, uint64_t* bytes) {
  static const std::pair<absl::string_view, uint64_t> kSuffixes[] = {{"KiB", uint64_t{1} << 10},
                                                                     {"MiB", uint64_t{1} << 20},
                                                                     {"GiB", uint64_t{1} << 30},
                                                                     {"K", uint64_t{1} << 10},
                                                                     {"M", uint64_t{1} << 20},
                                                                     {"G", uint64_t{1} << 30},
                                                                     {"B", 1}};
  uint64_t unit = 1;
  for (const auto& [suffix, multiplier] : kSuffixes) {
    if (absl::EndsWith(text, suffix)) {
      text.remove_suffix(suffix.size());
      unit = multiplier;
      break;
    }
  }
  uint64_t count = 0;
  if (!absl::SimpleAtoi(text, &count) || count == 0 || count > (uint64_t{1} << 40) / unit) {
    return false;
  }
  *bytes = count * unit;
  return true;
}

absl::Status Bad(absl::string_view flag, absl::string_view value, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, "='", value, "': ", why));
}

// A float32 tensor: a positive whole number of 4-byte elements.
absl::Status ParseSizes(absl::string_view flag, absl::string_view value,
                        std::vector<uint64_t>* sizes) {
  sizes->clear();
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    uint64_t bytes = 0;
    if (!ParseBytes(item, &bytes)) return Bad(flag, value, "not a byte count like 4096 or 1MiB");
    if (bytes % 4 != 0) return Bad(flag, value, "float32 tensors: a multiple of 4 bytes");
    sizes->push_back(bytes);
  }
  return absl::OkStatus();
}

absl::Status ParseInts(absl::string_view flag, absl::string_view value, int max,
                       std::vector<int>* values) {
  values->clear();
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    int number = 0;
    if (!absl::SimpleAtoi(item, &number) || number < 1 || number > max) {
      return Bad(flag, value, absl::StrCat("a list of numbers from 1 to ", max));
    }
    values->push_back(number);
  }
  return absl::OkStatus();
}

absl::Status ParseSeconds(absl::string_view flag, absl::string_view value, double minimum,
                          double* seconds) {
  if (!absl::SimpleAtod(value, seconds) || !(*seconds >= minimum) || *seconds > 3600) {
    return Bad(flag, value, absl::StrCat("seconds, from ", minimum, " to 3600"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string BenchUsage() {
  return absl::StrCat(
      "neuron_serve_bench: neuron-serve Infer and ModelInfer against a bare gRPC echo server,\n"
      "REST against a bare HTTP echo server, replica scaling, pipelining, batching, and the\n"
      "daemon's RSS over millions of requests.\n"
      "\n"
      "Starts its servers as child processes on loopback: the echo server (this binary with\n"
      "--serve-echo; BenchEcho on the gRPC callback API, copying the input bytes into the\n"
      "output on the gRPC thread), the hand-off echo server (the same, answered from one\n"
      "other thread, --echo-hand-off: the least a server pays that keeps gRPC's threads off\n"
      "the device), the HTTP echo server (below) and the neuron-serve daemon on the\n"
      "simulated runtime, with one identity model of 0 latency per tensor size. For every\n"
      "size and concurrency it keeps that many unary calls in flight against both echoes,\n"
      "the daemon's Infer and its ModelInfer (the Open Inference Protocol, the same bytes in\n"
      "raw_input_contents), rounds alternating among the four, and prints requests/s,\n"
      "p50/p99 latency and the ratios v2/echo, infer/echo, hand-off/echo and\n"
      "infer/hand-off. The scaling run then loads an\n"
      "identity model with a fixed device latency and 1, 2, 4, 8 replicas and prints\n"
      "requests/s against replicas/latency.\n"
      "The pipelining run starts a second daemon whose simulator charges copies\n"
      "(NRTSIM_DMA_BYTES_PER_SECOND) and compares a copy-bound model at pipeline depth 1\n"
      "and 2 with 1/max(execution, copies) and 1/(execution + copies) per replica.\n"
      "Last, the protocol run sends the same tensors to the daemon's ModelInfer (the Open\n"
      "Inference Protocol, raw_input_contents) and to its native Infer, alternating, and\n"
      "prints the ratio v2/native. The shared-memory run sends Infer the tensor in the\n"
      "request and the same tensor in a registered POSIX shared-memory region (output into\n"
      "another), and prints shm/raw. The batching run compares a model of batch 1 with the\n"
      "same network compiled for batch 1 and 8 (the dynamic batcher), and shares one core\n"
      "between two batched models.\n"
      "The REST-vs-echo run sends the daemon's REST binary request (POST\n"
      "/v2/models/NAME/infer with the binary data extension) and the same bytes to an HTTP/1.1\n"
      "echo server (this binary with --serve-http-echo, libmicrohttpd threaded as the daemon's\n"
      "REST server), rounds alternating, and prints the ratio rest/http-echo.\n"
      "A cell whose requests in flight would hold more than --memory-budget (8 x size per\n"
      "request: 2 copies on the client, 3 in each server, which keep what they free) is\n"
      "skipped with a line saying so.\n"
      "Targets are reported, never asserted. Exit code 1 if any call or model load failed.\n"
      "\n"
      "--rss-run is a run of its own: the daemon alone, a 0-latency identity model, a warm-up,\n"
      "then --rss-requests requests at --rss-concurrency in flight, the daemon's RSS sampled\n"
      "along the way; it prints RSS after the warm-up, at the end and at its highest, and the\n"
      "growth against the target (within 16 MiB after warm-up).\n"
      "\n"
      "--churn-run is a run of its own: one identity model replaced --churn-reloads times,\n"
      "each time under a new version label, one request served by each version, /metrics\n"
      "scraped every --churn-scrape-every reloads; it prints the daemon's RSS and the size of\n"
      "/metrics after --churn-warmup-reloads and at the end, and the version series shown.\n"
      "\n"
      "--soak-run is a run of its own (tests/bench/soak_run.h): --soak-clients clients mixing\n"
      "unary, streamed, batched, shared-memory and REST requests, cancellations, 1 ms\n"
      "deadlines, model loads, replacements and unloads, with execution faults injected, for\n"
      "--soak-seconds; then every answer, the device memory, the queues and the daemon's RSS\n"
      "(at most 4 MiB above its value at 10 s) are checked. Exit code 1 if any check failed.\n"
      "\n"
      "Flags (--name=value; booleans also as --name):\n"
      "  --seconds=S              measured time per cell and target (default 2)\n"
      "  --warmup-seconds=S       warm-up per cell and target, not measured (default 0.5)\n"
      "  --rounds=N               a cell's measurement in N rounds, echo, Infer and\n"
      "                           ModelInfer alternating (default 3)\n"
      "  --sizes=LIST             tensor bytes, e.g. 4096,1MiB,16MiB (default)\n"
      "  --concurrency=LIST       requests in flight (default 1,8,64)\n"
      "  --grid=default|full      full: sizes 4KiB,64KiB,1MiB,16MiB,64MiB x concurrency\n"
      "                           1,8,64,256 (--sizes and --concurrency, if given, win)\n"
      "  --memory-budget=BYTES    most bytes the requests in flight of a cell may hold,\n"
      "                           estimated as 8 x size x concurrency; cells above it are\n"
      "                           skipped (default 16GiB, for a 24 GiB machine)\n"
      "  --forms=LIST             raw (raw_data bytes) and/or float (float_data) (default raw)\n"
      "  --infer-replicas=N       replicas of each grid model (default 1)\n"
      "  --skip-scaling           no scaling run\n"
      "  --scaling-replicas=LIST  (default 1,2,4,8)\n"
      "  --scaling-latency-us=N   device time of the scaling model (default 2000)\n"
      "  --scaling-concurrency-per-replica=N  (default 2)\n"
      "  --scaling-size=BYTES     tensor of the scaling model (default 4096)\n"
      "  --skip-pipelining        no pipelining run (and no second daemon)\n"
      "  --pipelining-replicas=LIST  replica counts, each at depth 1 and 2 (default 1,2,4,8)\n"
      "  --pipelining-latency-us=N   execution time of the pipelining model (default 2000)\n"
      "  --pipelining-copy-us=N   copy time per request, input and output together; sets\n"
      "                           the second daemon's NRTSIM_DMA_BYTES_PER_SECOND (default 1000)\n"
      "  --pipelining-concurrency-per-replica=N  (default 2)\n"
      "  --pipelining-size=BYTES  input and output of the pipelining model (default 4096)\n"
      "  --skip-v2                no protocol run (ModelInfer vs Infer), no REST-vs-gRPC run\n"
      "  --v2-sizes=LIST          tensor bytes of the protocol run (default 4096,1MiB)\n"
      "  --v2-concurrency=LIST    requests in flight of the protocol run (default 1,64)\n"
      "  --skip-rest              no REST-vs-echo run (and no HTTP echo server)\n"
      "  --rest-sizes=LIST        tensor bytes of the REST-vs-echo run (default\n"
      "                           4096,1MiB,16MiB)\n"
      "  --rest-concurrency=LIST  requests in flight of the REST-vs-echo run, one connection\n"
      "                           and client thread each (default 1,8,64)\n"
      "  --skip-shared-memory     no shared-memory run (and the daemon gets no\n"
      "                           --allow-client-shared-memory)\n"
      "  --shm-sizes=LIST         tensor bytes of the shared-memory run (default 4KiB,64MiB)\n"
      "  --shm-concurrency=LIST   requests in flight of the shared-memory run (default 1,8)\n"
      "  --skip-batching          no batching run\n"
      "  --batching-concurrency=LIST  requests in flight of the batching run (default 1,64)\n"
      "  --batching-size=BYTES    one row of the batching models (default 4096)\n"
      "  --batch1-latency-us=N    device time of a batch-1 execution (default 1000)\n"
      "  --batch8-latency-us=N    device time of a batch-8 execution (default 2000)\n"
      "  --batching-share-concurrency=N  in flight per model sharing a core (default 32)\n"
      "  --daemon=PATH            neuron-serve binary (default: the build tree's)\n"
      "  --nrt-library=PATH       libnrtsim.so (default: the build tree's)\n"
      "  --sim-cores=N            NRTSIM_CORES of the main daemon (default 8, or more if\n"
      "                           needed; the pipelining daemon gets its largest replica count)\n"
      "  --daemon-arg=FLAG        an extra flag for both daemons, repeatable\n"
      "  --malloc=tuned|default   glibc malloc settings of the echo servers: tuned as the\n"
      "                           daemon tunes itself (no heap trimming, no mmap below\n"
      "                           32 MiB; util/malloc_tuning.h), or glibc's defaults (default\n"
      "                           tuned). The client is always tuned; the daemon chooses its\n"
      "                           own (--daemon-arg=--malloc=default for glibc's)\n"
      "  --rss-run                the RSS run only (the daemon alone, no other run)\n"
      "  --rss-requests=N         requests after the warm-up (default 10000000)\n"
      "  --rss-warmup-requests=N  requests before the RSS the growth is measured from\n"
      "                           (default 200000)\n"
      "  --rss-concurrency=N      requests in flight (default 64)\n"
      "  --rss-sample-every=N     requests between RSS samples, and at most 5 s; a progress\n"
      "                           line every 5 s or so (default 100000)\n"
      "  --rss-size=BYTES         tensor of the RSS run's identity model (default 4096)\n"
      "  --churn-run              the version-churn run only\n"
      "  --churn-reloads=N        reloads with a new version label (default 10000)\n"
      "  --churn-warmup-reloads=N reloads before the RSS the growth is measured from\n"
      "                           (default 500)\n"
      "  --churn-scrape-every=N   reloads between scrapes of /metrics (default 10)\n"
      "  --soak-run               the soak only\n"
      "  --soak-seconds=S         how long the traffic runs (default 600)\n"
      "  --soak-clients=N         clients, at least 16: the mix repeats every 16 (default 32)\n"
      "  --soak-seed=N            the seed of every client's choices (default 1)\n"
      "  --soak-skip-rss-bound    print the daemon's RSS but do not bound it (for a daemon\n"
      "                           under AddressSanitizer, whose quarantine keeps freed memory)\n"
      "  --soak-scrape-seconds=S  scrape /metrics every S seconds (default 0: only at the start\n"
      "                           and the end, so replaced versions' series wait)\n"
      "  --soak-reuse-labels      replacements reuse 4 version labels instead of a new one each\n"
      "                           (the baseline for what new labels cost)\n"
      "  --soak-fault-statuses=S,...  what the injected execution faults return (default\n"
      "                           NRT_FAILURE,NRT_RESOURCE; a hardware status takes its core\n"
      "                           out of rotation for good)\n"
      "  --help\n");
}

std::string FormatBytes(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30) && bytes % (uint64_t{1} << 30) == 0) {
    return absl::StrCat(bytes >> 30, " GiB");
  }
  if (bytes >= (uint64_t{1} << 20) && bytes % (uint64_t{1} << 20) == 0) {
    return absl::StrCat(bytes >> 20, " MiB");
  }
  if (bytes >= 1024 && bytes % 1024 == 0) return absl::StrCat(bytes >> 10, " KiB");
  return absl::StrCat(bytes, " B");
}

namespace {

// Sets a flag's value from its text; InvalidArgument naming the flag when the text is wrong.
using Setter = std::function<absl::Status(absl::string_view flag, absl::string_view value)>;

struct FlagDef {
  bool is_bool;  // may be given without a value
  Setter set;
};

FlagDef SecondsFlag(double* target, double minimum) {
  return {false, [=](absl::string_view f, absl::string_view v) {
            return ParseSeconds(f, v, minimum, target);
          }};
}

FlagDef IntFlag(int* target, int max) {
  return {false, [=](absl::string_view f, absl::string_view v) {
            std::vector<int> one;
            absl::Status status = ParseInts(f, v, max, &one);
            if (status.ok() && one.size() != 1) return Bad(f, v, "one number");
            if (status.ok()) *target = one[0];
            return status;
          }};
}

FlagDef IntListFlag(std::vector<int>* target, int max) {
  return {false,
          [=](absl::string_view f, absl::string_view v) { return ParseInts(f, v, max, target); }};
}

FlagDef SizeListFlag(std::vector<uint64_t>* target) {
  return {false,
          [=](absl::string_view f, absl::string_view v) { return ParseSizes(f, v, target); }};
}

FlagDef SizeFlag(uint64_t* target) {
  return {false, [=](absl::string_view f, absl::string_view v) {
            std::vector<uint64_t> one;
            absl::Status status = ParseSizes(f, v, &one);
            if (status.ok() && one.size() != 1) return Bad(f, v, "one size");
            if (status.ok()) *target = one[0];
            return status;
          }};
}

// Any byte count (not only whole float32 tensors), e.g. a memory budget.
FlagDef ByteCountFlag(uint64_t* target) {
  return {false, [=](absl::string_view f, absl::string_view v) {
            if (!ParseBytes(v, target)) return Bad(f, v, "not a byte count like 4096 or 16GiB");
            return absl::OkStatus();
          }};
}

// A count of requests, 1 to `max`.
FlagDef CountFlag(uint64_t* target, uint64_t max) {
  return {false, [=](absl::string_view f, absl::string_view v) {
            if (!absl::SimpleAtoi(v, target) || *target < 1 || *target > max) {
              return Bad(f, v, absl::StrCat("a count from 1 to ", max));
            }
            return absl::OkStatus();
          }};
}

FlagDef MicrosecondsFlag(uint64_t* target) {
  return {false, [=](absl::string_view f, absl::string_view v) {
            if (!absl::SimpleAtoi(v, target) || *target < 1 || *target > 10'000'000) {
              return Bad(f, v, "microseconds, from 1 to 10000000");
            }
            return absl::OkStatus();
          }};
}

FlagDef BoolFlag(bool* target) {
  return {true, [=](absl::string_view f, absl::string_view v) {
            if (!absl::SimpleAtob(v, target)) return Bad(f, v, "true or false");
            return absl::OkStatus();
          }};
}

FlagDef StringFlag(std::string* target) {
  return {false, [=](absl::string_view, absl::string_view v) {
            *target = std::string(v);
            return absl::OkStatus();
          }};
}

// A string from a fixed list of choices; with `list`, a comma-separated list of them.
FlagDef ChoiceFlag(std::vector<std::string>* target, std::vector<std::string> choices, bool list) {
  return {false, [=](absl::string_view f, absl::string_view v) {
            std::vector<std::string> values = absl::StrSplit(v, ',');
            if (!list && values.size() != 1) values.clear();
            for (const std::string& value : values) {
              if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
                values.clear();
              }
            }
            if (values.empty()) {
              return Bad(
                  f, v,
                  absl::StrCat(list ? "a list of " : "one of ", absl::StrJoin(choices, ", ")));
            }
            *target = values;
            return absl::OkStatus();
          }};
}

}  // namespace

absl::StatusOr<BenchFlags> ParseBenchFlags(int argc, char** argv) {
  BenchFlags flags;
  flags.daemon = NEURON_SERVE_PATH;
  flags.nrt_library = NRTSIM_LIBRARY_PATH;
  std::vector<std::string> malloc_mode = {flags.malloc_mode};
  std::vector<std::string> grid = {flags.grid};
  // Whether --sizes / --concurrency were given: then --grid=full leaves that list alone.
  bool sizes_given = false;
  bool concurrency_given = false;
  const auto given = [](FlagDef def, bool* was_given) {
    return FlagDef{def.is_bool,
                   [set = std::move(def.set), was_given](absl::string_view f, absl::string_view v) {
                     *was_given = true;
                     return set(f, v);
                   }};
  };

  const std::map<std::string, FlagDef> kFlags = {
      {"seconds", SecondsFlag(&flags.seconds, 0.001)},
      {"warmup-seconds", SecondsFlag(&flags.warmup_seconds, 0)},
      {"rounds", IntFlag(&flags.rounds, 100)},
      {"sizes", given(SizeListFlag(&flags.sizes), &sizes_given)},
      {"concurrency", given(IntListFlag(&flags.concurrency, 4096), &concurrency_given)},
      {"grid", ChoiceFlag(&grid, {"default", "full"}, /*list=*/false)},
      {"memory-budget", ByteCountFlag(&flags.memory_budget)},
      {"forms", ChoiceFlag(&flags.forms, {"raw", "float"}, /*list=*/true)},
      {"infer-replicas", IntFlag(&flags.infer_replicas, 4096)},
      {"skip-scaling", BoolFlag(&flags.skip_scaling)},
      {"scaling-replicas", IntListFlag(&flags.scaling_replicas, 4096)},
      {"scaling-latency-us", MicrosecondsFlag(&flags.scaling_latency_us)},
      {"scaling-concurrency-per-replica", IntFlag(&flags.scaling_concurrency_per_replica, 1024)},
      {"scaling-size", SizeFlag(&flags.scaling_size)},
      {"skip-pipelining", BoolFlag(&flags.skip_pipelining)},
      {"pipelining-replicas", IntListFlag(&flags.pipelining_replicas, 4096)},
      {"pipelining-latency-us", MicrosecondsFlag(&flags.pipelining_latency_us)},
      {"pipelining-copy-us", MicrosecondsFlag(&flags.pipelining_copy_us)},
      {"pipelining-concurrency-per-replica",
       IntFlag(&flags.pipelining_concurrency_per_replica, 1024)},
      {"pipelining-size", SizeFlag(&flags.pipelining_size)},
      {"skip-v2", BoolFlag(&flags.skip_v2)},
      {"v2-sizes", SizeListFlag(&flags.v2_sizes)},
      {"v2-concurrency", IntListFlag(&flags.v2_concurrency, 4096)},
      {"skip-rest", BoolFlag(&flags.skip_rest)},
      {"rest-sizes", SizeListFlag(&flags.rest_sizes)},
      // One connection and one client thread per request in flight; the daemon's HTTP server
      // takes 512 connections.
      {"rest-concurrency", IntListFlag(&flags.rest_concurrency, 512)},
      {"skip-batching", BoolFlag(&flags.skip_batching)},
      {"skip-shared-memory", BoolFlag(&flags.skip_shared_memory)},
      {"shm-sizes", SizeListFlag(&flags.shm_sizes)},
      {"shm-concurrency", IntListFlag(&flags.shm_concurrency, 4096)},
      {"batching-concurrency", IntListFlag(&flags.batching_concurrency, 4096)},
      {"batching-size", SizeFlag(&flags.batching_size)},
      {"batch1-latency-us", MicrosecondsFlag(&flags.batch1_latency_us)},
      {"batch8-latency-us", MicrosecondsFlag(&flags.batch8_latency_us)},
      {"batching-share-concurrency", IntFlag(&flags.batching_share_concurrency, 4096)},
      {"daemon", StringFlag(&flags.daemon)},
      {"nrt-library", StringFlag(&flags.nrt_library)},
      {"sim-cores", IntFlag(&flags.sim_cores, 4096)},
      {"daemon-arg",
       {false,
        [&](absl::string_view, absl::string_view v) {
          flags.daemon_args.emplace_back(v);
          return absl::OkStatus();
        }}},
      {"malloc", ChoiceFlag(&malloc_mode, {"tuned", "default"}, /*list=*/false)},
      {"rss-run", BoolFlag(&flags.rss_run)},
      {"rss-requests", CountFlag(&flags.rss_requests, uint64_t{1} << 40)},
      {"rss-warmup-requests", CountFlag(&flags.rss_warmup_requests, uint64_t{1} << 40)},
      {"rss-concurrency", IntFlag(&flags.rss_concurrency, 4096)},
      {"rss-sample-every", CountFlag(&flags.rss_sample_every, uint64_t{1} << 40)},
      {"rss-size", SizeFlag(&flags.rss_size)},
      {"churn-run", BoolFlag(&flags.churn_run)},
      {"churn-reloads", CountFlag(&flags.churn_reloads, uint64_t{1} << 40)},
      {"churn-warmup-reloads", CountFlag(&flags.churn_warmup_reloads, uint64_t{1} << 40)},
      {"churn-scrape-every", CountFlag(&flags.churn_scrape_every, uint64_t{1} << 40)},
      {"soak-run", BoolFlag(&flags.soak_run)},
      {"soak-seconds", SecondsFlag(&flags.soak_seconds, 1)},
      {"soak-clients", IntFlag(&flags.soak_clients, 4096)},
      {"soak-seed", IntFlag(&flags.soak_seed, 1 << 30)},
      {"soak-skip-rss-bound", BoolFlag(&flags.soak_skip_rss_bound)},
      {"soak-scrape-seconds", SecondsFlag(&flags.soak_scrape_seconds, 0)},
      {"soak-reuse-labels", BoolFlag(&flags.soak_reuse_labels)},
      {"soak-fault-statuses",
       {false,
        [&flags](absl::string_view, absl::string_view v) {
          flags.soak_fault_statuses = absl::StrSplit(v, ',', absl::SkipEmpty());
          return absl::OkStatus();
        }}},
      {"serve-echo", BoolFlag(&flags.serve_echo)},
      {"echo-hand-off", BoolFlag(&flags.echo_hand_off)},
      {"serve-http-echo", BoolFlag(&flags.serve_http_echo)},
      {"listen", StringFlag(&flags.listen)},
      {"max-message-bytes", ByteCountFlag(&flags.max_message_bytes)},
      {"help", BoolFlag(&flags.help)},
  };

  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (!absl::ConsumePrefix(&arg, "--")) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", arg, "'"));
    }
    std::pair<absl::string_view, absl::string_view> name_value =
        absl::StrSplit(arg, absl::MaxSplits('=', 1));
    // Dashes and underscores are interchangeable, as in the daemon's flags.
    const std::string name = absl::StrReplaceAll(name_value.first, {{"_", "-"}});
    auto flag = kFlags.find(name);
    if (flag == kFlags.end()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name, " (see --help)"));
    }
    const bool has_value = arg.find('=') != absl::string_view::npos;
    const FlagDef& def = flag->second;
    if (!has_value && !def.is_bool) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, " needs a value: --", name, "=VALUE"));
    }
    absl::Status status = def.set(name, has_value ? name_value.second : "true");
    if (!status.ok()) return status;
  }
  flags.malloc_mode = malloc_mode[0];
  flags.grid = grid[0];
  if (flags.grid == "full") {
    if (!sizes_given) flags.sizes = kFullGridSizes;
    if (!concurrency_given) flags.concurrency = kFullGridConcurrency;
  }
  return flags;
}

}  // namespace neuronserve::bench
