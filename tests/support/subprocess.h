// Runs a program to completion and captures its exit code and output, for tests that exercise
// the real neuronctl binary.
#ifndef NEURON_SERVE_TESTS_SUPPORT_SUBPROCESS_H_
#define NEURON_SERVE_TESTS_SUPPORT_SUBPROCESS_H_

#include <string>
#include <vector>

namespace neuronserve::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 if the process did not exit normally (signal, exec failure)
  std::string out;
  std::string err;
};

// argv[0] is the program's path. Output is captured through temporary files rather than pipes,
// so a chatty child cannot deadlock against a parent that only reads after it exits.
ProcessResult RunProcess(const std::vector<std::string>& argv);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_SUBPROCESS_H_
