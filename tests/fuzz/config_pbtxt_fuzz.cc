// libFuzzer target: a model folder's config.pbtxt as the daemon reads it, in either schema
// (server/repository/model_config_schema.h: neuron-serve's ModelConfig, or Triton's converted by
// triton_config.h for a model folder with the version folders 1/ and 2/), merged with LoadModel's
// overrides and made into a LoadSpec (server/repository/load_spec.h). Checks, besides the sanitizers: a text is read
// as exactly one schema or refused naming both; a refused Triton configuration is
// INVALID_ARGUMENT (NOT_FOUND for a version without a folder) naming the file; a refused config
// is INVALID_ARGUMENT naming the model; an accepted one keeps every variant, and the config text
// a persisted model keeps in its record parses again to the same config, as the daemon's next
// start reads it (server/repository/startup_models.cc).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "server/repository/load_spec.h"
#include "server/repository/model_config_schema.h"
#include "server/repository/triton_config.h"
#include "tests/support/temp_dir.h"

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
  // The model folder a Triton configuration is read for: two version folders, removed at exit.
  static const neuronserve::testing::TempDir folder;
  static const bool written = [] {
    folder.Write("m/1/model.neff", "");
    folder.Write("m/2/model.neff", "");
    return true;
  }();
  (void)written;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<neuronserve::ParsedModelConfig> parsed =
      neuronserve::ParseModelConfigText(text, "'m/config.pbtxt'");
  if (!parsed.ok()) {
    Require(parsed.status().code() == absl::StatusCode::kInvalidArgument);
    Require(parsed.status().message().find("'m/config.pbtxt' is neither") == 0);
    return 0;
  }
  Require(parsed->own.has_value() != parsed->triton.has_value());
  neuronserve::v1::ModelConfig config;
  if (parsed->own.has_value()) {
    config = *parsed->own;
  } else {
    const absl::StatusOr<neuronserve::TritonModelConfig> converted =
        neuronserve::FromTritonConfig(*parsed->triton, folder.Join("m"), "'m/config.pbtxt'");
    if (!converted.ok()) {
      Require(converted.status().code() == absl::StatusCode::kInvalidArgument ||
              converted.status().code() == absl::StatusCode::kNotFound);
      Require(converted.status().message().find("'m/config.pbtxt': ") == 0);
      return 0;
    }
    config = converted->config;
    // The NEFF of a version folder, or each variant's.
    Require(!config.file().empty() || !config.variant().empty());
    if (config.name().empty()) config.set_name("m");
  }
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
