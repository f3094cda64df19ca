#include "core/serving/execution/unit_copies.h"

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "core/nrt/nrt_status.h"

namespace neuronserve {
namespace {

size_t BatchRows(const ReplicaVariant& variant) {
  return variant.batch_size == 0 ? 1 : variant.batch_size;
}

}  // namespace

absl::Status WriteUnitInputs(const ExecutionUnit& unit, const ServedModel& model,
                             const ModelReplica& replica, const ReplicaVariant& variant,
                             ReplicaTensors& tensors, std::vector<uint8_t>& zeros) {
  const size_t batch = BatchRows(variant);
  const std::vector<TensorSpec>& inputs = model.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    NrtTensor& tensor = tensors.inputs[i];
    const size_t tensor_bytes = tensors.input_bytes[i];
    const size_t row_bytes = tensor_bytes / batch;
    size_t offset = 0;
    absl::Status written;
    for (const JobRows& part : unit.parts) {
      const absl::Span<const uint8_t> rows =
          part.job->Input(i).subspan(part.first_row * row_bytes, part.rows * row_bytes);
      written = tensor.Write(rows, offset);
      if (!written.ok()) break;
      offset += rows.size();
    }
    if (written.ok() && offset < tensor_bytes) {
      if (zeros.size() < tensor_bytes - offset) zeros.resize(tensor_bytes - offset);
      written = tensor.Write(absl::MakeConstSpan(zeros.data(), tensor_bytes - offset), offset);
    }
    if (!written.ok()) {
      return WithContext(written, absl::StrCat("model '", model.name(), "' input '",
                                               inputs[i].name, "' on ",
                                               NameCoreRange(replica.cores)));
    }
  }
  return absl::OkStatus();
}

absl::Status ReadUnitOutputs(const ExecutionUnit& unit, const ServedModel& model,
                             const ModelReplica& replica, const ReplicaVariant& variant,
                             const ReplicaTensors& tensors) {
  const size_t batch = BatchRows(variant);
  const std::vector<TensorSpec>& outputs = model.outputs();
  for (size_t j = 0; j < outputs.size(); ++j) {
    const size_t row_bytes = tensors.output_bytes[j] / batch;
    size_t offset = 0;
    for (const JobRows& part : unit.parts) {
      const size_t bytes = part.rows * row_bytes;
      const absl::Span<uint8_t> destination = OutputOf(part, j);
      if (!destination.empty()) {
        absl::Status read =
            tensors.outputs[j].Read(destination.subspan(part.first_row * row_bytes, bytes), offset);
        if (!read.ok()) {
          return WithContext(read, absl::StrCat("model '", model.name(), "' output '",
                                                outputs[j].name, "' on ",
                                                NameCoreRange(replica.cores)));
        }
      }
      offset += bytes;
    }
  }
  return absl::OkStatus();
}

void RecentCopyTimes::Observe(absl::Duration took) {
  const size_t slot = next_.fetch_add(1, std::memory_order_relaxed) % kSamples;
  ns_[slot].store(absl::ToInt64Nanoseconds(took), std::memory_order_relaxed);
}

bool RecentCopyTimes::AllAtLeast(int64_t threshold_ns) const {
  for (const std::atomic<int64_t>& sample : ns_) {
    if (sample.load(std::memory_order_relaxed) < threshold_ns) return false;
  }
  return true;
}

}  // namespace neuronserve
