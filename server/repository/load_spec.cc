#include "server/repository/load_spec.h"

#include "google/protobuf/text_format.h"

namespace neuronserve {

LoadSpec LoadSpecFromConfig(const v1::ModelConfig& config, std::shared_ptr<const std::string> neff,
                            ModelSource source, bool persist) {
  LoadSpec spec;
  spec.identity = ModelIdentity{config.name(), config.version(), source};
  spec.neff = std::move(neff);
  spec.replicas = config.replicas() == 0 ? 1 : config.replicas();
  spec.start_cores.assign(config.start_cores().begin(), config.start_cores().end());
  spec.shared = config.shared();
  spec.max_queue = config.max_queue();
  spec.declared_core_count = config.core_count();
  spec.persist = persist;
  if (persist) google::protobuf::TextFormat::PrintToString(config, &spec.config_text);
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
  return base;
}

}  // namespace neuronserve
