#include "sim/tensor.h"

#include <cstring>
#include <utility>

#include "sim/sim_counters.h"

namespace neuronserve::nrtsim {

std::unique_ptr<nrt_tensor> Tensor::Create(nrt_tensor_placement_t placement, size_t size,
                                           std::string name, std::optional<HbmReservation> hbm) {
  std::unique_ptr<nrt_tensor> tensor(
      new nrt_tensor(placement, size, std::move(name), std::move(hbm)));
  if (placement != NRT_TENSOR_PLACEMENT_VIRTUAL) {
    tensor->memory_.reset(static_cast<std::byte*>(std::calloc(size, 1)));
    if (tensor->memory_ == nullptr) return nullptr;
  }
  return tensor;
}

Tensor::Tensor(nrt_tensor_placement_t placement, size_t size, std::string name,
               std::optional<HbmReservation> hbm)
    : placement_(placement), size_(size), name_(std::move(name)), hbm_(std::move(hbm)) {
  Counters().live_tensors.fetch_add(1);
}

Tensor::~Tensor() { Counters().live_tensors.fetch_sub(1); }

bool Tensor::InRange(uint64_t offset, size_t count) const {
  return offset <= size_ && count <= size_ - offset;
}

NRT_STATUS Tensor::Read(void* buffer, size_t offset, size_t count) const {
  if (!CanCopy(buffer, offset, count)) return NRT_INVALID;
  std::memcpy(buffer, memory_.get() + offset, count);
  return NRT_SUCCESS;
}

NRT_STATUS Tensor::Write(const void* buffer, size_t offset, size_t count) {
  if (!CanCopy(buffer, offset, count)) return NRT_INVALID;
  std::memcpy(memory_.get() + offset, buffer, count);
  return NRT_SUCCESS;
}

NRT_STATUS Tensor::Fill(uint64_t offset, int value, size_t count) {
  if (memory_ == nullptr || !InRange(offset, count)) return NRT_INVALID;
  std::memset(memory_.get() + offset, value, count);
  return NRT_SUCCESS;
}

}  // namespace neuronserve::nrtsim
