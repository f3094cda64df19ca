// neuron-serve: serves compiled Neuron models on the NeuronCores of this machine over gRPC.
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/lifecycle/model_name.h"
#include "core/serving/model/loaded_model.h"
#include "server/daemon/daemon.h"
#include "server/daemon/daemon_options.h"
#include "server/daemon/flags.h"
#include "server/daemon/shutdown_signal.h"
#include "server/logs/logging.h"
#include "server/logs/output_capture.h"
#include "server/shared_memory/sigbus_guard.h"
#include "spdlog/spdlog.h"
#include "util/crash_point.h"
#include "util/fmt_absl.h"
#include "util/malloc_tuning.h"

namespace {

constexpr int kExitStartupFailure = 1;
constexpr int kExitUsage = 2;

const char* SignalName(int signal_number) {
  return signal_number == SIGTERM ? "SIGTERM" : signal_number == SIGINT ? "SIGINT" : "signal";
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything can start a thread: every thread inherits the blocked mask.
  neuronserve::BlockShutdownSignals();

  absl::SetProgramUsageMessage(absl::StrCat(
      "Serves compiled Neuron models (NEFF) on NeuronCores over gRPC.\n"
      "Every flag can also be set as NEURON_SERVE_<FLAG> in the environment "
      "(e.g. NEURON_SERVE_NRT_LIBRARY); the command line wins.\n"
      "Flags may be written with dashes or underscores (--nrt-library or --nrt_library).\n"
      "Exit codes: 0 clean shutdown, 1 startup failure, 2 bad flags. SIGTERM/SIGINT drain and "
      "stop; SIGHUP re-reads the TLS certificates and token files.\n"
      "Usage: neuron-serve [--listen=HOST:PORT] [--nrt-library=PATH] [--model-repository=DIR "
      "--load-models=all|NAME,... | --model-dir=DIR [--model-name=NAME]] [--state-dir=DIR] "
      "[--http-listen=HOST:PORT] "
      "[--log-level=LEVEL] [--log-format=text|json] [--access-log=FILE] [--drain-timeout=",
      absl::FormatDuration(neuronserve::kDefaultDrainTimeout), "] "
      "[--malloc=tuned|default] "
      "[--tls-cert=PEM --tls-key=PEM [--tls-client-ca=PEM]] [--infer-token-file=FILE] "
      "[--admin-token-file=FILE] [--admin-listen=unix:PATH] [--health-listen=HOST:PORT] "
      "[--audit-log=FILE] [--allow-client-shared-memory [--shared-memory-key-prefix=PREFIX]]"));
  if (absl::Status status = neuronserve::ApplyFlagsFromEnvironment(); !status.ok()) {
    fprintf(stderr, "neuron-serve: %s\n", std::string(status.message()).c_str());
    return kExitUsage;
  }
  std::vector<std::string> args = neuronserve::NormalizeFlagSpelling(argc, argv);
  std::vector<char*> arg_pointers;
  for (std::string& arg : args) arg_pointers.push_back(arg.data());
  std::vector<char*> positional =
      absl::ParseCommandLine(static_cast<int>(arg_pointers.size()), arg_pointers.data());
  if (positional.size() > 1) {
    fprintf(stderr, "neuron-serve: unexpected argument '%s' (see --help)\n", positional[1]);
    return kExitUsage;
  }
  neuronserve::LogFormat log_format = neuronserve::LogFormat::kText;
  if (absl::Status status =
          neuronserve::ParseLogFormat(absl::GetFlag(FLAGS_log_format), &log_format);
      !status.ok()) {
    fprintf(stderr, "neuron-serve: %s\n", std::string(status.message()).c_str());
    return kExitUsage;
  }
  if (absl::Status status =
          neuronserve::ConfigureLogging(absl::GetFlag(FLAGS_log_level), log_format);
      !status.ok()) {
    fprintf(stderr, "neuron-serve: %s\n", std::string(status.message()).c_str());
    return kExitUsage;
  }
  // A test-only hook (util/crash_point.h); a value it cannot act on must not let a test pass.
  absl::StatusOr<std::optional<neuronserve::CrashPointSetting>> crash_point =
      neuronserve::CrashPointSettingFromEnvironment();
  if (!crash_point.ok()) {
    fprintf(stderr, "neuron-serve: %s\n", std::string(crash_point.status().message()).c_str());
    return kExitUsage;
  }
  if (crash_point->has_value()) {
    spdlog::warn(
        "test hook armed ({}): this process kills itself with SIGKILL when it reaches "
        "the crash point {} (occurrence {})",
        neuronserve::kCrashAtVariable, (*crash_point)->point, (*crash_point)->nth);
  }

  for (const auto& [flag, value] :
       {std::pair{"--drain-timeout", absl::GetFlag(FLAGS_drain_timeout)},
        std::pair{"--execution-timeout", absl::GetFlag(FLAGS_execution_timeout)},
        std::pair{"--unload-timeout", absl::GetFlag(FLAGS_unload_timeout)}}) {
    if (value <= absl::ZeroDuration() || value == absl::InfiniteDuration()) {
      fprintf(stderr, "neuron-serve: %s must be a positive, finite duration such as 30s (got %s)\n",
              flag, absl::FormatDuration(value).c_str());
      return kExitUsage;
    }
  }

  for (const auto& [flag, value] :
       {std::pair{"--max-queue", absl::GetFlag(FLAGS_max_queue)},
        std::pair{"--max-models", absl::GetFlag(FLAGS_max_models)},
        std::pair{"--max-concurrent-uploads", absl::GetFlag(FLAGS_max_concurrent_uploads)},
        std::pair{"--max-metadata-bytes", absl::GetFlag(FLAGS_max_metadata_bytes)},
        std::pair{"--shared-memory-max-regions", absl::GetFlag(FLAGS_shared_memory_max_regions)}}) {
    if (value == 0) {
      fprintf(stderr, "neuron-serve: %s must be at least 1 (got 0)\n", flag);
      return kExitUsage;
    }
  }

  if (absl::GetFlag(FLAGS_shared_memory_max_regions) > neuronserve::GuardedRange::kMaxRanges) {
    fprintf(stderr, "neuron-serve: --shared-memory-max-regions may be at most %zu (got %u)\n",
            neuronserve::GuardedRange::kMaxRanges, absl::GetFlag(FLAGS_shared_memory_max_regions));
    return kExitUsage;
  }

  const uint32_t pipeline_depth = absl::GetFlag(FLAGS_pipeline_depth);
  if (pipeline_depth == 0 || pipeline_depth > neuronserve::kMaxPipelineDepth) {
    fprintf(stderr,
            "neuron-serve: --pipeline-depth must be 1 to %u, the tensor sets each replica binds "
            "per variant (1: no pipelining) (got %u)\n",
            neuronserve::kMaxPipelineDepth, pipeline_depth);
    return kExitUsage;
  }

  // Before any thread starts: mallopt is not meant to race with allocations.
  absl::StatusOr<neuronserve::MallocMode> malloc_mode =
      neuronserve::ParseMallocMode(absl::GetFlag(FLAGS_malloc));
  if (!malloc_mode.ok()) {
    fprintf(stderr, "neuron-serve: %s\n", std::string(malloc_mode.status().message()).c_str());
    return kExitUsage;
  }
  neuronserve::ApplyMallocMode(*malloc_mode);
  // Debian builds Abseil without NDEBUG, so every absl::Mutex lock (gRPC's own among them) would
  // also record the lock in a process-wide graph under one global lock, to report cycles: a
  // debugging aid that showed in the serving profile (its share: tests/bench/README.md), and a
  // lock every thread shares. The tests keep it; the daemon does not.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);

  // gRPC takes the limit as an int.
  const uint64_t max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  if (max_message_bytes == 0 || max_message_bytes > uint64_t{INT_MAX}) {
    fprintf(stderr, "neuron-serve: --max-message-bytes must be between 1 and %d (got %llu)\n",
            INT_MAX, static_cast<unsigned long long>(max_message_bytes));
    return kExitUsage;
  }

  // Before the runtime is loaded and before any thread starts (it forks): from here on, what
  // the runtime or a library writes to stdout or stderr becomes JSON lines too.
  std::unique_ptr<neuronserve::OutputCapture> output_capture;
  if (log_format == neuronserve::LogFormat::kJson) {
    absl::StatusOr<std::unique_ptr<neuronserve::OutputCapture>> started =
        neuronserve::OutputCapture::Start();
    if (!started.ok()) {
      spdlog::critical("neuron-serve failed to start: {}", started.status().message());
      return kExitStartupFailure;
    }
    output_capture = *std::move(started);
  }

  // --model-dir chooses the startup models itself, so it excludes the flags that also do.
  const std::string model_dir = absl::GetFlag(FLAGS_model_dir);
  const std::string model_name = absl::GetFlag(FLAGS_model_name);
  const char* model_dir_conflict = model_dir.empty() ? nullptr
                                   : !absl::GetFlag(FLAGS_model_repository).empty()
                                       ? "--model-repository"
                                   : !absl::GetFlag(FLAGS_load_models).empty() ? "--load-models"
                                                                               : nullptr;
  if (model_dir_conflict != nullptr) {
    fprintf(stderr,
            "neuron-serve: --model-dir and %s exclude each other: --model-dir loads what "
            "its folder holds\n",
            model_dir_conflict);
    return kExitUsage;
  }
  if (!model_name.empty()) {
    if (model_dir.empty()) {
      fprintf(stderr,
              "neuron-serve: --model-name names the model of --model-dir, which is not "
              "set\n");
      return kExitUsage;
    }
    if (absl::Status valid = neuronserve::ValidateModelName(model_name); !valid.ok()) {
      fprintf(stderr, "neuron-serve: --model-name: %s\n", std::string(valid.message()).c_str());
      return kExitUsage;
    }
  }

  neuronserve::DaemonOptions options;
  options.listen_address = absl::GetFlag(FLAGS_listen);
  options.nrt_library = absl::GetFlag(FLAGS_nrt_library);
  options.model_repository = absl::GetFlag(FLAGS_model_repository);
  options.load_models = absl::GetFlag(FLAGS_load_models);
  options.model_dir = model_dir;
  options.model_name = model_name;
  options.state_dir = absl::GetFlag(FLAGS_state_dir);
  options.max_model_bytes = absl::GetFlag(FLAGS_max_model_bytes);
  options.unload_timeout = absl::GetFlag(FLAGS_unload_timeout);
  options.max_queue = absl::GetFlag(FLAGS_max_queue);
  options.max_queued_bytes = absl::GetFlag(FLAGS_max_queued_bytes);
  options.max_retired_metric_versions = absl::GetFlag(FLAGS_max_retired_metric_versions);
  options.pipeline_depth = pipeline_depth;
  options.max_message_bytes = static_cast<int>(max_message_bytes);
  options.http_listen = absl::GetFlag(FLAGS_http_listen);
  options.http_tls_cert = absl::GetFlag(FLAGS_http_tls_cert);
  options.http_tls_key = absl::GetFlag(FLAGS_http_tls_key);
  options.access_log = absl::GetFlag(FLAGS_access_log);
  if (output_capture != nullptr) options.stdout_fd = output_capture->original_stdout();
  options.log_format = log_format;
  options.execution_timeout = absl::GetFlag(FLAGS_execution_timeout);
  options.tls_cert = absl::GetFlag(FLAGS_tls_cert);
  options.tls_key = absl::GetFlag(FLAGS_tls_key);
  options.tls_client_ca = absl::GetFlag(FLAGS_tls_client_ca);
  options.infer_token_file = absl::GetFlag(FLAGS_infer_token_file);
  options.admin_token_file = absl::GetFlag(FLAGS_admin_token_file);
  options.admin_listen = absl::GetFlag(FLAGS_admin_listen);
  options.health_listen = absl::GetFlag(FLAGS_health_listen);
  if (const absl::Duration trim = absl::GetFlag(FLAGS_malloc_trim_interval);
      trim < absl::ZeroDuration()) {
    fprintf(stderr, "neuron-serve: --malloc-trim-interval must be 0 (never) or a duration such as "
            "10s (got %s)\n", absl::FormatDuration(trim).c_str());
    return kExitUsage;
  }
  options.max_models = absl::GetFlag(FLAGS_max_models);
  options.max_concurrent_uploads = absl::GetFlag(FLAGS_max_concurrent_uploads);
  options.max_metadata_bytes = absl::GetFlag(FLAGS_max_metadata_bytes);
  options.audit_log = absl::GetFlag(FLAGS_audit_log);
  options.credential_poll_interval = absl::GetFlag(FLAGS_credential_poll_interval);
  options.shared_memory.allow_client = absl::GetFlag(FLAGS_allow_client_shared_memory);
  options.shared_memory.key_prefix = absl::GetFlag(FLAGS_shared_memory_key_prefix);
  options.shared_memory.max_regions = absl::GetFlag(FLAGS_shared_memory_max_regions);
  options.shared_memory.max_bytes = absl::GetFlag(FLAGS_shared_memory_max_bytes);
  absl::StatusOr<std::unique_ptr<neuronserve::Daemon>> daemon = neuronserve::Daemon::Start(options);
  if (!daemon.ok()) {
    spdlog::critical("neuron-serve failed to start: {}", daemon.status().message());
    return kExitStartupFailure;
  }
  const neuronserve::DeviceInventory& inventory = (*daemon)->inventory();
  spdlog::info("neuron-serve listening on {} | runtime {} version {} ({}) | {}",
               (*daemon)->listening_address(), inventory.runtime_library,
               inventory.runtime_version.ToString(), inventory.runtime_version.detail,
               inventory.Summary());

  // Stopped (joined) when main returns, after the daemon is gone.
  std::optional<neuronserve::PeriodicMallocTrim> malloc_trim;
  if (const absl::Duration trim_every = absl::GetFlag(FLAGS_malloc_trim_interval);
      trim_every > absl::ZeroDuration() && trim_every != absl::InfiniteDuration()) {
    malloc_trim.emplace(trim_every);
  }

  neuronserve::Daemon* running = daemon->get();
  const int signal_number =
      neuronserve::WaitForShutdownSignal([running] { running->ReloadCredentials(); });
  const absl::Duration drain_timeout = absl::GetFlag(FLAGS_drain_timeout);
  spdlog::info("received {}, draining (up to {}; a second signal cuts it short)",
               SignalName(signal_number), absl::FormatDuration(drain_timeout));
  (*daemon)->Drain(absl::Now() + drain_timeout,
                   [] { return neuronserve::ShutdownSignalPending(); });
  // Whatever is still open (health watches, uploads, calls past the drain) is cancelled now.
  (*daemon)->Shutdown(absl::ZeroDuration());
  spdlog::info("unloading models and closing the runtime");
  daemon->reset();  // unloads, then nrt_close
  spdlog::info("neuron-serve stopped");
  // The forwarder writes the runtime's last lines before the process ends (the destructor
  // would too; done here so that it happens before static destructors).
  if (output_capture != nullptr) output_capture->Stop();
  return EXIT_SUCCESS;
}
