#include "core/serving/responder.h"

#include <pthread.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

namespace neuronserve {

Responder::Responder(size_t threads) {
  threads_.reserve(std::max<size_t>(1, threads));
  for (size_t i = 0; i < std::max<size_t>(1, threads); ++i) {
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
  pthread_setname_np(pthread_self(), ("responder-" + std::to_string(index)).substr(0, 15).c_str());
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
