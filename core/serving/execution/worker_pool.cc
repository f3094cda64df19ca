#include "core/serving/execution/worker_pool.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace neuronserve {

WorkerPool::WorkerPool(uint32_t core_count, CallbackRelay* on_unhealthy, ServingMetrics* metrics,
                       size_t responder_threads)
    : core_count_(core_count),
      on_unhealthy_(on_unhealthy),
      metrics_(metrics),
      healthy_(new std::atomic<bool>[core_count]),
      responder_(responder_threads != 0 ? responder_threads : (core_count + 3) / 4) {
  for (uint32_t core = 0; core < core_count; ++core) healthy_[core].store(true);
  MutexLock lock(&mutex_);
  workers_.resize(core_count);
}

WorkerPool::~WorkerPool() {
  std::vector<std::unique_ptr<CoreWorker>> workers;
  {
    MutexLock lock(&mutex_);
    workers.swap(workers_);
  }
  workers.clear();  // joins each thread
}

CoreWorker* WorkerPool::WorkerFor(uint32_t core) {
  MutexLock lock(&mutex_);
  std::unique_ptr<CoreWorker>& worker = workers_.at(core);
  if (worker == nullptr) worker = std::make_unique<CoreWorker>(core, this);
  return worker.get();
}

void WorkerPool::Attach(ServedModel& model) {
  for (const auto& replica : model.replicas()) {
    bool on_unhealthy_core = false;
    for (uint32_t core = replica->cores.start;
         core < replica->cores.start + replica->cores.count; ++core) {
      on_unhealthy_core = on_unhealthy_core || !CoreHealthy(core);
    }
    if (on_unhealthy_core && replica->healthy.exchange(false)) {
      // Not yet attached, so nothing waits in the queue: at most it closes.
      model.scheduler()->ReplicaLost("its cores failed earlier with a hardware error");
    }
    WorkerFor(replica->cores.start)->Attach(&model, replica.get());
  }
}

void WorkerPool::Detach(const ServedModel& model) {
  for (const auto& replica : model.replicas()) {
    WorkerFor(replica->cores.start)->Detach(&model);
  }
}

void WorkerPool::MarkCoresUnhealthy(const CoreRange& cores, const std::string& why) {
  for (uint32_t core = cores.start; core < cores.start + cores.count && core < core_count_;
       ++core) {
    healthy_[core].store(false, std::memory_order_release);
  }
  // Jobs that can no longer run anywhere; answered once no lock is held.
  std::vector<JobRows> stranded;
  {
    MutexLock lock(&mutex_);
    for (const std::unique_ptr<CoreWorker>& worker : workers_) {
      if (worker == nullptr) continue;
      worker->ForEachBinding([&](ServedModel& model, ModelReplica& replica) {
        const bool overlaps = replica.cores.start < cores.start + cores.count &&
                              cores.start < replica.cores.start + replica.cores.count;
        if (!overlaps || !replica.healthy.exchange(false)) return;
        for (const JobRows& rows : model.scheduler()->ReplicaLost(why)) {
          stranded.push_back(rows);
        }
      });
    }
  }
  for (const JobRows& rows : stranded) {
    // The job's owner counts the outcome (core/serving/model/request_outcome.h).
    AnswerRows(rows,
               absl::UnavailableError(
                   absl::StrCat("no healthy replica left to run the request: ", why)),
               ExecutionTiming{absl::Now() - rows.job->enqueued_at, absl::ZeroDuration()});
  }
  if (on_unhealthy_ != nullptr) on_unhealthy_->Notify();
}

std::optional<RunningExecution> WorkerPool::LongestExecution() const {
  std::optional<RunningExecution> longest;
  const absl::Time now = absl::Now();
  MutexLock lock(&mutex_);
  for (const std::unique_ptr<CoreWorker>& worker : workers_) {
    if (worker == nullptr) continue;
    const std::optional<absl::Time> since = worker->executing_since();
    if (!since.has_value()) continue;
    const absl::Duration running_for = now - *since;
    if (!longest.has_value() || running_for > longest->running_for) {
      longest = RunningExecution{worker->core(), running_for};
    }
  }
  return longest;
}

std::vector<bool> WorkerPool::ExecutingByCore() const {
  std::vector<bool> executing(core_count_, false);
  MutexLock lock(&mutex_);
  for (uint32_t core = 0; core < workers_.size(); ++core) {
    executing[core] = workers_[core] != nullptr && workers_[core]->executing_since().has_value();
  }
  return executing;
}

bool WorkerPool::CoreHealthy(uint32_t core) const {
  return core < core_count_ && healthy_[core].load(std::memory_order_acquire);
}

std::vector<uint32_t> WorkerPool::UnhealthyCores() const {
  std::vector<uint32_t> cores;
  for (uint32_t core = 0; core < core_count_; ++core) {
    if (!healthy_[core].load(std::memory_order_acquire)) cores.push_back(core);
  }
  return cores;
}

}  // namespace neuronserve
