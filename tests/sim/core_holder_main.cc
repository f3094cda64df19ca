// nrtsim_core_holder: the other process of the cross-process core tests (core_lock_test.cc).
//
//   nrtsim_core_holder <parent pid>
//
// Opens libnrtsim.so (NRTSIM_LIBRARY_PATH) with dlopen and calls nrt_init with the environment
// it inherited (NRTSIM_*, NEURON_RT_VISIBLE_CORES, NEURON_LOGICAL_NC_CONFIG and the test's
// NRTSIM_LOCK_DIR). On success it prints "ready" on stdout and holds its cores until it is
// killed; if nrt_init fails it prints "nrt_init failed: <status>" and exits with 1. The
// simulator's own lines go to stderr. It dies with its parent, so a crashed test leaves no
// holder behind.
#include <dlfcn.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/nrt_abi.h"
#include "tests/support/build_paths.h"

int main(int argc, char** argv) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // If the parent died before prctl, nothing would kill this process: give up at once.
  if (argc != 2 || std::to_string(getppid()) != argv[1]) {
    std::fprintf(stderr, "nrtsim_core_holder: usage: nrtsim_core_holder <parent pid>\n");
    return 2;
  }
  void* library = dlopen(NRTSIM_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "nrtsim_core_holder: %s\n", dlerror());
    return 2;
  }
  auto init = reinterpret_cast<decltype(&nrt_init)>(dlsym(library, "nrt_init"));
  if (init == nullptr) {
    std::fprintf(stderr, "nrtsim_core_holder: no nrt_init\n");
    return 2;
  }
  NRT_STATUS status = init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
  if (status != NRT_SUCCESS) {
    std::printf("nrt_init failed: %d\n", static_cast<int>(status));
    std::fflush(stdout);
    return 1;
  }
  std::printf("ready\n");
  std::fflush(stdout);
  while (true) pause();
}
