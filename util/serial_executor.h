// SerialExecutor: one thread that runs submitted tasks in order.
//
// The daemon loads and unloads models on such a thread so that nrt_load (which can take
// seconds on hardware) never runs on a gRPC thread, and so that lifecycle changes happen one at a
// time, which keeps the lifecycle's reasoning simple.
#ifndef NEURON_SERVE_UTIL_SERIAL_EXECUTOR_H_
#define NEURON_SERVE_UTIL_SERIAL_EXECUTOR_H_

#include <deque>
#include <functional>
#include <thread>

#include "base/mutex.h"

namespace neuronserve {

class SerialExecutor {
 public:
  SerialExecutor();
  // Runs every task already submitted, then joins the thread.
  ~SerialExecutor();
  SerialExecutor(const SerialExecutor&) = delete;
  SerialExecutor& operator=(const SerialExecutor&) = delete;

  void Submit(std::function<void()> task);

 private:
  void Run();

  Mutex mutex_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  CondVar wake_;  // signalled on Submit and on stop
  std::thread thread_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_UTIL_SERIAL_EXECUTOR_H_
