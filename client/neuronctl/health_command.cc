#include "client/neuronctl/health_command.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/neuronctl/connection_flags.h"
#include "client/neuronctl/flag_values.h"
#include "client/neuronctl/positional_args.h"
#include "client/neuronctl/usage_error.h"
#include "nlohmann/json.hpp"

namespace neuronserve::neuronctl {
namespace {

using client::HealthStatus;

constexpr auto kHealthFlags = WithConnectionFlags(std::to_array<FlagSpec>({
    {"wait", FlagType::kValue, "DURATION", "",
     "keep asking until SERVING or this much time has passed"},
}));

constexpr absl::string_view kHealthDescription =
    "Asks the daemon's gRPC health service (grpc.health.v1 Check) about SERVICE and prints its\n"
    "status. SERVICE \"\" (the default) is the daemon as a whole: SERVING once its runtime is\n"
    "up and its startup models are loaded, NOT_SERVING while draining. \"neuronserve/liveness\"\n"
    "is the watchdog (not SERVING while a core is stuck in one execution); a model's name is\n"
    "that model (SERVING while it is READY with a healthy replica).\n"
    "\n"
    "Exit code 0 only when the service is SERVING, 3 when the server answered otherwise (or does\n"
    "not know the service), 1 when it could not be asked: usable as an exec probe.\n"
    "\n"
    "Example:\n"
    "  neuronctl health --server=127.0.0.1:8001 mlp --wait=30s";

constexpr absl::Duration kPollInterval = absl::Milliseconds(200);

struct Answer {
  std::string status;  // SERVING, NOT_SERVING, ..., or SERVICE_UNKNOWN for NOT_FOUND
  absl::Status error;  // why it could not be asked, when `status` is empty
};

Answer Ask(client::Client& client, const std::string& service) {
  absl::StatusOr<HealthStatus> status = client.CheckHealth(service);
  if (status.ok()) return {std::string(client::HealthStatusName(*status)), absl::OkStatus()};
  // The health service answers NOT_FOUND for a service it does not know; for a probe that is a
  // reply (not serving), not a failure to reach the server.
  if (absl::IsNotFound(status.status())) return {"SERVICE_UNKNOWN", absl::OkStatus()};
  return {"", status.status()};
}

absl::Status RunHealth(const ParsedArgs& args, const CommandIo& io) {
  if (absl::Status status = ExpectPositional(args, {}, {"SERVICE"}); !status.ok()) return status;
  absl::StatusOr<OutputFormat> format = GetOutputFormat(args);
  if (!format.ok()) return format.status();
  absl::Duration wait = absl::ZeroDuration();
  if (args.Has("wait")) {
    absl::StatusOr<absl::Duration> given = GetDurationFlag(args, "wait");
    if (!given.ok()) return given.status();
    wait = *given;
  }
  const std::string service = args.positional().empty() ? "" : args.positional()[0];
  absl::StatusOr<std::unique_ptr<client::Client>> client = ConnectFromFlags(args);
  if (!client.ok()) return client.status();

  const absl::Time give_up = absl::Now() + wait;
  Answer answer = Ask(**client, service);
  while (answer.status != "SERVING" && absl::Now() + kPollInterval < give_up) {
    absl::SleepFor(kPollInterval);
    answer = Ask(**client, service);
  }
  if (!answer.error.ok()) return answer.error;

  if (*format == OutputFormat::kJson) {
    io.out << nlohmann::json{{"service", service}, {"status", answer.status}}.dump(2) << "\n";
  } else {
    io.out << answer.status << "\n";
  }
  if (answer.status == "SERVING") return absl::OkStatus();
  const std::string subject = service.empty() ? "the daemon" : absl::StrCat("service '", service, "'");
  return WithExitCode(
      absl::UnavailableError(answer.status == "SERVICE_UNKNOWN"
                                 ? absl::StrCat(subject, " is unknown to ", (*client)->target())
                                 : absl::StrCat(subject, " is ", answer.status, " at ",
                                                (*client)->target())),
      kExitNotServing);
}

}  // namespace

const Subcommand& HealthCommand() {
  static const Subcommand command = {"health", "check health; exit 0 only when SERVING",
                                     kHealthDescription, kHealthFlags, &RunHealth, "[SERVICE]"};
  return command;
}

}  // namespace neuronserve::neuronctl
