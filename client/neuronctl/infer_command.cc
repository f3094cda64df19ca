// `neuronctl infer`: its flags and the run of one request; where the inputs come from is
// infer_inputs.h, what becomes of the outputs infer_outputs.h.
#include "client/neuronctl/infer_command.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/neuronctl/connection_flags.h"
#include "client/neuronctl/flag_values.h"
#include "client/neuronctl/infer_inputs.h"
#include "client/neuronctl/infer_outputs.h"
#include "client/neuronctl/positional_args.h"
#include "client/neuronctl/protocol_flag.h"
#include "client/neuronctl/random_inputs.h"
#include "client/neuronctl/registered_tensor_region.h"
#include "client/neuronctl/shared_memory_flags.h"
#include "client/neuronctl/tensor_form_flag.h"
#include "client/neuronctl/usage_error.h"

namespace neuronserve::neuronctl {
namespace {

constexpr auto kInferFlags = WithConnectionFlags(std::to_array<FlagSpec>({
    {"input", FlagType::kRepeated, "NAME=FILE", "",
     "an input tensor from a .npy file of the input's dtype"},
    {"random", FlagType::kBoolean, "", "",
     "fill every input not given by --input with random values: floats uniform in [-1, 1), "
     "integers uniform in [0, --random-max)"},
    {"seed", FlagType::kValue, "N", "0", "seed of the --random values"},
    kRandomMaxFlag,
    {"output-dir", FlagType::kValue, "DIR", "",
     "write each output to DIR/OUTPUT.npy (created if missing) instead of printing its values"},
    {"outputs", FlagType::kValue, "LIST", "", "only these outputs, e.g. logits,probs"},
    {"version", FlagType::kValue, "LABEL", "", "fail unless this version of the model serves"},
    kTensorFormFlag,
    kProtocolFlag,
    kSharedMemoryFlag,
    kSharedMemoryPrefixFlag,
}));

constexpr absl::string_view kInferDescription =
    "Sends one Infer request (--protocol=v2: one ModelInfer of the Open Inference Protocol,\n"
    "with the same tensors and the same output). Each input comes from a .npy file (numpy.save of "
    "an array in C\n"
    "order; its shape is sent and checked by the daemon) whose dtype is the input's, as\n"
    "'neuronctl model NAME' shows it:\n"
    "  int8 '|i1'   int16 '<i2'   int32 '<i4'   int64 '<i8'   float16 '<f2'\n"
    "  uint8 '|u1'  uint16 '<u2'  uint32 '<u4'  uint64 '<u8'  float32 '<f4'\n"
    "numpy has no bfloat16: a bfloat16 input is a '<u2' file of its 16-bit patterns (e.g.\n"
    "ml_dtypes.bfloat16 array .view(numpy.uint16)); fp8 inputs are '|u1' files of their bits.\n"
    "A file of another dtype is refused, never converted.\n"
    "\n"
    "With --random, every input not given by --input gets seeded random values of the dtype\n"
    "and shape the model declares: floats uniform in [-1, 1) (float16, bfloat16 and fp8\n"
    "rounded to their format), integers uniform in [0, --random-max) (default 2, so token ids\n"
    "and attention masks stay valid).\n"
    "\n"
    "Outputs are printed (long ones cut) or, with --output-dir, written as .npy files named\n"
    "after each output, of the output's dtype (bfloat16 as '<u2' and fp8 as '|u1' bits, as\n"
    "above), which numpy.load reads. --output=json prints the outputs' dtypes, shapes and\n"
    "values (or their files), the serving version and the server's queue and device times.\n"
    "\n"
    "With --shared-memory the tensors do not travel in the request: neuronctl creates a POSIX\n"
    "shared-memory object (/dev/shm/PREFIX-<pid>-<random>-<n>, mode 0600), writes the inputs\n"
    "into it, registers it with the daemon, asks for the outputs to be written into it, reads\n"
    "them from it, then unregisters and removes it. The daemon must run with\n"
    "--allow-client-shared-memory, as the same user, on the same /dev/shm (on Kubernetes: the\n"
    "sidecar overlay). The output is the same as without it.\n"
    "\n"
    "Examples:\n"
    "  neuronctl infer mlp --input input=x.npy --output-dir=out\n"
    "  neuronctl infer classifier --input input_ids=ids.npy --input attention_mask=mask.npy\n"
    "  neuronctl infer classifier --random --random-max=512 --seed=7 --output=json\n"
    "  neuronctl infer mlp --random --shared-memory";

absl::Status RunInfer(const ParsedArgs& args, const CommandIo& io) {
  if (absl::Status status = ExpectPositional(args, {"NAME"}); !status.ok()) return status;
  const std::string& model = args.positional()[0];
  absl::StatusOr<OutputFormat> format = GetOutputFormat(args);
  if (!format.ok()) return format.status();
  absl::StatusOr<bool> raw = GetRawTensorForm(args);
  if (!raw.ok()) return raw.status();
  absl::StatusOr<std::vector<InputSource>> sources = ParseInputFlags(args);
  if (!sources.ok()) return sources.status();
  const bool random = args.GetBool("random");
  if (sources->empty() && !random) {
    return UsageError("give --input NAME=FILE for each input of the model, or --random");
  }
  absl::StatusOr<uint64_t> seed = GetUnsignedFlag(args, "seed");
  if (!seed.ok()) return seed.status();
  absl::StatusOr<uint64_t> random_max = GetRandomMax(args);
  if (!random_max.ok()) return random_max.status();
  absl::StatusOr<client::Protocol> protocol = GetProtocol(args);
  if (!protocol.ok()) return protocol.status();
  client::InferOptions options;
  options.raw = *raw;
  options.protocol = *protocol;
  if (args.Has("version")) options.version = *args.Get("version");
  if (args.Has("outputs")) {
    for (absl::string_view output : absl::StrSplit(*args.Get("outputs"), ',')) {
      if (output.empty()) return UsageError("--outputs: an output name is empty");
      options.outputs.emplace_back(output);
    }
  }
  std::string output_dir;
  if (args.Has("output-dir")) {
    absl::StatusOr<std::string> dir = GetRequiredFlag(args, "output-dir");
    if (!dir.ok()) return dir.status();
    output_dir = *std::move(dir);
  }

  // Files first: a bad input file should fail before anything is asked of the server.
  std::vector<OwnedInput> inputs;
  for (const InputSource& source : *sources) {
    absl::StatusOr<OwnedInput> input = FromNpy(source);
    if (!input.ok()) return input.status();
    inputs.push_back(*std::move(input));
  }

  absl::StatusOr<std::unique_ptr<client::Client>> client = ConnectFromFlags(args);
  if (!client.ok()) return client.status();
  // The model's dtypes: each file is checked against its input's, and --random makes up values
  // of them.
  absl::StatusOr<v1::ModelStatus> status = (*client)->GetModel(model);
  if (!status.ok()) return status.status();
  for (OwnedInput& input : inputs) {
    if (absl::Status matched = MatchModelDtype(*status, input); !matched.ok()) return matched;
  }
  if (random) {
    if (absl::Status added = AddRandomInputs(*status, *seed, *random_max, inputs); !added.ok()) {
      return added;
    }
  }

  std::vector<client::NamedTensor> tensors;
  for (const OwnedInput& input : inputs) {
    tensors.push_back({input.name, input.shape, input.values, input.dtype, input.bytes,
                       /*shared_memory=*/std::nullopt});
  }
  // Registered for this one request, and unregistered and removed on every way out.
  std::unique_ptr<RegisteredTensorRegion> shared;
  if (args.GetBool("shared-memory")) {
    absl::StatusOr<std::string> prefix = GetRequiredFlag(args, "shared-memory-prefix");
    if (!prefix.ok()) return prefix.status();
    absl::StatusOr<std::unique_ptr<RegisteredTensorRegion>> region =
        RegisteredTensorRegion::Create(**client, *status, tensors, options.outputs,
                                       /*output_slots=*/1, *protocol, *prefix);
    if (!region.ok()) return region.status();
    shared = *std::move(region);
    tensors = shared->inputs();
    options.output_shared_memory = shared->outputs(0);
  }
  absl::StatusOr<client::InferResult> result = (*client)->Infer(model, tensors, options);
  if (!result.ok()) return result.status();
  if (shared != nullptr) {
    if (absl::Status read = shared->ReadOutputs(*result); !read.ok()) return read;
  }

  std::map<std::string, std::string> files;
  if (!output_dir.empty()) {
    absl::StatusOr<std::map<std::string, std::string>> written = WriteOutputs(output_dir, *result);
    if (!written.ok()) return written.status();
    files = *std::move(written);
  }
  return Report(model, *result, files, *format, io.out);
}

}  // namespace

const Subcommand& InferCommand() {
  static const Subcommand command = {"infer",      "run one inference request (.npy in and out)",
                                     kInferDescription, kInferFlags,
                                     &RunInfer,    "NAME"};
  return command;
}

}  // namespace neuronserve::neuronctl
