#include "sim/abort_hook.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace neuronserve::nrtsim {

void AbortIfRequested() {
  const char* value = std::getenv("NRTSIM_ABORT_ON_EXECUTE");
  if (value == nullptr || *value == '\0') return;
  const std::string message =
      std::string("nrtsim: nrt_execute: aborting (NRTSIM_ABORT_ON_EXECUTE=") + value + ")";
  std::fwrite(message.data(), 1, message.size(), stderr);  // stderr is unbuffered
  std::abort();
}

}  // namespace neuronserve::nrtsim
