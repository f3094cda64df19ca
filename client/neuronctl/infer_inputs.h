// The inputs of `neuronctl infer`: the --input NAME=FILE flags, the .npy files they name (read,
// then checked against the dtypes of the model's inputs) and --random values for the rest.
//
// Thread safety: functions on values, no shared state. Ownership: an OwnedInput owns its
// elements; the client::NamedTensor a request is built from only borrows them.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_INFER_INPUTS_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_INFER_INPUTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/neuronctl/args.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve::neuronctl {

// One --input flag: the input's name and the file that holds it.
struct InputSource {
  std::string name;
  std::string path;
};

// Every --input flag, in order; a usage error for a value that is not NAME=FILE or a name given
// twice.
absl::StatusOr<std::vector<InputSource>> ParseInputFlags(const ParsedArgs& args);

// A tensor the request sends, owning its elements (NamedTensor only borrows them): float32
// numbers in `values`, or `bytes` of `dtype`.
struct OwnedInput {
  std::string name;
  std::vector<uint32_t> shape;
  std::vector<float> values;
  std::string dtype;
  std::vector<uint8_t> bytes;
  std::string path;   // the file it came from; empty for --random
  std::string descr;  // the file's .npy dtype
};

// The .npy file of `source`, as the dtype its descr names (MatchModelDtype may rename it).
absl::StatusOr<OwnedInput> FromNpy(const InputSource& source);

// Checks a file's dtype against the model's input of the same name and sends it as that dtype
// (a '<u2' file as bfloat16, '|u1' as fp8). An input the model does not have is sent as it is:
// the daemon's error names the model's inputs. FAILED_PRECONDITION naming the file, the input
// and both dtypes on a mismatch.
absl::Status MatchModelDtype(const v1::ModelStatus& model, OwnedInput& input);

// Random values (seeded; integers below `random_max`) for every input of `model` that `inputs`
// does not already hold, appended to `inputs`.
absl::Status AddRandomInputs(const v1::ModelStatus& model, uint64_t seed, uint64_t random_max,
                             std::vector<OwnedInput>& inputs);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_INFER_INPUTS_H_
