// `neuronctl infer` and `bench` with --shared-memory: one POSIX shared-memory object that holds
// a request's inputs (written once) and room for its outputs (one area per request in flight),
// registered with the daemon as one region for as long as this object lives, and unregistered
// and unlinked when it goes.
//
// Thread safety: immutable after Create, except what the daemon writes into output areas; any
// number of threads may call its const methods, each reading only its own output slot.
// Ownership: owns the object and its registration; borrows the Client, which must outlive it.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_REGISTERED_TENSOR_REGION_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_REGISTERED_TENSOR_REGION_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/lib/client.h"
#include "client/lib/infer_types.h"
#include "client/shared_memory/shared_memory_object.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve::neuronctl {

class RegisteredTensorRegion {
 public:
  // Lays out `inputs` and `output_slots` areas for the outputs named in `outputs` (all of the
  // model's when empty), each sized from the model's metadata (a batched model's per row, times
  // the rows of the first input), creates the object under key "/<key_prefix>-<pid>-<random>-<n>",
  // writes the inputs and registers the object under its key's name (without the '/') on
  // `protocol`'s API. A daemon that refuses (client shared memory off, a key prefix, a limit)
  // gets its own error back (which names the flag that is off), with the usual reasons when it
  // cannot open or may not use the key.
  static absl::StatusOr<std::unique_ptr<RegisteredTensorRegion>> Create(
      client::Client& client, const v1::ModelStatus& model,
      const std::vector<client::NamedTensor>& inputs, const std::vector<std::string>& outputs,
      uint32_t output_slots, client::Protocol protocol, const std::string& key_prefix);

  RegisteredTensorRegion(const RegisteredTensorRegion&) = delete;
  RegisteredTensorRegion& operator=(const RegisteredTensorRegion&) = delete;
  // Unregisters (best effort: a daemon that has gone holds nothing) and unlinks the object.
  ~RegisteredTensorRegion();

  // The inputs, naming their ranges of the region instead of carrying bytes.
  const std::vector<client::NamedTensor>& inputs() const { return inputs_; }
  // The output areas of request slot `slot` (< output_slots), by output name: what
  // InferOptions::output_shared_memory takes.
  const std::map<std::string, client::SharedMemorySpan>& outputs(uint32_t slot) const {
    return slots_[slot];
  }
  // Fills every output of `result` that went to shared memory from the mapping.
  absl::Status ReadOutputs(client::InferResult& result) const;

  const std::string& region() const { return region_; }
  // The object's size: the inputs and every slot's outputs.
  uint64_t size() const { return object_.size(); }

 private:
  RegisteredTensorRegion(client::Client& client, client::Protocol protocol,
                         client::SharedMemoryObject object);

  client::Client& client_;
  const client::Protocol protocol_;
  client::SharedMemoryObject object_;
  std::string region_;
  bool registered_ = false;
  std::vector<client::NamedTensor> inputs_;
  std::vector<std::map<std::string, client::SharedMemorySpan>> slots_;
};

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_REGISTERED_TENSOR_REGION_H_
