// neuronctl: the command-line tool of neuron-serve. Each subcommand lives in its own file; add
// new ones to the table below.
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "client/neuronctl/dispatch.h"
#include "client/neuronctl/sim_model_command.h"

int main(int argc, char** argv) {
  using namespace neuronserve::neuronctl;
  const Subcommand* const subcommands[] = {
      &SimModelCommand(),
  };
  const std::vector<std::string> args(argv + 1, argv + argc);
  return Dispatch(subcommands, args, std::cout, std::cerr, ::isatty(STDERR_FILENO) == 1);
}
