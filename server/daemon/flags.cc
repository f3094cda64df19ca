#include "server/daemon/flags.h"

#include <cctype>
#include <cstdlib>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/lifecycle/model_defaults.h"
#include "core/metrics/serving_metrics.h"
#include "server/daemon/daemon_options.h"

ABSL_FLAG(std::string, listen, neuronserve::kDefaultListenAddress,
          "Address the gRPC server listens on, HOST:PORT (port 0 picks a free port; "
          "0.0.0.0:PORT or [::]:PORT for every interface).");
ABSL_FLAG(std::string, nrt_library, "",
          "Path of the Neuron runtime shared library to dlopen. Empty: libnrt.so.1, then "
          "libnrt.so. Point it at libnrtsim.so to run on the simulated runtime.");
ABSL_FLAG(std::string, log_level, "info",
          "Log level: trace, debug, info, warn, error, critical or off.");
ABSL_FLAG(std::string, log_format, "text",
          "Log line format: text, or json (one JSON object per line, for log collectors; "
          "what the runtime and libraries write to stdout and stderr is captured and "
          "re-emitted as JSON lines with logger nrt).");
ABSL_FLAG(std::string, access_log, "",
          "Write one line per inference request to this file ('-': standard output), in the "
          "--log-format. Empty: no access log.");
ABSL_FLAG(std::string, http_listen, "",
          "Address of the HTTP endpoint, HOST:PORT: /metrics (Prometheus), /livez, /readyz, "
          "/v1/models. Empty: no HTTP endpoint. With token files, /metrics and /v1/models need "
          "an infer (or admin) token in 'Authorization: Bearer'; the probes need none.");
ABSL_FLAG(std::string, http_tls_cert, "",
          "PEM certificate chain (leaf first) for the HTTP endpoint: HTTPS instead of HTTP. "
          "Needs --http-tls-key. Re-read when it changes or on SIGHUP: a good new pair serves "
          "new connections, a bad one is refused (logged) and the previous one keeps serving. "
          "May name the same files as --tls-cert.");
ABSL_FLAG(std::string, http_tls_key, "", "PEM private key of --http-tls-cert.");
ABSL_FLAG(absl::Duration, drain_timeout, neuronserve::kDefaultDrainTimeout,
          absl::StrCat("On SIGTERM/SIGINT, how long queued and executing requests may take to "
                       "finish before the rest are cancelled, e.g. ",
                       absl::FormatDuration(neuronserve::kDefaultDrainTimeout),
                       ". A second signal ends the wait at once."));
ABSL_FLAG(absl::Duration, execution_timeout, absl::Minutes(2),
          "Watchdog: a core worker inside one execution for longer than this marks the daemon "
          "not live (gRPC health 'neuronserve/liveness', /livez), so a liveness probe restarts "
          "it, e.g. 2m.");

ABSL_FLAG(std::string, model_repository, "",
          "Model repository: one folder per model with its NEFF and a config.pbtxt (a "
          "ModelConfig in protobuf text format). LoadModel may name paths inside it.");
ABSL_FLAG(std::string, load_models, "",
          "Repository models to load at startup: 'all', or a comma-separated list of folder "
          "names. A model that fails to load is FAILED; the others still load.");
ABSL_FLAG(std::string, model_dir, "",
          "A folder holding one model or a model repository, as KServe's storage initializer "
          "leaves it in /mnt/models: one model when it holds a config.pbtxt, one .neff file, or "
          "version folders (1/model.neff); a repository (every model folder loaded) when it "
          "holds model folders. Every model must load, else the daemon exits 1 (a pod that cannot "
          "serve must not pass its readiness probe). Not with --model-repository.");
ABSL_FLAG(std::string, model_name, "",
          "The name the one model of --model-dir is served under (KServe: the InferenceService's "
          "name, {{.Name}}). Empty: the config.pbtxt's name, else the folder's. Not used when "
          "--model-dir holds a repository (each model keeps its folder's name).");
ABSL_FLAG(std::string, state_dir, "",
          "Directory where models loaded through the API are recorded, so that they load again "
          "after a restart. Empty: not recorded.");
ABSL_FLAG(uint64_t, max_model_bytes, neuronserve::kDefaultMaxModelBytes,
          "Largest NEFF LoadModel accepts, in bytes (RESOURCE_EXHAUSTED past it), and the most "
          "bytes the file: parameters of one v2 RepositoryModelLoad upload carry together.");
