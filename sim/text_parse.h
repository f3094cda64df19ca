// Strict parsers for the values of the configuration environment. Each rejects anything that is
// not exactly the documented form (no signs, no spaces, no trailing garbage), because a silently
// misread NRTSIM_CORES would make a test pass against a machine it did not ask for.
#ifndef NEURON_SERVE_SIM_TEXT_PARSE_H_
#define NEURON_SERVE_SIM_TEXT_PARSE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/nrt_abi.h"

namespace neuronserve::nrtsim {

// Decimal digits only; nullopt on overflow of uint64_t.
std::optional<uint64_t> ParseUnsigned(std::string_view text);

// A decimal byte count with an optional binary suffix: "1048576", "512KiB", "64MiB", "16GiB".
// nullopt when malformed or when the product overflows uint64_t.
std::optional<uint64_t> ParseByteSize(std::string_view text);

struct RuntimeVersion {
  uint64_t major = 0;
  uint64_t minor = 0;
  uint64_t patch = 0;
  uint64_t maintenance = 0;

  // True if this version is major.minor or later (the quirks change at minor versions).
  bool AtLeast(uint64_t at_least_major, uint64_t at_least_minor) const {
    return major != at_least_major ? major > at_least_major : minor >= at_least_minor;
  }

  // "2.29.0", with ".maintenance" when it is not 0: how messages name the reported version.
  std::string ToString() const;
};

// "major.minor.patch" or "major.minor.patch.maintenance".
std::optional<RuntimeVersion> ParseRuntimeVersion(std::string_view text);

// An NRT_STATUS as a name, full ("NRT_TIMEOUT") or without its prefix ("TIMEOUT"), as
// base/nrt_status_names.h reads names, or as a decimal number up to INT32_MAX, declared in the ABI
// or not (the caller decides which statuses it accepts). nullopt for anything else.
std::optional<NRT_STATUS> ParseNrtStatus(std::string_view text);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_TEXT_PARSE_H_
