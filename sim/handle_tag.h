// A tag stamped into every object handed out through the C ABI. A wrong-type pointer (easy with
// nrt_tensor_set_t being void) or a handle already freed by a well-behaved caller is then
// answered with NRT_INVALID_HANDLE instead of undefined behaviour where the tag still tells.
#ifndef NEURON_SERVE_SIM_HANDLE_TAG_H_
#define NEURON_SERVE_SIM_HANDLE_TAG_H_

#include <cstdint>

namespace neuronserve::nrtsim {

template <uint64_t kMagic>
class HandleTag {
 public:
  HandleTag() = default;
  HandleTag(const HandleTag&) = delete;
  HandleTag& operator=(const HandleTag&) = delete;
  ~HandleTag() { magic_ = 0; }

  bool valid() const { return magic_ == kMagic; }

 private:
  volatile uint64_t magic_ = kMagic;  // volatile: the clearing store must not be elided
};

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_HANDLE_TAG_H_
