#include "client/neuronctl/registered_tensor_region.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/lib/shared_memory_tensors.h"

namespace neuronserve::neuronctl {
namespace {

// Each tensor starts on a cache line: the device copies read and write whole lines.
constexpr uint64_t kAlignment = 64;

uint64_t AlignUp(uint64_t offset) { return (offset + kAlignment - 1) / kAlignment * kAlignment; }

struct OutputSize {
  std::string name;
  uint64_t bytes = 0;
};

// The bytes each wanted output needs: its byte_size, per row for a batched model.
absl::StatusOr<std::vector<OutputSize>> OutputSizes(const v1::ModelStatus& model,
                                                    const std::vector<client::NamedTensor>& inputs,
                                                    const std::vector<std::string>& wanted) {
  uint64_t rows = 1;
  if (model.max_batch_size() > 0 && !inputs.empty() && !inputs[0].shape.empty()) {
    rows = inputs[0].shape[0];
  }
  std::vector<OutputSize> sizes;
  for (const v1::TensorInfo& output : model.outputs()) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), output.name()) == wanted.end()) {
      continue;
    }
    sizes.push_back({output.name(), output.byte_size() * rows});
  }
  for (const std::string& name : wanted) {
    const bool known = std::any_of(sizes.begin(), sizes.end(),
                                   [&](const OutputSize& size) { return size.name == name; });
    if (!known) {
      std::string names;
      for (const v1::TensorInfo& output : model.outputs()) {
        absl::StrAppend(&names, names.empty() ? "" : ", ", output.name());
      }
      return absl::InvalidArgumentError(absl::StrCat("model '", model.name(), "' has no output '",
                                                     name, "'; its outputs: ", names));
    }
  }
  return sizes;
}

}  // namespace

absl::StatusOr<std::unique_ptr<RegisteredTensorRegion>> RegisteredTensorRegion::Create(
    client::Client& client, const v1::ModelStatus& model,
    const std::vector<client::NamedTensor>& inputs, const std::vector<std::string>& outputs,
    uint32_t output_slots, client::Protocol protocol, const std::string& key_prefix) {
  absl::StatusOr<std::vector<OutputSize>> sizes = OutputSizes(model, inputs, outputs);
  if (!sizes.ok()) return sizes.status();
  // Inputs first, then one area per slot holding every wanted output.
  std::vector<uint64_t> input_offsets;
  uint64_t end = 0;
  for (const client::NamedTensor& input : inputs) {
    input_offsets.push_back(end);
    end = AlignUp(end + client::RawByteSize(input));
  }
  uint64_t slot_bytes = 0;
  for (const OutputSize& size : *sizes) slot_bytes += AlignUp(size.bytes);
  const uint64_t outputs_start = end;
  end += slot_bytes * output_slots;

  absl::StatusOr<client::SharedMemoryObject> object = client::SharedMemoryObject::Create(
      client::SharedMemoryObject::UniqueKey(key_prefix), std::max<uint64_t>(end, 1));
  if (!object.ok()) return object.status();
  std::unique_ptr<RegisteredTensorRegion> region(
      new RegisteredTensorRegion(client, protocol, *std::move(object)));
  region->region_ = region->object_.key().substr(1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    absl::StatusOr<client::NamedTensor> placed = client::WriteSharedMemoryInput(
        inputs[i], region->object_.bytes(), region->region_, input_offsets[i]);
    if (!placed.ok()) return placed.status();
    region->inputs_.push_back(*std::move(placed));
  }
  region->slots_.resize(output_slots);
  for (uint32_t slot = 0; slot < output_slots; ++slot) {
    uint64_t offset = outputs_start + slot * slot_bytes;
    for (const OutputSize& size : *sizes) {
      region->slots_[slot][size.name] = {region->region_, offset, size.bytes};
      offset += AlignUp(size.bytes);
    }
  }
  absl::Status registered = client.RegisterSharedMemory(region->region_, region->object_.key(), 0,
                                                        region->object_.size(), protocol);
  if (absl::IsPermissionDenied(registered) || absl::IsNotFound(registered)) {
    // The daemon's own message says what it refused; these are the usual reasons why.
    return absl::Status(registered.code(),
                        absl::StrCat(registered.message(),
                                     " (--shared-memory needs the daemon to run as this user and "
                                     "share this /dev/shm; a daemon started with "
                                     "--shared-memory-key-prefix needs that prefix in "
                                     "--shared-memory-prefix)"));
  }
  if (!registered.ok()) return registered;
  region->registered_ = true;
  return region;
}

RegisteredTensorRegion::RegisteredTensorRegion(client::Client& client, client::Protocol protocol,
                                               client::SharedMemoryObject object)
    : client_(client), protocol_(protocol), object_(std::move(object)) {}

RegisteredTensorRegion::~RegisteredTensorRegion() {
  // Best effort: a daemon that has gone keeps nothing, and one that answers later still maps
  // the object only until it lets go of the region; the unlink below removes the name either way.
  if (registered_) client_.UnregisterSharedMemory(region_, protocol_).IgnoreError();
}

absl::Status RegisteredTensorRegion::ReadOutputs(client::InferResult& result) const {
  for (auto& [name, output] : result.outputs) {
    if (!output.shared_memory.has_value()) continue;
    if (absl::Status read = client::ReadSharedMemoryOutput(object_.bytes(), output); !read.ok()) {
      return absl::Status(read.code(), absl::StrCat("output '", name, "': ", read.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace neuronserve::neuronctl
