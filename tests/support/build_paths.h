// BuildPath: where this build's own programs, libraries and source folders are, for tests.
//
// CMake hands each path to a test as a compile definition that names it relative to the test
// executable's folder (neuron_serve_build_paths in cmake/BuildPaths.cmake), for example
//   NEURON_SERVE_PATH=::neuronserve::testing::BuildPath("../../server/neuron-serve")
// and never as an absolute path: a definition holding a path inside the clone makes every object
// of the target differ between two clones, so ccache could not reuse them when CI builds a fresh
// clone (.ci/run). The relative path is the same in every clone whose build folder sits in the
// same place inside it.
//
// Thread-safe. Header-only and dependency-free, so every test program can use it (the
// simulator's helper programs and the fuzz targets included).
#ifndef NEURON_SERVE_TESTS_SUPPORT_BUILD_PATHS_H_
#define NEURON_SERVE_TESTS_SUPPORT_BUILD_PATHS_H_

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>

namespace neuronserve::testing {

// The absolute, normalized path of `relative` taken from the folder of this process's
// executable. The string lives as long as the process (callers keep the pointer: dlopen, argv).
// Aborts with a message when the executable's own path cannot be read: no test can run then.
inline const char* BuildPath(const char* relative) {
  static std::mutex mutex;
  static std::map<std::string, std::string>* const resolved = new std::map<std::string, std::string>;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = resolved->try_emplace(relative);
  if (inserted) {
    std::error_code error;
    const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) {
      std::fprintf(stderr, "BuildPath: cannot read /proc/self/exe: %s\n", error.message().c_str());
      std::abort();
    }
    it->second = (executable.parent_path() / relative).lexically_normal().string();
  }
  return it->second.c_str();
}

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_BUILD_PATHS_H_
