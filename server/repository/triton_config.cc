#include "server/repository/triton_config.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
#include "server/repository/triton_data_type.h"

namespace neuronserve {
namespace {

namespace fs = std::filesystem;

constexpr char kTritonDefaultNeff[] = "model.neff";

// The parameters a Triton configuration may give neuron-serve (triton_config.h).
constexpr char kStartCores[] = "neuron_start_cores";
constexpr char kPipelineDepth[] = "neuron_pipeline_depth";
constexpr char kCoreCount[] = "neuron_core_count";
constexpr char kMaxQueue[] = "neuron_max_queue";
constexpr char kShared[] = "neuron_shared";
// Reported by ModelConfig (server/oip/v2_model_config.h), so a configuration read back from a
// daemon loads again; not read.
constexpr char kReportedCores[] = "neuron_cores";
constexpr char kReportedLabel[] = "neuron_version_label";

// The top-level fields FromTritonConfig acts on (or refuses); every other field that is set is
// accepted without effect and named in the warning.
const std::set<std::string>& ReadFields() {
  static const auto* fields = new std::set<std::string>{"name",
                                                        "platform",
                                                        "backend",
                                                        "runtime",
                                                        "version_policy",
                                                        "max_batch_size",
                                                        "input",
                                                        "output",
                                                        "batch_input",
                                                        "batch_output",
                                                        "instance_group",
                                                        "default_model_filename",
                                                        "dynamic_batching",
                                                        "sequence_batching",
                                                        "ensemble_scheduling",
                                                        "parameters",
                                                        "model_transaction_policy"};
  return *fields;
}

absl::Status Refuse(const std::string& where, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

// The version folder the policy picks: nullopt when the folder has none (the NEFF is in the
// model folder itself).
absl::StatusOr<std::optional<int64_t>> PickVersion(const inference::ModelConfig& triton,
                                                   const std::string& folder,
                                                   const std::string& where) {
  const std::vector<int64_t> versions = VersionFolders(folder);
  const inference::ModelVersionPolicy& policy = triton.version_policy();
  const std::string listed =
      versions.empty() ? "none" : absl::StrCat("'", absl::StrJoin(versions, "', '"), "'");
  switch (policy.policy_choice_case()) {
    case inference::ModelVersionPolicy::kSpecific: {
      if (policy.specific().versions_size() != 1) {
        return Refuse(
            where, absl::StrCat("version_policy specific names ", policy.specific().versions_size(),
                                " versions; neuron-serve serves one version of a model "
                                "at a time: name one"));
      }
      const int64_t wanted = policy.specific().versions(0);
      if (std::find(versions.begin(), versions.end(), wanted) == versions.end()) {
        return absl::NotFoundError(absl::StrCat(where, ": version_policy specific names version ",
                                                wanted, ", which has no folder '", wanted,
                                                "/' (version folders: ", listed, ")"));
      }
      return std::optional<int64_t>(wanted);
    }
    case inference::ModelVersionPolicy::kAll:
      if (versions.size() > 1) {
        return Refuse(where, absl::StrCat("version_policy all would serve the versions ", listed,
                                          " at once; neuron-serve serves one version of a model "
                                          "at a time: use latest { num_versions: 1 } or "
                                          "specific { versions: N }"));
      }
      break;
    case inference::ModelVersionPolicy::kLatest:
      if (policy.latest().num_versions() > 1) {
        return Refuse(where, absl::StrCat("version_policy latest { num_versions: ",
                                          policy.latest().num_versions(),
                                          " }: neuron-serve serves one version of a model at a "
                                          "time: use num_versions 1"));
      }
      break;
    case inference::ModelVersionPolicy::POLICY_CHOICE_NOT_SET:
      break;
  }
  if (versions.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(versions.back());
}

absl::StatusOr<uint32_t> ParameterNumber(const std::string& where, const std::string& key,
                                         const std::string& value) {
  uint32_t number = 0;
  if (!absl::SimpleAtoi(value, &number)) {
    return Refuse(where, absl::StrCat("parameters '", key, "' is '", value,
                                      "'; give a non-negative integer"));
  }
  return number;
}

// The parameters neuron-serve reads; the others are named in `ignored`.
absl::Status ApplyParameters(const inference::ModelConfig& triton, const std::string& where,
                             v1::ModelConfig& config, std::vector<std::string>& ignored) {
  std::map<std::string, std::string> sorted;
  for (const auto& [key, value] : triton.parameters()) sorted.emplace(key, value.string_value());
  for (const auto& [key, value] : sorted) {
    if (key == kPipelineDepth || key == kCoreCount || key == kMaxQueue) {
      absl::StatusOr<uint32_t> number = ParameterNumber(where, key, value);
      if (!number.ok()) return number.status();
      if (key == kPipelineDepth) config.set_pipeline_depth(*number);
      if (key == kCoreCount) config.set_core_count(*number);
      if (key == kMaxQueue) config.set_max_queue(*number);
    } else if (key == kShared) {
      if (value != "true" && value != "false") {
        return Refuse(where, absl::StrCat("parameters '", key, "' is '", value,
                                          "'; give \"true\" or \"false\""));
      }
      config.set_shared(value == "true");
    } else if (key == kStartCores) {
      for (absl::string_view part : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
        absl::StatusOr<uint32_t> core =
            ParameterNumber(where, key, std::string(absl::StripAsciiWhitespace(part)));
        if (!core.ok()) return core.status();
        config.add_start_cores(*core);
      }
    } else if (key != kTritonBatchVariantsParameter && key != kReportedCores &&
               key != kReportedLabel) {
      ignored.push_back(absl::StrCat("parameters '", key, "'"));
    }
  }
  return absl::OkStatus();
}

// The compiled variants of a batched model: "SIZE:FILE,SIZE:FILE", or the one NEFF compiled for
// max_batch_size rows.
absl::Status ApplyBatching(const inference::ModelConfig& triton, const std::string& where,
                           const std::string& prefix, const std::string& neff,
                           v1::ModelConfig& config) {
  const auto listed = triton.parameters().find(kTritonBatchVariantsParameter);
  if (triton.max_batch_size() == 0) {
    if (triton.has_dynamic_batching()) {
      return Refuse(where,
                    "dynamic_batching needs max_batch_size above 0 (the rows a request "
                    "may carry, along the NEFF's leading dimension)");
    }
    if (listed != triton.parameters().end()) {
      return Refuse(where, absl::StrCat("parameters '", kTritonBatchVariantsParameter,
                                        "' lists batch variants, but max_batch_size is 0: set it"));
    }
    config.set_file(prefix + neff);
    return absl::OkStatus();
  }
  config.set_max_batch_size(static_cast<uint32_t>(triton.max_batch_size()));
  if (listed == triton.parameters().end()) {
    v1::BatchVariant* variant = config.add_variant();
    variant->set_file(prefix + neff);
    variant->set_batch_size(static_cast<uint32_t>(triton.max_batch_size()));
  } else {
    for (absl::string_view entry :
         absl::StrSplit(listed->second.string_value(), ',', absl::SkipWhitespace())) {
      std::pair<std::string, std::string> parts = absl::StrSplit(entry, absl::MaxSplits(':', 1));
      uint32_t size = 0;
      const std::string file(absl::StripAsciiWhitespace(parts.second));
      if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(parts.first), &size) || size == 0 ||
          file.empty()) {
        return Refuse(where,
                      absl::StrCat("parameters '", kTritonBatchVariantsParameter, "': '", entry,
                                   "' is not SIZE:FILE (for example 8:model_b8.neff)"));
      }
      v1::BatchVariant* variant = config.add_variant();
      variant->set_file(prefix + file);
      variant->set_batch_size(size);
    }
    if (config.variant().empty()) {
      return Refuse(
          where, absl::StrCat("parameters '", kTritonBatchVariantsParameter, "' lists no variant"));
    }
  }
  if (triton.has_dynamic_batching()) {
    for (int32_t size : triton.dynamic_batching().preferred_batch_size()) {
      if (size <= 0) {
        return Refuse(where, absl::StrCat("dynamic_batching preferred_batch_size ", size,
                                          " is not a row count"));
      }
    }
    // neuron-serve's DynamicBatching is Triton's message by field names and numbers, so the
    // bytes of one are the other (CheckBatchingConfig then refuses what is not implemented).
    if (!config.mutable_dynamic_batching()->ParseFromString(
            triton.dynamic_batching().SerializeAsString())) {
      return absl::InternalError(absl::StrCat(where, ": dynamic_batching did not convert"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckBackend(const inference::ModelConfig& triton, const std::string& where) {
  for (const auto& [field, value] :
       {std::pair<const char*, const std::string*>{"platform", &triton.platform()},
        {"backend", &triton.backend()},
        {"runtime", &triton.runtime()}}) {
    if (!value->empty() && *value != "neuron") {
      return Refuse(where, absl::StrCat(field, " '", *value,
                                        "' is not served here: neuron-serve runs NEFFs on "
                                        "NeuronCores; set backend: \"neuron\" (or leave ",
                                        field, " out)"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckScheduling(const inference::ModelConfig& triton, const std::string& where) {
  if (triton.has_sequence_batching()) {
    return Refuse(where,
                  "sequence_batching is not supported: neuron-serve keeps no sequence "
                  "state between requests; remove it (dynamic_batching is)");
  }
  if (triton.has_ensemble_scheduling()) {
    return Refuse(where,
                  "ensemble_scheduling is not supported: serve each model of the "
                  "ensemble and chain them in the client");
  }
  if (triton.model_transaction_policy().decoupled()) {
    return Refuse(where,
                  "model_transaction_policy decoupled is not supported: every request "
                  "gets exactly one response");
  }
  if (!triton.batch_input().empty()) {
    return Refuse(where, "batch_input (ragged batching) is not supported");
  }
  if (!triton.batch_output().empty()) {
    return Refuse(where, "batch_output (ragged batching) is not supported");
  }
  if (triton.max_batch_size() < 0) {
    return Refuse(where, absl::StrCat("max_batch_size is ", triton.max_batch_size()));
  }
  return absl::OkStatus();
}

absl::Status ApplyInstanceGroups(const inference::ModelConfig& triton, const std::string& where,
                                 v1::ModelConfig& config, std::vector<std::string>& ignored) {
  uint32_t replicas = 0;
  for (const inference::ModelInstanceGroup& group : triton.instance_group()) {
    const std::string named = group.name().empty()
                                  ? "instance_group"
                                  : absl::StrCat("instance_group '", group.name(), "'");
    if (group.kind() == inference::ModelInstanceGroup::KIND_GPU || !group.gpus().empty() ||
        group.kind() == inference::ModelInstanceGroup::KIND_CPU) {
      return Refuse(where, absl::StrCat(named, " kind ",
                                        inference::ModelInstanceGroup::Kind_Name(group.kind()),
                                        group.gpus().empty() ? "" : " with gpus",
                                        ": neuron-serve runs on NeuronCores; use KIND_MODEL (or "
                                        "KIND_AUTO) and count for the replicas"));
    }
    if (group.passive()) {
      return Refuse(where, absl::StrCat(named, " is passive: every replica here takes requests"));
    }
    if (!group.secondary_devices().empty()) {
      return Refuse(where, absl::StrCat(named,
                                        " names secondary_devices, which neuron-serve "
                                        "does not have"));
    }
    if (group.count() < 0) {
      return Refuse(where, absl::StrCat(named, " count is ", group.count()));
    }
    if (group.has_rate_limiter()) ignored.push_back(absl::StrCat(named, " rate_limiter"));
    if (!group.profile().empty()) ignored.push_back(absl::StrCat(named, " profile"));
    if (!group.host_policy().empty()) ignored.push_back(absl::StrCat(named, " host_policy"));
    // As in Triton, a group without a count has one instance.
    replicas += group.count() == 0 ? 1 : static_cast<uint32_t>(group.count());
  }
  if (config.start_cores().empty()) {
    config.set_replicas(replicas);  // 0 (no group): neuron-serve's default, one
  } else if (replicas != 0 && replicas != static_cast<uint32_t>(config.start_cores_size())) {
    return Refuse(where, absl::StrCat("instance_group counts ", replicas,
                                      " replicas, but "
                                      "parameters '",
                                      kStartCores, "' places ", config.start_cores_size()));
  }
  return absl::OkStatus();
}

template <typename Tensor>
absl::Status Declare(const Tensor& tensor, TensorUsage usage, const std::string& where,
                     std::vector<DeclaredTensor>& declared) {
  const std::string named =
      absl::StrCat(usage == TensorUsage::kInput ? "input '" : "output '", tensor.name(), "'");
  if (tensor.name().empty()) {
    return Refuse(where, absl::StrCat(usage == TensorUsage::kInput ? "an input" : "an output",
                                      " has no name"));
  }
  if (tensor.has_reshape()) {
    return Refuse(where, absl::StrCat(named,
                                      " has a reshape, which is not supported: declare "
                                      "the NEFF's own dims"));
  }
  if (tensor.is_shape_tensor()) {
    return Refuse(where, absl::StrCat(named, " is a shape tensor, which is not supported"));
  }
  if (tensor.is_non_linear_format_io()) {
    return Refuse(where, absl::StrCat(named, " is non-linear format I/O, which is not supported"));
  }
  DeclaredTensor entry;
  entry.name = tensor.name();
  entry.usage = usage;
  entry.dtype = DataTypeFromTriton(tensor.data_type());
  entry.type_name = inference::DataType_Name(tensor.data_type());
  entry.dims.assign(tensor.dims().begin(), tensor.dims().end());
  declared.push_back(std::move(entry));
  return absl::OkStatus();
}

absl::Status DeclareTensors(const inference::ModelConfig& triton, const std::string& where,
                            std::vector<DeclaredTensor>& declared,
                            std::vector<std::string>& ignored) {
  for (const inference::ModelInput& input : triton.input()) {
    const std::string named = absl::StrCat("input '", input.name(), "'");
    if (input.optional()) {
      return Refuse(where, absl::StrCat(named,
                                        " is optional: every input of a NEFF is "
                                        "required"));
    }
    if (input.allow_ragged_batch()) {
      return Refuse(where, absl::StrCat(named,
                                        " allows ragged batches, which are not "
                                        "supported"));
    }
    if (input.format() != inference::ModelInput::FORMAT_NONE) {
      ignored.push_back(absl::StrCat(named, " format"));
    }
    if (absl::Status status = Declare(input, TensorUsage::kInput, where, declared); !status.ok()) {
      return status;
    }
  }
  for (const inference::ModelOutput& output : triton.output()) {
    if (!output.label_filename().empty()) {
      ignored.push_back(absl::StrCat("output '", output.name(), "' label_filename"));
    }
    if (absl::Status status = Declare(output, TensorUsage::kOutput, where, declared);
        !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<int64_t> VersionFolders(const std::string& folder) {
  std::vector<int64_t> versions;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    int64_t version = 0;
    std::error_code kind_error;
    if (!name.empty() && absl::ascii_isdigit(name[0]) && absl::SimpleAtoi(name, &version) &&
        fs::is_directory(entry.path(), kind_error)) {
      versions.push_back(version);
    }
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

absl::StatusOr<TritonModelConfig> FromTritonConfig(const inference::ModelConfig& triton,
                                                   const std::string& folder,
                                                   const std::string& where) {
  if (absl::Status status = CheckBackend(triton, where); !status.ok()) return status;
  if (absl::Status status = CheckScheduling(triton, where); !status.ok()) return status;
  TritonModelConfig out;
  out.config.set_name(triton.name());
  absl::StatusOr<std::optional<int64_t>> version = PickVersion(triton, folder, where);
  if (!version.ok()) return version.status();
  std::string prefix;
  if (version->has_value()) {
    out.config.set_version(absl::StrCat(**version));
    prefix = absl::StrCat(**version, "/");
  }
  const std::string neff = triton.default_model_filename().empty()
                               ? kTritonDefaultNeff
                               : triton.default_model_filename();
  if (absl::Status status = ApplyParameters(triton, where, out.config, out.ignored_fields);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = ApplyBatching(triton, where, prefix, neff, out.config); !status.ok()) {
    return status;
  }
  if (absl::Status status = ApplyInstanceGroups(triton, where, out.config, out.ignored_fields);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = DeclareTensors(triton, where, out.declared_tensors, out.ignored_fields);
      !status.ok()) {
    return status;
  }
  // Every other field that is set: accepted, without effect.
  std::vector<const google::protobuf::FieldDescriptor*> set;
  triton.GetReflection()->ListFields(triton, &set);
  for (const google::protobuf::FieldDescriptor* field : set) {
    // A disabled response cache (as ModelConfig reports it) is what neuron-serve does anyway.
    if (field->name() == "response_cache" && !triton.response_cache().enable()) continue;
    if (!ReadFields().contains(field->name())) out.ignored_fields.push_back(field->name());
  }
  return out;
}
}  // namespace neuronserve
