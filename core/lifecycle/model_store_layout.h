// The names of ModelStore's on-disk layout (model_store.h describes it) that both its writing
// side (model_store.cc) and its reading side (model_store_reading.cc) build paths from. Internal
// to the store: no other file includes this.
//
// Thread safety: pure functions on strings.
#ifndef NEURON_SERVE_CORE_LIFECYCLE_MODEL_STORE_LAYOUT_H_
#define NEURON_SERVE_CORE_LIFECYCLE_MODEL_STORE_LAYOUT_H_

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace neuronserve::model_store_layout {

// The suffix of a write in progress: ".<target>.<unique>.tmp".
inline constexpr char kTempSuffix[] = ".tmp";

inline std::string JoinPath(const std::string& dir, const std::string& name) {
  return absl::StrCat(dir, "/", name);
}

// A write in progress, or the leftover of one interrupted by a crash.
inline bool IsTempName(const std::string& name) {
  return absl::StartsWith(name, ".") && absl::EndsWith(name, kTempSuffix);
}

}  // namespace neuronserve::model_store_layout

#endif  // NEURON_SERVE_CORE_LIFECYCLE_MODEL_STORE_LAYOUT_H_
