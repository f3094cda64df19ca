#include "core/serving/execution/responder.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

#include "base/thread_name.h"

namespace neuronserve {

Responder::Responder(size_t threads) {
  const size_t count = std::max<size_t>(1, threads);
  threads_.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    threads_.emplace_back([this, i] { Run(i); });
  }
}

Responder::~Responder() {
  {
    MutexLock lock(&mutex_);
    stopping_ = true;
  }
  wake_.NotifyAll();
  for (std::thread& thread : threads_) thread.join();
}

void Responder::Post(std::vector<Completion>& completions) {
  if (completions.empty()) return;
  bool wake = false;
  {
    MutexLock lock(&mutex_);
    // Wake a thread only when the pending list was empty and one sleeps: a thread that is
    // awake takes everything pending before it sleeps again.
    wake = pending_.empty() && sleeping_ > 0;
    if (pending_.empty()) {
      pending_.swap(completions);  // the caller gets the (empty) buffer the threads gave back
    } else {
      std::move(completions.begin(), completions.end(), std::back_inserter(pending_));
    }
  }
  completions.clear();
  if (wake) wake_.NotifyOne();
}

void Responder::Run(size_t index) {
  NameThisThread("responder-" + std::to_string(index));
  std::vector<Completion> batch;
  for (;;) {
    {
      MutexLock lock(&mutex_);
      ++sleeping_;
      wake_.Wait(&mutex_, [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
        return stopping_ || !pending_.empty();
      });
      --sleeping_;
      if (pending_.empty()) return;  // stopping, and everything was completed
      batch.swap(pending_);          // pending_ gets this thread's empty buffer back
    }
    for (Completion& completion : batch) completion.Run();
    batch.clear();
  }
}

}  // namespace neuronserve
