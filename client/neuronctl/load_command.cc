#include "client/neuronctl/load_command.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "client/neuronctl/connection_flags.h"
#include "client/neuronctl/flag_values.h"
#include "client/neuronctl/model_status_text.h"
#include "client/neuronctl/positional_args.h"
#include "client/neuronctl/progress_bar.h"
#include "client/neuronctl/proto_json.h"
#include "client/neuronctl/usage_error.h"

namespace neuronserve::neuronctl {
namespace {

constexpr auto kLoadFlags = WithConnectionFlags(std::to_array<FlagSpec>({
    {"name", FlagType::kValue, "NAME", "",
     "the name clients use (default: FILE's name without its extension)"},
    {"version", FlagType::kValue, "LABEL", "", "a version label, e.g. 3 or 2024-06-01"},
    {"replicas", FlagType::kValue, "N", "", "replicas, each on the first free cores (default 1)"},
    {"cores", FlagType::kValue, "LIST", "",
     "one replica starting at each of these cores, e.g. 0,2"},
    {"shared", FlagType::kBoolean, "", "", "let other shared models use the same cores"},
    {"max-queue", FlagType::kValue, "N", "", "requests that may wait (default: the daemon's)"},
    {"pipeline-depth", FlagType::kValue, "N", "",
     "tensor sets per replica, 1 (no pipelining) to 8 (default: the daemon's)"},
    {"repository", FlagType::kBoolean, "", "",
     "FILE is a model folder or NEFF inside the daemon's --model-repository, not a local file"},
    {"batch-sizes", FlagType::kValue, "LIST", "",
     "a batched model: the batch size each FILE was compiled for, in order, e.g. 1,8"},
    {"max-batch-size", FlagType::kValue, "N", "",
     "most rows one request may carry (default: the largest batch size; more: requests split)"},
    {"preferred-batch-sizes", FlagType::kValue, "LIST", "",
     "row counts worth waiting for, with --max-queue-delay (default: the largest batch size)"},
    {"max-queue-delay", FlagType::kValue, "DURATION", "",
     "how long a free core may wait for a preferred batch, e.g. 500us (default 0: never)"},
}));

constexpr absl::string_view kLoadDescription =
    "Loads a model. By default FILE is a local NEFF, uploaded in 1 MiB chunks with its SHA-256\n"
    "(the daemon checks both before loading), with a progress bar on a terminal. With\n"
    "--repository, FILE is a path in the daemon's model repository and nothing is uploaded;\n"
    "the flags then override its config.pbtxt. Answers once the model is READY on its cores;\n"
    "loading a name that is READY replaces it once the new one is ready. Give --replicas or\n"
    "--cores, not both. For a very large model raise --timeout, the deadline of the whole load.\n"
    "\n"
    "\n"
    "A batched model is one network compiled for several batch sizes: give each NEFF as a FILE\n"
    "and --batch-sizes in the same order (and --name). Requests of any row count up to\n"
    "--max-batch-size are gathered into the variant that costs the least device time per row,\n"
    "padded with zero rows, and split back.\n"
    "\n"
    "Examples:\n"
    "  neuronctl load resnet50.neff --replicas=2\n"
    "  neuronctl load bert --repository --cores=0,2 --version=3\n"
    "  neuronctl load resnet_b1.neff resnet_b8.neff --batch-sizes=1,8 --name=resnet";

// --max-batch-size, --preferred-batch-sizes and --max-queue-delay into `config`; the daemon
// checks them against the variants.
absl::Status BatchingFromFlags(const ParsedArgs& args, v1::ModelConfig& config) {
  if (args.Has("max-batch-size")) {
    absl::StatusOr<uint64_t> rows = GetPositiveFlag(args, "max-batch-size");
    if (!rows.ok()) return rows.status();
    if (*rows > UINT32_MAX) {
      return UsageError(absl::StrCat("--max-batch-size: ", *rows, " is more than ", UINT32_MAX));
    }
    config.set_max_batch_size(static_cast<uint32_t>(*rows));
  }
  if (args.Has("preferred-batch-sizes")) {
    absl::StatusOr<std::vector<int64_t>> sizes =
        ParsePositiveList("preferred-batch-sizes", *args.Get("preferred-batch-sizes"), UINT32_MAX);
    if (!sizes.ok()) return sizes.status();
    for (int64_t rows : *sizes) {
      config.mutable_dynamic_batching()->add_preferred_batch_size(static_cast<uint32_t>(rows));
    }
  }
  if (args.Has("max-queue-delay")) {
    absl::StatusOr<absl::Duration> delay = GetDurationFlag(args, "max-queue-delay");
    if (!delay.ok()) return delay.status();
    config.mutable_dynamic_batching()->set_max_queue_delay_microseconds(
        static_cast<uint64_t>(absl::ToInt64Microseconds(*delay)));
  }
  return absl::OkStatus();
}

// --batch-sizes paired with the FILEs, in order; empty without the flag.
absl::StatusOr<std::vector<client::Client::VariantFile>> VariantFiles(
    const ParsedArgs& args, const std::vector<std::string>& files) {
  if (!args.Has("batch-sizes")) {
    if (files.size() > 1) {
      return UsageError(absl::StrCat(files.size(),
                                     " FILEs given: several files are the variants "
                                     "of a batched model, so give --batch-sizes (one per FILE)"));
    }
    return std::vector<client::Client::VariantFile>();
  }
  if (args.GetBool("repository")) {
    return UsageError(
        "--batch-sizes is for uploads; a repository model's config.pbtxt names its "
        "variants");
  }
  absl::StatusOr<std::vector<int64_t>> sizes =
      ParsePositiveList("batch-sizes", *args.Get("batch-sizes"), UINT32_MAX);
  if (!sizes.ok()) return sizes.status();
  if (sizes->size() != files.size()) {
    return UsageError(absl::StrCat("--batch-sizes lists ", sizes->size(), " batch sizes for ",
                                   files.size(), files.size() == 1 ? " FILE" : " FILEs",
                                   "; give one per FILE, in order"));
  }
  if (files.size() > 1 && !args.Has("name")) {
    return UsageError("give --name: a batched model of several files has no one file name");
  }
  std::vector<client::Client::VariantFile> variants;
  for (size_t i = 0; i < files.size(); ++i) {
    variants.push_back({static_cast<uint32_t>((*sizes)[i]), files[i]});
  }
  return variants;
}

absl::StatusOr<v1::ModelConfig> ConfigFromFlags(const ParsedArgs& args, const std::string& file) {
  v1::ModelConfig config;
  if (args.Has("name")) {
    absl::StatusOr<std::string> name = GetRequiredFlag(args, "name");
    if (!name.ok()) return name.status();
    config.set_name(*name);
  } else if (!args.GetBool("repository")) {
    // A repository folder's config names the model itself; an uploaded file has only its name.
    config.set_name(std::filesystem::path(file).stem().string());
  }
  if (args.Has("version")) config.set_version(*args.Get("version"));
  if (args.Has("replicas") && args.Has("cores")) {
    return UsageError("give --replicas or --cores, not both");
  }
  if (args.Has("replicas")) {
    absl::StatusOr<uint64_t> replicas = GetPositiveFlag(args, "replicas");
    if (!replicas.ok()) return replicas.status();
    if (*replicas > kMaxCoreCount) {
      return UsageError(absl::StrCat("--replicas: ", *replicas, " is more than any machine has"));
    }
    config.set_replicas(static_cast<uint32_t>(*replicas));
  }
  if (args.Has("cores")) {
    // Not ParsePositiveList: core 0 is a valid start core.
    for (absl::string_view item : absl::StrSplit(*args.Get("cores"), ',')) {
      uint64_t core = 0;
      if (!ParsePlainDecimal(item, &core) || core >= kMaxCoreCount) {
        return UsageError(absl::StrCat("--cores: '", *args.Get("cores"),
                                       "' is not a comma-separated list of core indices ('", item,
                                       "' is not)"));
      }
      config.add_start_cores(static_cast<uint32_t>(core));
    }
  }
  config.set_shared(args.GetBool("shared"));
  if (args.Has("max-queue")) {
    absl::StatusOr<uint64_t> max_queue = GetPositiveFlag(args, "max-queue");
    if (!max_queue.ok()) return max_queue.status();
    config.set_max_queue(static_cast<uint32_t>(std::min<uint64_t>(*max_queue, UINT32_MAX)));
  }
  if (args.Has("pipeline-depth")) {
    // The daemon refuses more than its limit, naming it.
    absl::StatusOr<uint64_t> depth = GetPositiveFlag(args, "pipeline-depth");
    if (!depth.ok()) return depth.status();
    config.set_pipeline_depth(static_cast<uint32_t>(std::min<uint64_t>(*depth, UINT32_MAX)));
  }
  if (absl::Status status = BatchingFromFlags(args, config); !status.ok()) return status;
  return config;
}

void PrintLoaded(const v1::ModelStatus& model, std::ostream& out) {
  out << "model '" << model.name() << "'"
      << (model.version().empty() ? "" : " version '" + model.version() + "'") << " "
      << ModelStateName(model.state()) << " on cores " << ReplicaCoresText(model) << " ("
      << model.replicas_size() << (model.replicas_size() == 1 ? " replica" : " replicas")
      << absl::StrFormat(", loaded in %.3f s)", model.load_seconds()) << "\n";
}

absl::Status RunLoad(const ParsedArgs& args, const CommandIo& io) {
  // FILE..., one or more (several only for a batched model's variants).
  if (args.positional().empty() || args.GetBool("repository")) {
    if (absl::Status status = ExpectPositional(args, {"FILE"}); !status.ok()) return status;
  }
  absl::StatusOr<OutputFormat> format = GetOutputFormat(args);
  if (!format.ok()) return format.status();
  const std::vector<std::string> files(args.positional().begin(), args.positional().end());
  const std::string& file = files.front();
  absl::StatusOr<std::vector<client::Client::VariantFile>> variants = VariantFiles(args, files);
  if (!variants.ok()) return variants.status();
  absl::StatusOr<v1::ModelConfig> config = ConfigFromFlags(args, file);
  if (!config.ok()) return config.status();
  absl::StatusOr<std::unique_ptr<client::Client>> client = ConnectFromFlags(args);
  if (!client.ok()) return client.status();

  absl::StatusOr<v1::LoadModelResponse> loaded;
  if (args.GetBool("repository")) {
    loaded = (*client)->LoadModelFromRepository(*config, file);
  } else {
    ProgressBar bar(io.err, io.err_is_terminal,
                    absl::StrCat("uploading ", std::filesystem::path(file).filename().string()),
                    "loading on the device");
    auto progress = [&bar](uint64_t sent, uint64_t total) { bar.Update(sent, total); };
    loaded = variants->empty() ? (*client)->LoadModelFromFile(*config, file, progress)
                               : (*client)->LoadVariantsFromFiles(*config, *variants, progress);
    // The summary line goes with JSON output too: it is on stderr, not in the document.
    bar.Finish(/*print_summary=*/loaded.ok() && !io.err_is_terminal);
  }
  if (!loaded.ok()) return loaded.status();
  if (*format == OutputFormat::kJson) return PrintProtoJson(*loaded, io.out);
  PrintLoaded(loaded->model(), io.out);
  return absl::OkStatus();
}

}  // namespace

const Subcommand& LoadCommand() {
  static const Subcommand command = {"load",           "upload a NEFF and load it onto NeuronCores",
                                     kLoadDescription, kLoadFlags,
                                     &RunLoad,         "FILE..."};
  return command;
}

}  // namespace neuronserve::neuronctl
