// Exclusive ownership of physical NeuronCores across processes, as the real runtime reserves
// its cores at nrt_init: a core belongs to one process at a time.
//
// One lock file per physical core, "<dir>/nc<N>.lock", locked with flock(LOCK_EX | LOCK_NB) on a
// descriptor opened with O_CLOEXEC. The kernel drops the lock when the descriptor is closed,
// which happens when the holder calls nrt_close or when it dies in any way (even SIGKILL), so a
// lock is never stale; the files themselves stay (removing one could let two processes lock
// different files of the same name). After locking, the holder writes its pid into the file so
// that a refused process can name it. The directory is created (mode 0700) if missing; its
// parent must exist.
//
// CoreLocks is the set of locks one nrt_init took. Not thread-safe (the runtime state's mutex
// guards it); move-only; destroying it releases the locks.
#ifndef NEURON_SERVE_SIM_CORE_LOCKS_H_
#define NEURON_SERVE_SIM_CORE_LOCKS_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace neuronserve::nrtsim {

// A physical core that another live process holds.
struct BusyCore {
  uint32_t physical_core = 0;
  pid_t holder = 0;  // 0 if the holder had not written its pid yet
};

class CoreLocks;

struct CoreLockResult {
  std::unique_ptr<CoreLocks> locks;  // set on success
  std::vector<BusyCore> busy;        // on refusal: every requested core held elsewhere
  std::string error;                 // on a system error (e.g. an unusable directory)
};

class CoreLocks {
 public:
  // Locks every core of `physical_cores`, all or nothing: if any is busy or an error occurs,
  // the locks taken so far are released and `locks` is null.
  static CoreLockResult Acquire(const std::string& directory,
                                const std::vector<uint32_t>& physical_cores);

  ~CoreLocks();  // closes the descriptors: the kernel releases the locks
  CoreLocks(const CoreLocks&) = delete;
  CoreLocks& operator=(const CoreLocks&) = delete;

 private:
  CoreLocks() = default;
  std::vector<int> fds_;
};

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_CORE_LOCKS_H_
