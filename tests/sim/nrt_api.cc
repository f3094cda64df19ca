#include "tests/sim/nrt_api.h"
#include "tests/support/build_paths.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace nrtsim_test {
namespace {

[[noreturn]] void Die(const char* what, const char* detail) {
  std::fprintf(stderr, "nrtsim test: %s: %s\n", what, detail);
  std::abort();
}

NrtApi Open() {
  NrtApi api;
  // RTLD_LOCAL, as the daemon opens it: nothing of the library leaks into the global scope.
  api.library = dlopen(NRTSIM_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
  if (api.library == nullptr) Die((std::string("dlopen ") + NRTSIM_LIBRARY_PATH).c_str(), dlerror());
#define NRTSIM_TEST_RESOLVE(name)                                             \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(api.library, #name)); \
  if (api.name == nullptr) Die("dlsym " #name, dlerror());
  NRTSIM_TEST_FOR_EACH_FUNCTION(NRTSIM_TEST_RESOLVE)
#undef NRTSIM_TEST_RESOLVE
  return api;
}

}  // namespace

const NrtApi& Api() {
  static const NrtApi api = Open();
  return api;
}

}  // namespace nrtsim_test
