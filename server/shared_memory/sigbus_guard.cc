#include "server/shared_memory/sigbus_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/mutex.h"

namespace neuronserve {
namespace {

// A guarded range. `begin` 0 means free. Written under the table's mutex (end before begin,
// begin released first), read by the handler with atomics only.
struct Slot {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> lost{false};
};

std::array<Slot, GuardedRange::kMaxRanges> g_slots;
std::atomic<uint64_t> g_repaired{0};
// Set once, before the handler is installed; read by the handler.
uintptr_t g_page_size = 0;
struct sigaction g_previous_action;

Mutex g_table_mutex;
bool g_installed ABSL_GUARDED_BY(g_table_mutex) = false;
std::array<bool, GuardedRange::kMaxRanges> g_taken ABSL_GUARDED_BY(g_table_mutex) = {};

// Only async-signal-safe calls below: atomics, mmap (a system call), sigaction.
void OnSigbus(int signal_number, siginfo_t* info, void* context) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (Slot& slot : g_slots) {
    const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    if (begin == 0 || address < begin) continue;
    const uintptr_t end = slot.end.load(std::memory_order_acquire);
    if (address >= end) continue;
    // Fresh zero pages from the faulting page to the range's end: the lost tail, and all
    // of it at once, so a long copy faults once rather than once per page.
    const uintptr_t page = address & ~(g_page_size - 1);
    const int saved_errno = errno;
    void* fresh = mmap(reinterpret_cast<void*>(page), end - page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    errno = saved_errno;
    if (fresh == MAP_FAILED) break;  // cannot repair: as if unguarded
    slot.lost.store(true, std::memory_order_release);
    g_repaired.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  // Not a guarded range's: what the process did before the guard.
  if ((g_previous_action.sa_flags & SA_SIGINFO) != 0 && g_previous_action.sa_sigaction != nullptr) {
    g_previous_action.sa_sigaction(signal_number, info, context);
    return;
  }
  if (g_previous_action.sa_handler != SIG_DFL && g_previous_action.sa_handler != SIG_IGN) {
    g_previous_action.sa_handler(signal_number);
    return;
  }
  // The default action: restored, the access runs again, faults again and the kernel ends the
  // process with SIGBUS as it would have without the guard (ignoring a fault would loop).
  struct sigaction default_action;
  std::memset(&default_action, 0, sizeof(default_action));
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(SIGBUS, &default_action, nullptr);
}

absl::Status InstallLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_table_mutex) {
  if (g_installed) return absl::OkStatus();
  g_page_size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_sigaction = OnSigbus;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGBUS, &action, &g_previous_action) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot install the SIGBUS handler of shared memory: ", strerror(errno)));
  }
  g_installed = true;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GuardedRange> GuardedRange::Guard(void* begin, size_t length) {
  MutexLock lock(&g_table_mutex);
  if (absl::Status installed = InstallLocked(); !installed.ok()) return installed;
  for (size_t i = 0; i < kMaxRanges; ++i) {
    if (g_taken[i]) continue;
    g_taken[i] = true;
    Slot& slot = g_slots[i];
    const uintptr_t start = reinterpret_cast<uintptr_t>(begin);
    slot.lost.store(false, std::memory_order_relaxed);
    slot.end.store(start + length, std::memory_order_release);
    slot.begin.store(start, std::memory_order_release);
    return GuardedRange(i);
  }
  return absl::ResourceExhaustedError(
      absl::StrCat("no more than ", kMaxRanges, " shared memory regions can be mapped at once"));
}

GuardedRange& GuardedRange::operator=(GuardedRange&& other) noexcept {
  if (this != &other) {
    Release();
    slot_ = other.slot_;
    other.slot_ = kNoSlot;
  }
  return *this;
}

bool GuardedRange::lost() const {
  return slot_ != kNoSlot && g_slots[slot_].lost.load(std::memory_order_acquire);
}

uint64_t GuardedRange::RepairedFaults() { return g_repaired.load(std::memory_order_relaxed); }

void GuardedRange::Release() {
  if (slot_ == kNoSlot) return;
  Slot& slot = g_slots[slot_];
  slot.begin.store(0, std::memory_order_release);
  slot.end.store(0, std::memory_order_release);
  MutexLock lock(&g_table_mutex);
  g_taken[slot_] = false;
  slot_ = kNoSlot;
}

}  // namespace neuronserve
