#include "server/repository/load_spec.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "core/serving/model/loaded_model.h"
#include "google/protobuf/text_format.h"
#include "spdlog/spdlog.h"
#include "util/posix_file.h"
#include "util/sha256.h"

namespace neuronserve {
namespace {

// Longest max_queue_delay_microseconds a config may ask for: a core left idle longer than this
// while requests wait is a mistake in the config, not a batching policy.
constexpr uint64_t kMaxQueueDelayLimitMicros = 60'000'000;
// default_timeout_microseconds past this (about 31 years) is taken as this, so that the
// conversion to a duration cannot overflow.
constexpr uint64_t kLongestTimeoutMicros = uint64_t{1} << 50;

absl::Status Refuse(const v1::ModelConfig& config, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("model '", config.name(), "': ", what));
}

absl::Status CheckVariants(const v1::ModelConfig& config) {
  if (!config.file().empty()) {
    return Refuse(config, absl::StrCat("the config sets both `file` ('", config.file(),
                                       "') and `variant`: a batched model names each of its "
                                       "NEFFs in a variant, and `file` must be left out"));
  }
  for (int i = 0; i < config.variant_size(); ++i) {
    const v1::BatchVariant& variant = config.variant(i);
    if (variant.batch_size() == 0) {
      return Refuse(config, absl::StrCat("variant ", i + 1, " ('", variant.file(),
                                         "') has no batch_size; give the batch size its NEFF "
                                         "was compiled for (1 or more)"));
    }
    for (int j = 0; j < i; ++j) {
      if (config.variant(j).batch_size() == variant.batch_size()) {
        return Refuse(
            config, absl::StrCat("variants ", j + 1, " and ", i + 1, " both have batch_size ",
                                 variant.batch_size(), "; each variant needs its own batch size"));
      }
    }
    if (!variant.sha256().empty() && !IsSha256Hex(variant.sha256())) {
      return Refuse(config, absl::StrCat("the variant of batch ", variant.batch_size(),
                                         ": sha256 must be 64 lower-case hex digits, got '",
                                         variant.sha256(), "'"));
    }
  }
  return absl::OkStatus();
}

uint32_t LargestVariant(const v1::ModelConfig& config) {
  uint32_t largest = 0;
  for (const v1::BatchVariant& variant : config.variant()) {
    largest = std::max(largest, variant.batch_size());
  }
  return largest;
}

absl::Status CheckDynamicBatching(const v1::ModelConfig& config) {
  const v1::DynamicBatching& batching = config.dynamic_batching();
  if (batching.priority_levels() > 1) {
    return Refuse(config,
                  absl::StrCat("dynamic_batching.priority_levels is ", batching.priority_levels(),
                               ", but this daemon serves one priority level (leave it "
                               "out, or set 1)"));
  }
  if (batching.default_priority_level() > 1) {
    return Refuse(config, absl::StrCat("dynamic_batching.default_priority_level is ",
                                       batching.default_priority_level(),
                                       ", but this daemon serves one priority level"));
  }
  if (!batching.priority_queue_policy().empty()) {
    return Refuse(config,
                  "dynamic_batching.priority_queue_policy is set, but this daemon serves "
                  "one priority level: use default_queue_policy");
  }
  if (batching.preserve_ordering()) {
    return Refuse(config,
                  "dynamic_batching.preserve_ordering is not supported: every request is "
                  "answered as soon as its rows are done");
  }
  if (batching.default_queue_policy().timeout_action() == v1::QueuePolicy::DELAY) {
    return Refuse(config,
                  "dynamic_batching.default_queue_policy.timeout_action DELAY is not "
                  "supported: a request whose queue timeout expires is refused (REJECT)");
  }
  if (batching.max_queue_delay_microseconds() > kMaxQueueDelayLimitMicros) {
    return Refuse(config,
                  absl::StrCat("dynamic_batching.max_queue_delay_microseconds is ",
                               batching.max_queue_delay_microseconds(), ", more than the limit of ",
                               kMaxQueueDelayLimitMicros, " (one minute)"));
  }
  // A batch is one execution: no preferred size can be larger than the largest variant.
  const uint32_t largest = LargestVariant(config);
  for (const uint32_t preferred : batching.preferred_batch_size()) {
    if (preferred == 0 || preferred > largest) {
      return Refuse(config, absl::StrCat("dynamic_batching.preferred_batch_size ", preferred,
                                         " is not between 1 and the largest variant's batch "
                                         "size, ",
                                         largest));
    }
  }
  return absl::OkStatus();
}

BatchingPolicy BatchingPolicyFromConfig(const v1::DynamicBatching& batching) {
  BatchingPolicy policy;
  policy.preferred_batch_sizes.assign(batching.preferred_batch_size().begin(),
                                      batching.preferred_batch_size().end());
  policy.max_queue_delay =
      absl::Microseconds(static_cast<int64_t>(batching.max_queue_delay_microseconds()));
  const uint64_t timeout = batching.default_queue_policy().default_timeout_microseconds();
  if (timeout != 0) {
    policy.default_timeout =
        absl::Microseconds(static_cast<int64_t>(std::min(timeout, kLongestTimeoutMicros)));
  }
  policy.allow_timeout_override = batching.default_queue_policy().allow_timeout_override();
  return policy;
}

// 0 (the daemon's --pipeline-depth) or 1..kMaxPipelineDepth; the loader refuses the rest too,
// but a config is refused here before any NEFF byte is read or received.
absl::Status CheckPipelineDepth(const v1::ModelConfig& config) {
  if (config.pipeline_depth() > kMaxPipelineDepth) {
    return Refuse(config, absl::StrCat("pipeline_depth is ", config.pipeline_depth(),
                                       ", more than the limit of ", kMaxPipelineDepth,
                                       " (tensor sets per variant of each replica; 1: no "
                                       "pipelining, 0 or left out: the daemon's "
                                       "--pipeline-depth)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckModelConfig(const v1::ModelConfig& config) {
  if (absl::Status status = CheckPipelineDepth(config); !status.ok()) return status;
  return CheckBatchingConfig(config);
}

absl::Status CheckBatchingConfig(const v1::ModelConfig& config) {
  if (config.variant().empty()) {
    if (config.max_batch_size() != 0) {
      return Refuse(config, absl::StrCat("max_batch_size is ", config.max_batch_size(),
                                         ", but the model has no batch variants (`variant { file "
                                         "batch_size }`): a model of one NEFF has no batch "
                                         "dimension"));
    }
    if (config.has_dynamic_batching()) {
      return Refuse(config,
                    "dynamic_batching is set, but the model has no batch variants "
                    "(`variant { file batch_size }`) to batch over");
    }
    return absl::OkStatus();
  }
  if (absl::Status status = CheckVariants(config); !status.ok()) return status;
  return CheckDynamicBatching(config);
}

absl::StatusOr<LoadSpec> LoadSpecFromConfig(const v1::ModelConfig& config, ModelNeffs neffs,
                                            ModelSource source, bool persist) {
  if (absl::Status status = CheckModelConfig(config); !status.ok()) return status;
  const size_t expected = config.variant().empty() ? 1 : config.variant_size();
  if (neffs.size() != expected) {
    return Refuse(config,
                  absl::StrCat(expected, config.variant().empty() ? " NEFF" : " variants' NEFFs",
                               " expected, ", neffs.size(), " given"));
  }
  LoadSpec spec;
  spec.identity = ModelIdentity{config.name(), config.version(), source};
  if (config.variant().empty()) {
    spec.neff = std::move(neffs.front());
  } else {
    for (int i = 0; i < config.variant_size(); ++i) {
      spec.variants.push_back(VariantSpec{config.variant(i).batch_size(), std::move(neffs[i]), {}});
    }
    spec.batching = BatchingPolicyFromConfig(config.dynamic_batching());
    spec.max_batch_size =
        config.max_batch_size() != 0 ? config.max_batch_size() : LargestVariant(config);
  }
  spec.replicas = config.replicas() == 0 ? 1 : config.replicas();
  spec.start_cores.assign(config.start_cores().begin(), config.start_cores().end());
  spec.shared = config.shared();
  const uint32_t max_queue_size = config.dynamic_batching().default_queue_policy().max_queue_size();
  spec.max_queue = max_queue_size != 0 ? max_queue_size : config.max_queue();
  spec.declared_core_count = config.core_count();
  spec.pipeline_depth = config.pipeline_depth();
  spec.persist = persist;
  if (persist) google::protobuf::TextFormat::PrintToString(config, &spec.config_text);
  return spec;
}

absl::StatusOr<LoadSpec> RepositoryModelLoadSpec(const RepositoryModel& model,
                                                 const v1::ModelConfig& config, bool persist) {
  // Before any byte is read: the digests below are compared only once known to be well formed.
  if (absl::Status status = CheckModelConfig(config); !status.ok()) return status;
  if (model.variant_paths.size() != static_cast<size_t>(config.variant_size())) {
    return absl::InternalError(
        absl::StrCat("model '", config.name(), "': ", model.variant_paths.size(),
                     " variant files for ", config.variant_size(), " variants"));
  }
  ModelNeffs neffs;
  if (model.variant_paths.empty()) {
    absl::StatusOr<std::string> bytes = ReadFile(model.neff_path);
    if (!bytes.ok()) return bytes.status();
    neffs.push_back(std::make_shared<const std::string>(*std::move(bytes)));
  }
  for (size_t i = 0; i < model.variant_paths.size(); ++i) {
    absl::StatusOr<std::string> bytes = ReadFile(model.variant_paths[i]);
    if (!bytes.ok()) return bytes.status();
    const v1::BatchVariant& variant = config.variant(static_cast<int>(i));
    if (!variant.sha256().empty()) {
      if (std::string digest = Sha256Hex(*bytes); digest != variant.sha256()) {
        return Refuse(config, absl::StrCat("the variant of batch ", variant.batch_size(), " ('",
                                           variant.file(), "') has SHA-256 ", digest,
                                           ", but its config says ", variant.sha256()));
      }
    }
    neffs.push_back(std::make_shared<const std::string>(*std::move(bytes)));
  }
  absl::StatusOr<LoadSpec> spec =
      LoadSpecFromConfig(config, std::move(neffs), ModelSource::kRepository, persist);
  if (!spec.ok()) return spec;
  spec->declared_tensors = model.declared_tensors;
  if (!model.ignored_fields.empty()) {
    spdlog::warn(
        "model '{}': its Triton configuration sets {}, which neuron-serve accepts without "
        "effect",
        config.name(), absl::StrJoin(model.ignored_fields, ", "));
  }
  // Hashed just above when the config states a digest: the store need not hash them again.
  for (int i = 0; i < config.variant_size(); ++i) {
    spec->variants[i].neff_sha256 = config.variant(i).sha256();
  }
  return spec;
}

v1::ModelConfig MergeConfig(v1::ModelConfig base, const v1::ModelConfig& overrides) {
  if (!overrides.name().empty()) base.set_name(overrides.name());
  if (!overrides.version().empty()) base.set_version(overrides.version());
  if (overrides.replicas() != 0) base.set_replicas(overrides.replicas());
  if (!overrides.start_cores().empty()) *base.mutable_start_cores() = overrides.start_cores();
  if (overrides.shared()) base.set_shared(true);
  if (overrides.max_queue() != 0) base.set_max_queue(overrides.max_queue());
  if (overrides.core_count() != 0) base.set_core_count(overrides.core_count());
  if (overrides.pipeline_depth() != 0) base.set_pipeline_depth(overrides.pipeline_depth());
  if (overrides.max_batch_size() != 0) base.set_max_batch_size(overrides.max_batch_size());
  if (overrides.has_dynamic_batching()) {
    *base.mutable_dynamic_batching() = overrides.dynamic_batching();
  }
  return base;
}

}  // namespace neuronserve
