// A tensor set: tensors bound to names. It refers to tensors it does not own (the caller keeps
// them alive for as long as the set uses them, as with the real runtime).
#ifndef NEURON_SERVE_SIM_TENSOR_SET_H_
#define NEURON_SERVE_SIM_TENSOR_SET_H_

#include <map>
#include <string>

#include "base/mutex.h"
#include "sim/handle_tag.h"
#include "sim/tensor.h"

namespace neuronserve::nrtsim {

class TensorSet {
 public:
  TensorSet();
  ~TensorSet();
  TensorSet(const TensorSet&) = delete;
  TensorSet& operator=(const TensorSet&) = delete;

  bool valid_handle() const { return tag_.valid(); }

  // Binds `name` to `tensor`, replacing an earlier binding of the same name.
  void Bind(const std::string& name, nrt_tensor* tensor);
  // nullptr if nothing is bound to `name`.
  nrt_tensor* Find(const std::string& name) const;

 private:
  HandleTag<0x6e727473696d5302> tag_;
  mutable Mutex mutex_;
  std::map<std::string, nrt_tensor*, std::less<>> tensors_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_TENSOR_SET_H_
