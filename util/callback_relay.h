// CallbackRelay: a callback that can be unplugged safely while other threads may be calling it.
//
// The registry and the workers announce "state changed" through one; the daemon plugs the
// health monitor in after it exists and unplugs it before the monitor goes, and Unplug waits
// for a call in progress, so no call can reach a destroyed monitor. Calls are serialized.
#ifndef NEURON_SERVE_UTIL_CALLBACK_RELAY_H_
#define NEURON_SERVE_UTIL_CALLBACK_RELAY_H_

#include <functional>
#include <utility>

#include "base/mutex.h"

namespace neuronserve {

class CallbackRelay {
 public:
  void Plug(std::function<void()> target) {
    MutexLock lock(&mutex_);
    target_ = std::move(target);
  }
  // Returns once no call is running; later calls do nothing.
  void Unplug() {
    MutexLock lock(&mutex_);
    target_ = nullptr;
  }
  // Calls the target, if plugged. The caller must hold no lock the target takes.
  void Notify() {
    MutexLock lock(&mutex_);
    if (target_) target_();
  }

 private:
  Mutex mutex_;
  std::function<void()> target_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_UTIL_CALLBACK_RELAY_H_
