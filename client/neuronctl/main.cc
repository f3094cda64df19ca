// neuronctl: the command-line tool of neuron-serve. Each subcommand lives in its own file; add
// new ones to the table below.
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "client/neuronctl/bench/bench_command.h"
#include "client/neuronctl/devices_command.h"
#include "client/neuronctl/dispatch.h"
#include "client/neuronctl/health_command.h"
#include "client/neuronctl/infer_command.h"
#include "client/neuronctl/load_command.h"
#include "client/neuronctl/models_command.h"
#include "client/neuronctl/sim_model_command.h"
#include "client/neuronctl/unload_command.h"

int main(int argc, char** argv) {
  using namespace neuronserve::neuronctl;
  const Subcommand* const subcommands[] = {
      &DevicesCommand(),  //
      &ModelsCommand(),   //
      &ModelCommand(),    //
      &LoadCommand(),     //
      &UnloadCommand(),   //
      &InferCommand(),    //
      &HealthCommand(),   //
      &BenchCommand(),    //
      &SimModelCommand(),
  };
  const std::vector<std::string> args(argv + 1, argv + argc);
  return Dispatch(subcommands, args, std::cout, std::cerr, ::isatty(STDERR_FILENO) == 1);
}
