// libFuzzer target: a sim model file (sim NEFF) as nrtsim reads it: ReadSimModel, then the graph
// rules (CompileModelGraph). Checks, besides the sanitizers: a model that reads back is written
// again (WriteSimModel) and that text reads back too, so the writer and reader agree.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sim/simmodel/model_graph.h"
#include "sim/simmodel/sim_model_reader.h"
#include "sim/simmodel/sim_model_writer.h"

namespace {

void Require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace simmodel = neuronserve::simmodel;
  const std::string_view file(reinterpret_cast<const char*>(data), size);
  simmodel::FormatResult<simmodel::SimModel> model = simmodel::ReadSimModel(file);
  if (!model.ok()) {
    Require(!model.error().empty());
    return 0;
  }
  simmodel::FormatResult<simmodel::ModelGraph> graph = simmodel::CompileModelGraph(model.value());
  if (!graph.ok()) Require(!graph.error().empty());
  const simmodel::FormatResult<std::string> written = simmodel::WriteSimModel(model.value());
  if (written.ok()) Require(simmodel::ReadSimModel(written.value()).ok());
  return 0;
}
