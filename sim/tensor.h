// A tensor handed out by nrt_tensor_allocate: DEVICE (host memory standing in for HBM, charged to
// a core), HOST (plain host memory) or VIRTUAL (a size without memory).
#ifndef NEURON_SERVE_SIM_TENSOR_H_
#define NEURON_SERVE_SIM_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "base/nrt_abi.h"
#include "sim/device_core.h"
#include "sim/handle_tag.h"

namespace neuronserve::nrtsim {

class Tensor {
 public:
  // Placement and size are validated by the caller; `hbm` is set for DEVICE tensors only.
  // Returns nullptr if the host memory cannot be had. (The constructor alone makes a tensor
  // without memory.)
  static std::unique_ptr<nrt_tensor> Create(nrt_tensor_placement_t placement, size_t size,
                                            std::string name, std::optional<HbmReservation> hbm);
  Tensor(nrt_tensor_placement_t placement, size_t size, std::string name,
         std::optional<HbmReservation> hbm);
  ~Tensor();

  bool valid_handle() const { return tag_.valid(); }
  nrt_tensor_placement_t placement() const { return placement_; }
  size_t size() const { return size_; }
  const std::string& name() const { return name_; }
  // The core a DEVICE tensor lives on; nullptr for HOST and VIRTUAL.
  const DeviceCore* core() const { return hbm_ ? hbm_->core().get() : nullptr; }

  // Whether Read or Write of `count` bytes at `offset` with `buffer` would be valid: not for a
  // VIRTUAL tensor, a null buffer or a range past the end.
  bool CanCopy(const void* buffer, uint64_t offset, size_t count) const {
    return buffer != nullptr && memory_ != nullptr && InRange(offset, count);
  }
  // Bounds-checked byte access (CanCopy), else NRT_INVALID.
  NRT_STATUS Read(void* buffer, size_t offset, size_t count) const;
  NRT_STATUS Write(const void* buffer, size_t offset, size_t count);
  NRT_STATUS Fill(uint64_t offset, int value, size_t count);

  // The whole tensor, for execution; empty for VIRTUAL.
  std::byte* data() { return memory_.get(); }
  const std::byte* data() const { return memory_.get(); }

 private:
  struct FreeDeleter {
    void operator()(std::byte* p) const { std::free(p); }
  };

  // True if [offset, offset + count) lies inside the tensor's memory (overflow-safe).
  bool InRange(uint64_t offset, size_t count) const;

  HandleTag<0x6e727473696d5401> tag_;
  const nrt_tensor_placement_t placement_;
  const size_t size_;
  const std::string name_;
  std::optional<HbmReservation> hbm_;
  // calloc'd: zeroed, and the kernel maps the pages only when touched, so a large tensor that a
  // test never writes costs no resident memory.
  std::unique_ptr<std::byte, FreeDeleter> memory_;
};

}  // namespace neuronserve::nrtsim

// The opaque handle of the C ABI is the tensor itself.
struct nrt_tensor final : neuronserve::nrtsim::Tensor {
  using Tensor::Tensor;
};

#endif  // NEURON_SERVE_SIM_TENSOR_H_
