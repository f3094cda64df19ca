// The library's dynamic symbol table: the ABI under the real library's version tag, and none of
// the C++ internals (which would clash with the daemon's own copy of, e.g., the dtype tables).
#include <dlfcn.h>

#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace {

TEST(ExportsTest, AbiFunctionsCarryTheNrt200VersionTag) {
  void* library = Api().library;
  for (const char* name : {"nrt_init", "nrt_close", "nrt_load", "nrt_execute",
                           "nrt_get_vnc_memory_stats", "nrtsim_get_stats"}) {
    void* versioned = dlvsym(library, name, "NRT_2.0.0");
    EXPECT_NE(versioned, nullptr) << name;
    EXPECT_EQ(versioned, dlsym(library, name)) << name;
  }
}

TEST(ExportsTest, InternalsAreNotExported) {
  void* library = Api().library;
  EXPECT_EQ(dlsym(library,
                  "_ZN11neuronserve16DataTypeFromNameESt17basic_string_viewIcSt11char_"
                  "traitsIcEE"),
            nullptr);
  EXPECT_EQ(dlsym(library,
                  "_ZN11neuronserve6nrtsim7LogLineESt17basic_string_viewIcSt11char_"
                  "traitsIcEE"),
            nullptr);
}

}  // namespace
}  // namespace nrtsim_test
