// Runs the real neuronctl binary from an end-to-end test: the four neuronctl test files share
// these (each used to carry its own copy). Stateless; safe from any thread.
#ifndef NEURON_SERVE_TESTS_E2E_NEURONCTL_RUNNER_H_
#define NEURON_SERVE_TESTS_E2E_NEURONCTL_RUNNER_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "tests/support/subprocess.h"

namespace neuronserve::testing {

// neuronctl with `args` as its command line; waits for it to exit.
ProcessResult Neuronctl(const std::vector<std::string>& args);

// neuronctl against `address`: the command's words first, then --server=`address`.
ProcessResult NeuronctlAt(const std::string& address, std::vector<std::string> args);

// The command's standard output parsed as JSON; a test failure (naming the output and the
// command's standard error) and a discarded value when it is not JSON.
nlohmann::json JsonOutput(const ProcessResult& result);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_E2E_NEURONCTL_RUNNER_H_
