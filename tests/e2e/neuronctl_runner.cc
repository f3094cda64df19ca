#include "tests/e2e/neuronctl_runner.h"

#include <utility>

#include "gtest/gtest.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {

ProcessResult Neuronctl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {NEURONCTL_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv);
}

ProcessResult NeuronctlAt(const std::string& address, std::vector<std::string> args) {
  args.push_back("--server=" + address);
  return Neuronctl(args);
}

nlohmann::json JsonOutput(const ProcessResult& result) {
  nlohmann::json json = nlohmann::json::parse(result.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(json.is_discarded()) << "not JSON: " << result.out << "\n" << result.err;
  return json;
}

}  // namespace neuronserve::testing
