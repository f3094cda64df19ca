// A private NRTSIM_LOCK_DIR for every test process that may reach nrt_init, directly or through
// a daemon it starts.
//
// Why: the simulator reserves cores across processes with lock files (sim/core_locks.h)
// in NRTSIM_LOCK_DIR, by default a per-user directory. Test processes run in parallel
// (ctest -j), and a developer may have a daemon of their own running: sharing the default
// directory would make them refuse each other's cores. So, before main, this creates a fresh
// directory (mkdtemp under $TMPDIR, else /tmp), sets NRTSIM_LOCK_DIR to it (children, such as
// the daemons of the end-to-end tests, inherit it) and removes it when the process exits.
//
// Linked as an object library (tests/sim_lock_dir/CMakeLists.txt), so the static initializer is
// always part of the executable. A helper that must share its parent's directory (the nrtsim
// tests' core holder) must not link it. Owns the directory; only the process that created it
// removes it (a forked child that exits does not).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

class PrivateLockDir {
 public:
  PrivateLockDir() : owner_(getpid()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string path =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/nrtsim-locks-XXXXXX";
    if (mkdtemp(path.data()) == nullptr) {
      std::perror(("private_lock_dir: mkdtemp " + path).c_str());
      std::abort();  // without it the test would share the developer's lock directory
    }
    path_ = path;
    if (setenv("NRTSIM_LOCK_DIR", path_.c_str(), /*overwrite=*/1) != 0) {
      std::perror("private_lock_dir: setenv NRTSIM_LOCK_DIR");
      std::abort();
    }
  }

  ~PrivateLockDir() {
    if (getpid() != owner_) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }

  PrivateLockDir(const PrivateLockDir&) = delete;
  PrivateLockDir& operator=(const PrivateLockDir&) = delete;

 private:
  const pid_t owner_;
  std::string path_;
};

const PrivateLockDir private_lock_dir;

}  // namespace
