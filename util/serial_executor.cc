#include "util/serial_executor.h"

namespace neuronserve {

SerialExecutor::SerialExecutor() : thread_([this] { Run(); }) {}

SerialExecutor::~SerialExecutor() {
  {
    MutexLock lock(&mutex_);
    stopping_ = true;
    wake_.NotifyAll();
  }
  thread_.join();
}

void SerialExecutor::Submit(std::function<void()> task) {
  MutexLock lock(&mutex_);
  tasks_.push_back(std::move(task));
  wake_.NotifyAll();
}

void SerialExecutor::Run() {
  while (true) {
    std::function<void()> task;
    {
      MutexLock lock(&mutex_);
      wake_.Wait(&mutex_,
                 [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping, and nothing left to run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace neuronserve
