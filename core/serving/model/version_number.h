// The decimal version number the Open Inference Protocol reports for a model's version label.
//
// The native API gives a version a free-form label ("3", "2024-06-01", or none at all), while
// Triton's tools (tritonclient, perf_analyzer) parse every version the v2 protocol reports as an
// integer. One mapping, used by every v2 front end, gives each label its number:
//
//   - no label: 1, as Triton numbers a model's only version;
//   - a label that already is a decimal integer in its plain form (digits, no leading zero
//     unless it is "0", at most 15 digits): that number;
//   - any other label: 1000000000000000 + (the first 8 bytes of the label's SHA-256 read as a
//     big-endian integer) mod 8000000000000000, a 16-digit number below 2^53 (so JSON readers
//     that hold numbers as doubles keep it exact), the same in every process and release:
//     `printf %s LABEL | sha256sum` and that formula reproduce it.
//
// A request may name a version by its label or by its number (NamesVersion). The native API,
// the logs and the metrics keep the label.
//
// Thread-safe: pure functions.
#ifndef NEURON_SERVE_CORE_SERVING_MODEL_VERSION_NUMBER_H_
#define NEURON_SERVE_CORE_SERVING_MODEL_VERSION_NUMBER_H_

#include <string>

#include "absl/strings/string_view.h"

namespace neuronserve {

// The number of the version labelled `label`, in decimal.
std::string VersionNumber(absl::string_view label);

// True when a request asking for version `asked` reaches the version labelled `label`: `asked`
// is empty (any version), the label itself, or the label's number.
bool NamesVersion(absl::string_view asked, absl::string_view label);

// True when `asked` can only mean a version's number: one or more ASCII decimal digits, as
// Triton's clients write a version. A request naming any other string names a label.
bool IsVersionNumberForm(absl::string_view asked);

// How errors name the version labelled `label`: "'3'", "'2024-06-01' (number 12...)", or
// "1 (no label)".
std::string DescribeVersion(absl::string_view label);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_MODEL_VERSION_NUMBER_H_
