#include "client/neuronctl/unload_command.h"

#include "client/neuronctl/connection_flags.h"
#include "client/neuronctl/model_status_text.h"
#include "client/neuronctl/positional_args.h"
#include "client/neuronctl/proto_json.h"

namespace neuronserve::neuronctl {
namespace {

constexpr auto kUnloadFlags = WithConnectionFlags(std::array<FlagSpec, 0>{});

constexpr absl::string_view kUnloadDescription =
    "Unloads a model: the daemon stops giving it new requests at once, lets the requests it\n"
    "already holds finish (up to its --unload-timeout), then frees its cores and forgets it, so\n"
    "it does not come back after a restart. Answers once the model is gone. --output=json\n"
    "prints the UnloadModel response (the model as it was when the unload began).";

absl::Status RunUnload(const ParsedArgs& args, const CommandIo& io) {
  if (absl::Status status = ExpectPositional(args, {"NAME"}); !status.ok()) return status;
  absl::StatusOr<OutputFormat> format = GetOutputFormat(args);
  if (!format.ok()) return format.status();
  absl::StatusOr<std::unique_ptr<client::Client>> client = ConnectFromFlags(args);
  if (!client.ok()) return client.status();
  absl::StatusOr<v1::UnloadModelResponse> unloaded = (*client)->Unload(args.positional()[0]);
  if (!unloaded.ok()) return unloaded.status();
  if (*format == OutputFormat::kJson) return PrintProtoJson(*unloaded, io.out);
  const v1::ModelStatus& model = unloaded->model();
  io.out << "model '" << model.name() << "'"
         << (model.version().empty() ? "" : " version '" + model.version() + "'")
         << " unloaded from cores " << ReplicaCoresText(model) << "\n";
  return absl::OkStatus();
}

}  // namespace

const Subcommand& UnloadCommand() {
  static const Subcommand command = {"unload", "unload a model", kUnloadDescription, kUnloadFlags,
                                     &RunUnload, "NAME"};
  return command;
}

}  // namespace neuronserve::neuronctl
