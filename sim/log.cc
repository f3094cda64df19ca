#include "sim/log.h"

#include <cstdio>
#include <string>

namespace neuronserve::nrtsim {

void LogLine(std::string_view message) {
  std::string line = "nrtsim: ";
  line.append(message);
  line.push_back('\n');
  // stderr is unbuffered, so one fwrite is one write(2) and stays whole.
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace neuronserve::nrtsim