ABSL_FLAG(uint32_t, max_queue, neuronserve::kDefaultMaxQueue,
          "Most requests waiting for one model at once (a model's config.pbtxt max_queue, or "
          "dynamic_batching.default_queue_policy.max_queue_size, overrides it); past it Infer "
          "answers UNAVAILABLE (HTTP 503, Retry-After) at once");
ABSL_FLAG(uint64_t, max_queued_bytes, neuronserve::kDefaultMaxQueuedBytes,
          "Most bytes of request inputs waiting in the queues of every model together; a "
          "request whose inputs would go past it is answered UNAVAILABLE (HTTP 503, "
          "Retry-After) at once, so that a flood of large requests cannot exhaust memory. 0: no "
          "limit. A request is admitted whatever its size while nothing else waits. Inputs in "
          "client shared memory are not counted: their bytes stay in the client's object.");
ABSL_FLAG(uint32_t, max_retired_metric_versions,
          static_cast<uint32_t>(neuronserve::ServingMetrics::kMaxRetiredVersions),
          "Most unloaded or replaced model versions whose /metrics series are kept until a scrape "
          "has shown their final values (else they go after 5 minutes); past it the oldest go "
          "first and are counted in neuronserve_retired_versions_unscraped_total. Bounds the "
          "metrics' memory under version churn whatever the scrape interval (about 1 kB a "
          "version). 0: a version's series go when it is retired.");
ABSL_FLAG(uint32_t, pipeline_depth, neuronserve::kDefaultPipelineDepth,
          "Input/output tensor sets each replica binds per compiled variant, 1 to 8: while a core "
          "executes one unit, the next one's inputs are written and the last one's outputs read, "
          "each in a set of its own. 1 turns pipelining off (one unit at a time per replica). "
          "Device memory for tensors grows with it. A model's config.pbtxt pipeline_depth wins.");
ABSL_FLAG(uint64_t, max_message_bytes, uint64_t{neuronserve::kDefaultMaxMessageBytes},
          "Largest gRPC message the daemon accepts, in bytes (an Infer request with all its "
          "tensors, a RepositoryModelLoad with its files), and largest HTTP body; past it the "
          "call fails with RESOURCE_EXHAUSTED (HTTP 413). At most 2147483647.");
ABSL_FLAG(std::string, malloc, "tuned",
          "glibc malloc settings: tuned (freed memory is kept rather than handed back to the "
          "kernel, and buffers up to 32 MiB come from the heap rather than from a mapping of "
          "their own, so large requests do not page-fault anew each time; memory a burst freed "
          "stays with the process) or default (glibc's, and whatever GLIBC_TUNABLES says). No "
          "effect under a sanitizer.");
ABSL_FLAG(absl::Duration, malloc_trim_interval, absl::Seconds(10),
          "How often the daemon hands the whole free pages of malloc's arenas back to the kernel "
          "(malloc_trim), so that its RSS follows the memory in use rather than each arena's "
          "high-water mark; the pages a request reuses are faulted in once per interval. 0: "
          "never.");
ABSL_FLAG(absl::Duration, unload_timeout, neuronserve::kDefaultUnloadTimeout,
          absl::StrCat("How long an unload (or a replaced version) waits for requests in flight, "
                       "e.g. ",
                       absl::FormatDuration(neuronserve::kDefaultUnloadTimeout), "."));

// Exposure: transport security, tokens, the admin and probe listeners, limits, the audit log.
// Secrets are only ever named by file here, never given as values: flags and the environment
// show up in process listings and logs.
ABSL_FLAG(std::string, tls_cert, "",
          "PEM certificate chain of the gRPC listener (with --tls-key): the main port speaks "
          "TLS. Re-read when the file changes (also through a symlink swap) or on SIGHUP; a new "
          "pair that does not parse, does not match its key or has expired is refused with a log "
          "line and the old one keeps serving.");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls-cert.");
ABSL_FLAG(std::string, tls_client_ca, "",
          "PEM CA bundle: clients must present a certificate signed by it (mutual TLS). Needs "
          "--tls-cert. Re-read like the certificate.");
