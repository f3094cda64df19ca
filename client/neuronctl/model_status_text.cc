#include "client/neuronctl/model_status_text.h"

#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/shape.h"
#include "absl/time/time.h"
#include "client/neuronctl/text_table.h"

namespace neuronserve::neuronctl {
namespace {

std::string CoresOf(const v1::ModelReplica& replica) {
  if (replica.cores_size() == 0) return "-";
  if (replica.cores_size() == 1) return absl::StrCat(replica.cores(0));
  return absl::StrCat(replica.cores(0), "-", replica.cores(replica.cores_size() - 1));
}

std::string VersionText(const std::string& version) { return version.empty() ? "-" : version; }

void PrintTensors(absl::string_view heading,
                  const google::protobuf::RepeatedPtrField<v1::TensorInfo>& tensors,
                  std::ostream& out) {
  out << heading << ":\n";
  if (tensors.empty()) out << "  (none)\n";
  for (const v1::TensorInfo& tensor : tensors) {
    out << "  " << tensor.name() << "  " << tensor.dtype() << " " << ShapeText(tensor.shape())
        << "  " << ByteSizeText(tensor.byte_size()) << "\n";
  }
}

}  // namespace

std::string ModelStateName(v1::ModelState state) {
  switch (state) {
    case v1::MODEL_STATE_LOADING:
      return "LOADING";
    case v1::MODEL_STATE_READY:
      return "READY";
    case v1::MODEL_STATE_UNLOADING:
      return "UNLOADING";
    case v1::MODEL_STATE_FAILED:
      return "FAILED";
    default:
      break;
  }
  return absl::StrCat("UNKNOWN(", static_cast<int>(state), ")");
}

std::string ShapeText(const google::protobuf::RepeatedField<uint32_t>& shape) {
  return ShapeToString({shape.data(), static_cast<size_t>(shape.size())});
}

std::string ReplicaCoresText(const v1::ModelStatus& model) {
  std::vector<std::string> cores;
  for (const v1::ModelReplica& replica : model.replicas()) cores.push_back(CoresOf(replica));
  return cores.empty() ? "-" : absl::StrJoin(cores, ", ");
}

std::string ByteSizeText(uint64_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return absl::StrCat(bytes, " B");
  return absl::StrFormat("%.1f %s", value, kUnits[unit]);
}

void PrintModelsTable(const std::vector<v1::ModelStatus>& models, std::ostream& out) {
  if (models.empty()) {
    out << "no models loaded\n";
    return;
  }
  TextTable table({"NAME", "VERSION", "STATE", "REPLICAS", "CORES", "REQUESTS OK/FAILED",
                   "SOURCE"});
  for (const v1::ModelStatus& model : models) {
    table.AddRow({model.name(), VersionText(model.version()), ModelStateName(model.state()),
                  absl::StrCat(model.replicas_size()), ReplicaCoresText(model),
                  absl::StrCat(model.requests().succeeded(), "/", model.requests().failed()),
                  model.source().empty() ? "-" : model.source()});
  }
  table.Render(out);
}

void PrintModelDetails(const v1::ModelStatus& model, std::ostream& out) {
  out << "Name:      " << model.name() << "\n"
      << "Version:   " << VersionText(model.version()) << "\n"
      << "State:     " << ModelStateName(model.state()) << "\n";
  if (!model.error().empty()) out << "Error:     " << model.error() << "\n";
  if (!model.source().empty()) out << "Source:    " << model.source() << "\n";
  if (model.ready_at_unix_ms() > 0) {
    out << "Ready at:  "
        << absl::FormatTime("%Y-%m-%d %H:%M:%E3S %Z", absl::FromUnixMillis(model.ready_at_unix_ms()),
                            absl::UTCTimeZone())
        << absl::StrFormat(" (loaded in %.3f s)", model.load_seconds()) << "\n";
  }
  out << "Requests:  " << model.requests().succeeded() << " succeeded, "
      << model.requests().failed() << " failed\n";
  if (model.max_batch_size() > 0) {
    // The tensors below are one row each; the leading dimension is the request's rows.
    out << "Batching:  1 to " << model.max_batch_size()
        << " rows per request (shape[0] below is one row); variants of batch "
        << absl::StrJoin(model.batch_variants(), ", ") << "\n";
  }
  PrintTensors("Inputs", model.inputs(), out);
  PrintTensors("Outputs", model.outputs(), out);
  out << "Replicas:\n";
  if (model.replicas().empty()) out << "  (none)\n";
  for (const v1::ModelReplica& replica : model.replicas()) {
    out << "  cores " << CoresOf(replica) << "  " << (replica.healthy() ? "healthy" : "UNHEALTHY")
        << "  " << replica.executions() << " executions";
    // 0: a daemon from before pipelining, which does not say.
    if (replica.tensor_sets() > 0) {
      out << "  " << replica.tensor_sets()
          << (replica.tensor_sets() == 1 ? " tensor set, " : " tensor sets, ")
          << ByteSizeText(replica.tensor_bytes());
    }
    out << "\n";
  }
}

}  // namespace neuronserve::neuronctl
