// float32 element access for the kernels' fast paths (float32 and fp32r, both float32 bits):
// the tensor's bytes viewed in place as floats when they are aligned for float, which tensor
// memory always is in practice (calloc, operator new and std::vector<float> all align it), and a
// copy otherwise, so an odd caller is slower but still correct. Viewing in place keeps the hot
// path free of per-element conversion: the loops are the plain float loops the compiler
// vectorizes.
//
// The view reads the bytes as float objects; tensor memory obtained from calloc or new[] of bytes
// creates them implicitly (C++20 implicit object creation), as in sim/graph_executor.cc.
//
// Thread safety: a view belongs to one kernel call on one thread.
#ifndef NEURON_SERVE_SIM_COMPUTE_FLOAT32_VIEW_H_
#define NEURON_SERVE_SIM_COMPUTE_FLOAT32_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace neuronserve::nrtsim::compute {

inline bool IsFloatAligned(const std::byte* data) {
  return reinterpret_cast<uintptr_t>(data) % alignof(float) == 0;
}

// The floats stored in `bytes` (a multiple of 4 bytes).
class Float32Input {
 public:
  explicit Float32Input(std::span<const std::byte> bytes) {
    const size_t count = bytes.size() / sizeof(float);
    if (IsFloatAligned(bytes.data())) {
      values_ = std::span<const float>(reinterpret_cast<const float*>(bytes.data()), count);
    } else {
      copy_.resize(count);
      std::memcpy(copy_.data(), bytes.data(), count * sizeof(float));
      values_ = copy_;
    }
  }
  Float32Input(const Float32Input&) = delete;
  Float32Input& operator=(const Float32Input&) = delete;

  std::span<const float> values() const { return values_; }

 private:
  std::vector<float> copy_;
  std::span<const float> values_;
};

// Floats to be stored in `bytes`: write values(), then call Commit() once, which copies them into
// the bytes if they were not written in place.
class Float32Output {
 public:
  explicit Float32Output(std::span<std::byte> bytes) : bytes_(bytes) {
    const size_t count = bytes.size() / sizeof(float);
    if (IsFloatAligned(bytes.data())) {
      values_ = std::span<float>(reinterpret_cast<float*>(bytes.data()), count);
    } else {
      copy_.resize(count);
      values_ = copy_;
    }
  }
  Float32Output(const Float32Output&) = delete;
  Float32Output& operator=(const Float32Output&) = delete;

  std::span<float> values() { return values_; }

  void Commit() {
    if (!copy_.empty()) std::memcpy(bytes_.data(), copy_.data(), copy_.size() * sizeof(float));
  }

 private:
  std::span<std::byte> bytes_;
  std::vector<float> copy_;
  std::span<float> values_;
};

}  // namespace neuronserve::nrtsim::compute

#endif  // NEURON_SERVE_SIM_COMPUTE_FLOAT32_VIEW_H_
