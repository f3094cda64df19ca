#include "client/neuronctl/devices_command.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/neuronctl/connection_flags.h"
#include "client/neuronctl/model_status_text.h"
#include "client/neuronctl/positional_args.h"
#include "client/neuronctl/proto_json.h"
#include "client/neuronctl/text_table.h"

namespace neuronserve::neuronctl {
namespace {

constexpr auto kDevicesFlags = WithConnectionFlags(std::array<FlagSpec, 0>{});

constexpr absl::string_view kDevicesDescription =
    "Shows the Neuron runtime the daemon loaded, the instance type, and one row per NeuronCore\n"
    "the daemon may use: its architecture, device memory in use and in all (HBM), capability\n"
    "flags, health (UNHEALTHY once a hardware error took it out of rotation) and the models\n"
    "with a replica on it. --output=json prints the Enumerate response.";

// "CAPABILITY_FP8_E4M3" -> "fp8_e4m3".
std::string CapabilityText(int capability) {
  std::string name = v1::Capability_Name(static_cast<v1::Capability>(capability));
  if (absl::StartsWith(name, "CAPABILITY_")) name = name.substr(11);
  return absl::AsciiStrToLower(name);
}

void PrintDevices(const v1::EnumerateResponse& devices, std::ostream& out) {
  const v1::RuntimeInfo& runtime = devices.runtime();
  out << "Instance:  " << devices.instance().type();
  if (!devices.instance().arch_name().empty()) out << " (" << devices.instance().arch_name() << ")";
  out << "\nRuntime:   " << runtime.major() << "." << runtime.minor() << "." << runtime.patch()
      << "." << runtime.maintenance();
  if (!runtime.library().empty()) out << " (" << runtime.library() << ")";
  out << "\nCores:     " << devices.visible_cores() << " of " << devices.total_cores()
      << " visible\n\n";

  TextTable table({"CORE", "ARCH", "HBM USED", "HBM", "HEALTH", "MODELS", "FLAGS"});
  for (const v1::NeuronCore& core : devices.cores()) {
    std::vector<std::string> flags;
    for (int capability : core.capabilities()) flags.push_back(CapabilityText(capability));
    table.AddRow({absl::StrCat(core.index()), core.architecture(),
                  ByteSizeText(core.memory_used_bytes()), ByteSizeText(core.memory_bytes()),
                  core.healthy() ? "healthy" : "UNHEALTHY",
                  core.resident_models().empty() ? "-" : absl::StrJoin(core.resident_models(), ","),
                  flags.empty() ? "-" : absl::StrJoin(flags, ",")});
  }
  table.Render(out);
}

absl::Status RunDevices(const ParsedArgs& args, const CommandIo& io) {
  if (absl::Status status = ExpectPositional(args, {}); !status.ok()) return status;
  absl::StatusOr<OutputFormat> format = GetOutputFormat(args);
  if (!format.ok()) return format.status();
  absl::StatusOr<std::unique_ptr<client::Client>> client = ConnectFromFlags(args);
  if (!client.ok()) return client.status();
  absl::StatusOr<v1::EnumerateResponse> devices = (*client)->Enumerate();
  if (!devices.ok()) return devices.status();
  if (*format == OutputFormat::kJson) return PrintProtoJson(*devices, io.out);
  PrintDevices(*devices, io.out);
  return absl::OkStatus();
}

}  // namespace

const Subcommand& DevicesCommand() {
  static const Subcommand command = {"devices", "show the runtime, instance and NeuronCores",
                                     kDevicesDescription, kDevicesFlags, &RunDevices};
  return command;
}

}  // namespace neuronserve::neuronctl
