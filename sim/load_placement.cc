#include "sim/load_placement.h"

#include <string>

#include "sim/log.h"

namespace neuronserve::nrtsim {
namespace {

NRT_STATUS Reject(NRT_STATUS status, const std::string& why) {
  LogLine("nrt_load: " + why);
  return status;
}

}  // namespace

NRT_STATUS PlaceModel(const Session& session, int32_t vnc, int32_t vnc_count, uint32_t nc_count,
                      std::optional<CoreOccupancy::Claim>* claim) {
  const int64_t visible = static_cast<int64_t>(session.cores.size());
  if (vnc < -1 || vnc >= visible) {
    return Reject(NRT_INVALID, "start core " + std::to_string(vnc) + " is not visible (" +
                                   std::to_string(visible) + " visible cores)");
  }
  if (vnc_count == 0 || vnc_count < -1) {
    return Reject(NRT_INVALID, "vnc_count " + std::to_string(vnc_count) + " is invalid");
  }
  if (vnc_count != -1 && static_cast<uint32_t>(vnc_count) < nc_count) {
    return Reject(NRT_LOAD_NOT_ENOUGH_NC, "the model needs " + std::to_string(nc_count) +
                                              " cores but vnc_count grants " +
                                              std::to_string(vnc_count));
  }
  if (vnc == -1) {
    *claim = session.occupancy->ClaimFirstFree(nc_count);
    if (!claim->has_value()) {
      return Reject(NRT_LOAD_NOT_ENOUGH_NC,
                    "start core -1: no " + std::to_string(nc_count) +
                        " consecutive visible cores are free of loaded models (" +
                        std::to_string(visible) + " visible cores)");
    }
    return NRT_SUCCESS;
  }
  if (vnc + int64_t{nc_count} > visible) {
    return Reject(NRT_LOAD_NOT_ENOUGH_NC, "the model needs " + std::to_string(nc_count) +
                                              " cores from core " + std::to_string(vnc) +
                                              ", but only " + std::to_string(visible) +
                                              " are visible");
  }
  *claim = session.occupancy->ClaimCores(static_cast<uint32_t>(vnc), nc_count);
  return NRT_SUCCESS;
}

}  // namespace neuronserve::nrtsim
