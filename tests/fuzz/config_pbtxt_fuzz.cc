// libFuzzer target: a model folder's config.pbtxt as the daemon reads it (a ModelConfig in
// protobuf text format, server/repository/model_repository.cc), merged with LoadModel's overrides
// and made into a LoadSpec (server/repository/load_spec.h). Checks, besides the sanitizers: a
// refused config is INVALID_ARGUMENT naming the model; an accepted one keeps every variant, and
// the config text a persisted model keeps in its record parses again to the same config, as the
// daemon's next start reads it (server/repository/startup_models.cc).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "server/repository/load_spec.h"

namespace {

void Require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Protobuf logs every refused text to stderr; the fuzzer's output is for findings.
  static const bool quiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)quiet;
  const std::string text(reinterpret_cast<const char*>(data), size);
  neuronserve::v1::ModelConfig config;
  if (!google::protobuf::TextFormat::ParseFromString(text, &config)) return 0;
  neuronserve::v1::ModelConfig overrides;
  overrides.set_version("7");
  overrides.set_replicas(2);
  const neuronserve::v1::ModelConfig merged = neuronserve::MergeConfig(config, overrides);
  // One NEFF, or one per variant, as the repository would read them.
  neuronserve::ModelNeffs neffs(merged.variant().empty() ? 1 : merged.variant_size(),
                                std::make_shared<const std::string>());
  const absl::StatusOr<neuronserve::LoadSpec> spec =
      neuronserve::LoadSpecFromConfig(merged, neffs, neuronserve::ModelSource::kRepository, true);
  // A refusal must say why, naming the model (CheckBatchingConfig's contract).
  if (!spec.ok()) {
    Require(spec.status().code() == absl::StatusCode::kInvalidArgument);
    Require(spec.status().message().find("model '") == 0);
    return 0;
  }
  Require(spec->replicas == 2);
  Require(spec->variants.size() == static_cast<size_t>(merged.variant_size()));
  neuronserve::v1::ModelConfig reread;
  Require(google::protobuf::TextFormat::ParseFromString(spec->config_text, &reread));
  Require(google::protobuf::util::MessageDifferencer::Equals(reread, merged));
  return 0;
}