ABSL_FLAG(std::string, infer_token_file, "",
          "File of bearer tokens with the infer scope (Infer, InferStream, GetModel, ListModels, "
          "Enumerate): one per line, optionally LABEL:TOKEN, '#' comments and blank lines "
          "ignored; re-read when it changes. With a token file, calls without a valid "
          "'authorization: Bearer' token are UNAUTHENTICATED.");
ABSL_FLAG(std::string, admin_token_file, "",
          "File of bearer tokens with the admin scope (LoadModel, UnloadModel; admin implies "
          "infer), in the format of --infer-token-file.");
ABSL_FLAG(std::string, admin_listen, "",
          "A separate listener for LoadModel and UnloadModel: unix:/PATH (mode 0660, a lock file "
          "beside it) or a loopback HOST:PORT. With it, admin calls on --listen are "
          "PERMISSION_DENIED. Empty: admin calls on --listen.");
ABSL_FLAG(std::string, health_listen, "",
          "A plain-text listener that serves only gRPC health (grpc.health.v1), for probes that "
          "can send neither a client certificate nor a token, HOST:PORT. Empty: none.");
ABSL_FLAG(uint32_t, max_models, 64,
          "Most models loaded (or loading) at once; past it LoadModel is RESOURCE_EXHAUSTED.");
ABSL_FLAG(uint32_t, max_concurrent_uploads, 4,
          "Most uploads open at once (LoadModel streams, and v2 RepositoryModelLoad calls with "
          "file: parameters); past it the call is RESOURCE_EXHAUSTED.");
ABSL_FLAG(uint32_t, max_metadata_bytes, 16384,
          "Largest request metadata (headers) accepted, in bytes; past it the call is "
          "RESOURCE_EXHAUSTED.");
ABSL_FLAG(std::string, audit_log, "",
          "Write one line per admin call and per refused authentication (time, peer, identity, "
          "RPC, model, result; never a token) to this file ('-': standard output), in the "
          "--log-format. Empty: no audit log.");
ABSL_FLAG(bool, allow_client_shared_memory, false,
          "Let clients register their POSIX shared-memory objects (Triton's system shared memory "
          "extension, and the same on the native API) so that tensors travel through them "
          "rather than through requests. Off: registering is refused. The client and the "
          "daemon must run as the same user (tritonclient creates objects of mode 0600).");
ABSL_FLAG(std::string, shared_memory_key_prefix, "",
          "Only shared-memory objects whose key starts with this prefix may be registered "
          "(compared without leading '/'). Empty: any key.");
ABSL_FLAG(uint32_t, shared_memory_max_regions, 64,
          "Most shared-memory regions mapped at once (unregistered ones still used by requests "
          "count), up to 1024.");
ABSL_FLAG(uint64_t, shared_memory_max_bytes, uint64_t{64} << 30,
          "Most bytes of shared-memory regions mapped at once (unregistered ones still used by "
          "requests count).");
ABSL_FLAG(absl::Duration, credential_poll_interval, absl::Seconds(1),
          "How often the certificate and token files are checked for changes (a rewrite, a "
          "Kubernetes symlink swap), e.g. 1s. SIGHUP re-reads them at once whatever this is.");

namespace neuronserve {

std::string EnvironmentVariableForFlag(const std::string& flag_name) {
  std::string variable = "NEURON_SERVE_";
  for (char c : flag_name) {
    variable += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return variable;
}

absl::Status ApplyFlagsFromEnvironment() {
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    const std::string variable = EnvironmentVariableForFlag(std::string(name));
    const char* value = std::getenv(variable.c_str());
    if (value == nullptr) continue;
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::InvalidArgumentError(
          absl::StrCat("environment variable ", variable, "='", value, "': ", error));
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> NormalizeFlagSpelling(int argc, char** argv) {
  std::vector<std::string> args;
  bool flags_ended = false;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (i > 0 && !flags_ended) {
      if (arg == "--") {
        flags_ended = true;
      } else if (arg.size() > 2 && arg[0] == '-') {
        const size_t name_start = arg[1] == '-' ? 2 : 1;
        const size_t name_end = std::min(arg.find('='), arg.size());
        for (size_t j = name_start; j < name_end; ++j) {
          if (arg[j] == '-') arg[j] = '_';
        }
      }
    }
    args.push_back(std::move(arg));
  }
  return args;
}

}  // namespace neuronserve
