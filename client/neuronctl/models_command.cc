#include "client/neuronctl/models_command.h"

#include <vector>

#include "client/neuronctl/connection_flags.h"
#include "client/neuronctl/model_status_text.h"
#include "client/neuronctl/positional_args.h"
#include "client/neuronctl/proto_json.h"

namespace neuronserve::neuronctl {
namespace {

constexpr auto kModelsFlags = WithConnectionFlags(std::array<FlagSpec, 0>{});

constexpr absl::string_view kModelsDescription =
    "Lists the models the daemon holds, loaded or failed: name, version, state, replicas and\n"
    "their cores, requests answered, and where the model came from (upload, repository, state).\n"
    "--output=json prints the ListModels response.";

constexpr absl::string_view kModelDescription =
    "Shows one model: state (and the error of a FAILED one), when it became ready and how long\n"
    "loading took, its input and output tensors, each replica's cores, health and executions,\n"
    "and its request counters. --output=json prints the ModelStatus message.";

absl::Status RunModels(const ParsedArgs& args, const CommandIo& io) {
  if (absl::Status status = ExpectPositional(args, {}); !status.ok()) return status;
  absl::StatusOr<OutputFormat> format = GetOutputFormat(args);
  if (!format.ok()) return format.status();
  absl::StatusOr<std::unique_ptr<client::Client>> client = ConnectFromFlags(args);
  if (!client.ok()) return client.status();
  absl::StatusOr<std::vector<v1::ModelStatus>> models = (*client)->ListModels();
  if (!models.ok()) return models.status();
  if (*format == OutputFormat::kJson) {
    v1::ListModelsResponse response;
    for (v1::ModelStatus& model : *models) *response.add_models() = std::move(model);
    return PrintProtoJson(response, io.out);
  }
  PrintModelsTable(*models, io.out);
  return absl::OkStatus();
}

absl::Status RunModel(const ParsedArgs& args, const CommandIo& io) {
  if (absl::Status status = ExpectPositional(args, {"NAME"}); !status.ok()) return status;
  absl::StatusOr<OutputFormat> format = GetOutputFormat(args);
  if (!format.ok()) return format.status();
  absl::StatusOr<std::unique_ptr<client::Client>> client = ConnectFromFlags(args);
  if (!client.ok()) return client.status();
  absl::StatusOr<v1::ModelStatus> model = (*client)->GetModel(args.positional()[0]);
  if (!model.ok()) return model.status();
  if (*format == OutputFormat::kJson) return PrintProtoJson(*model, io.out);
  PrintModelDetails(*model, io.out);
  return absl::OkStatus();
}

}  // namespace

const Subcommand& ModelsCommand() {
  static const Subcommand command = {"models", "list the models the daemon holds",
                                     kModelsDescription, kModelsFlags, &RunModels};
  return command;
}

const Subcommand& ModelCommand() {
  static const Subcommand command = {"model", "show one model in detail", kModelDescription,
                                     kModelsFlags, &RunModel, "NAME"};
  return command;
}

}  // namespace neuronserve::neuronctl
