// DaemonOptions: everything the daemon is started with, as main.cc reads it from the flags
// (flags.h). Its own header so that the units Daemon::Start wires (listeners.h, the logs) can
// take the options without seeing the Daemon that owns them.
//
// The defaults are named once: a model's (unload timeout, queue bound, pipeline depth) in
// core/lifecycle/model_defaults.h, the daemon's own below; DaemonOptions' members and the flags
// (flags.cc, defaults and help) take them from there.
//
// Thread safety: a plain value, copied or read by one thread at a time. Ownership: owns its
// strings; every path names a file, secrets are never held here.
#ifndef NEURON_SERVE_SERVER_DAEMON_DAEMON_OPTIONS_H_
#define NEURON_SERVE_SERVER_DAEMON_DAEMON_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "core/lifecycle/model_defaults.h"
#include "core/metrics/serving_metrics.h"
#include "server/logs/logging.h"
#include "server/shared_memory/shared_memory_registry.h"

namespace neuronserve {

// The gRPC listener's address (--listen): loopback, Triton's gRPC port.
inline constexpr char kDefaultListenAddress[] = "127.0.0.1:8001";
// Largest NEFF a load accepts, and the most bytes one RepositoryModelLoad upload carries
// (--max-model-bytes).
inline constexpr uint64_t kDefaultMaxModelBytes = uint64_t{2} << 30;
// Input bytes queued for every model together (--max-queued-bytes).
inline constexpr uint64_t kDefaultMaxQueuedBytes = uint64_t{2} << 30;
// Largest message or HTTP body received (--max-message-bytes).
inline constexpr int kDefaultMaxMessageBytes = 64 << 20;
// How long SIGTERM/SIGINT lets the open inference calls finish before the rest are cancelled
// (--drain-timeout, Daemon::Drain's deadline).
inline constexpr absl::Duration kDefaultDrainTimeout = absl::Seconds(30);

struct DaemonOptions {
  std::string listen_address = kDefaultListenAddress;
  std::string nrt_library;       // empty: the runtime's default names
  std::string model_repository;  // empty: none
  std::string load_models;       // "", "all", or "NAME,NAME"
  // KServe's /mnt/models: one model (served as model_name when set) or a repository
  // (server/repository/model_dir.h). Not with model_repository or load_models (main.cc refuses
  // that).
  std::string model_dir;
  std::string model_name;
  std::string state_dir;  // empty: API loads are not persisted
  uint64_t max_model_bytes = kDefaultMaxModelBytes;
  absl::Duration unload_timeout = kDefaultUnloadTimeout;
  uint32_t max_queue = kDefaultMaxQueue;
  // Input bytes queued for every model together (QueuedBytesBudget); 0: no limit.
  uint64_t max_queued_bytes = kDefaultMaxQueuedBytes;
  // Retired model versions whose metric series wait for a scrape (ServingMetrics).
  uint32_t max_retired_metric_versions =
      static_cast<uint32_t>(ServingMetrics::kMaxRetiredVersions);
  // Tensor sets per replica and variant when a model's config sets no pipeline_depth (1 to
  // kMaxPipelineDepth; main.cc refuses others).
  uint32_t pipeline_depth = kDefaultPipelineDepth;
  // Largest message received (an Infer request carries all its tensors in one). Responses
  // are not capped: their size is the model's, and the client sets what it accepts.
  int max_message_bytes = kDefaultMaxMessageBytes;
  std::string http_listen;    // empty: no HTTP endpoint
  std::string http_tls_cert;  // with http_tls_key: the HTTP endpoint speaks HTTPS
  std::string http_tls_key;
  std::string access_log;  // empty: none; "-": stdout
  int stdout_fd = 1;       // the real stdout for "-" (OutputCapture::original_stdout())
  LogFormat log_format = LogFormat::kText;
  absl::Duration execution_timeout = absl::Minutes(2);

  // Exposure (issue 17). Every path names a file; secrets are never held in options.
  std::string tls_cert;  // with tls_key: the main listener speaks TLS
  std::string tls_key;
  std::string tls_client_ca;     // clients must present a certificate it signed (mTLS)
  std::string infer_token_file;  // bearer tokens, infer scope
  std::string admin_token_file;  // bearer tokens, admin scope (implies infer)
  std::string admin_listen;      // "unix:/path" or loopback HOST:PORT; empty: admin on main
  std::string health_listen;     // plain-text grpc.health.v1 only; empty: none
  uint32_t max_models = 64;
  uint32_t max_concurrent_uploads = 4;
  uint32_t max_metadata_bytes = 16384;
  std::string audit_log;  // empty: none; "-": stdout (stdout_fd)
  // Clients' shared memory (--allow-client-shared-memory and its limits): off by default.
  SharedMemoryPolicy shared_memory;
  // How often watched credential files (certificates, token files) are checked for changes.
  absl::Duration credential_poll_interval = absl::Seconds(1);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_DAEMON_DAEMON_OPTIONS_H_
