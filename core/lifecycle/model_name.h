// The rules for model names and versions.
//
// A model name becomes a directory name under --state-dir (core/lifecycle/model_store.h) and a
// label value in metrics, so it is restricted to a charset that is safe in both places and can
// never name a path outside its directory: "..", "a/b" and "" are all rejected.
#ifndef NEURON_SERVE_CORE_LIFECYCLE_MODEL_NAME_H_
#define NEURON_SERVE_CORE_LIFECYCLE_MODEL_NAME_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace neuronserve {

struct ModelIdentity;  // core/serving/model/loaded_model.h

inline constexpr size_t kMaxModelNameLength = 128;
inline constexpr size_t kMaxModelVersionLength = 64;

// OK for 1..128 characters from [A-Za-z0-9_.-] not starting with '.' or '-' (no hidden files,
// no "." or "..", nothing a command line would take for a flag). INVALID_ARGUMENT otherwise,
// with a message that quotes the name (control and non-ASCII bytes escaped) and says what is
// allowed.
absl::Status ValidateModelName(absl::string_view name);

// Empty (no version) is OK; otherwise the same rules as a name with at most 64 characters.
absl::Status ValidateModelVersion(absl::string_view version);

// How log lines and errors name a model: "'resnet'", or "'resnet' version '2'" when it has one.
std::string QuotedModel(const ModelIdentity& identity);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_LIFECYCLE_MODEL_NAME_H_
