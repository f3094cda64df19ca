// DaemonProcess: the real neuron-serve binary of this build (NEURON_SERVE_PATH) started as a
// child process for end-to-end tests, with its stderr collected (tests/support/child_process.h).
#ifndef NEURON_SERVE_TESTS_E2E_DAEMON_PROCESS_H_
#define NEURON_SERVE_TESTS_E2E_DAEMON_PROCESS_H_

#include <map>
#include <string>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {

struct DaemonArgs {
  std::vector<std::string> flags;          // e.g. {"--listen=127.0.0.1:0"}
  std::map<std::string, std::string> env;  // added to (or overriding) the test's environment
  std::vector<std::string> unset_env;      // removed from the environment
  bool capture_stdout = false;             // collect stdout (ChildProcess::Stdout)
};

class DaemonProcess : public ChildProcess {
 public:
  explicit DaemonProcess(const DaemonArgs& args) : ChildProcess(SpecFor(args)) {}

 private:
  static ChildSpec SpecFor(const DaemonArgs& args) {
    ChildSpec spec;
    spec.argv = {NEURON_SERVE_PATH};
    spec.argv.insert(spec.argv.end(), args.flags.begin(), args.flags.end());
    spec.env = args.env;
    spec.unset_env = args.unset_env;
    spec.capture_stdout = args.capture_stdout;
    return spec;
  }
};

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_E2E_DAEMON_PROCESS_H_
