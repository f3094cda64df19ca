// The outputs of `neuronctl infer`: printed as text (long ones cut, pointing at --output-dir) or
// JSON, or written as .npy files of each output's dtype.
//
// Thread safety: functions on values, no shared state; they write only the stream and the
// directory they are given. Ownership: nothing is kept.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_INFER_OUTPUTS_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_INFER_OUTPUTS_H_

#include <map>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/lib/infer_types.h"
#include "client/neuronctl/output_format.h"

namespace neuronserve::neuronctl {

// Writes each output of `result` to `dir`/<output>.npy (creating `dir` if missing), the name
// made safe for a file name; returns the path of each output's file, by output name.
// FAILED_PRECONDITION when `dir` cannot be created; a file's write error otherwise.
absl::StatusOr<std::map<std::string, std::string>> WriteOutputs(const std::string& dir,
                                                                const client::InferResult& result);

// Prints the result of `model`: times, and each output's dtype and shape with its values, or its
// file when `files` (from WriteOutputs) has one.
absl::Status Report(const std::string& model, const client::InferResult& result,
                    const std::map<std::string, std::string>& files, OutputFormat format,
                    std::ostream& out);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_INFER_OUTPUTS_H_
