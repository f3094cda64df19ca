#include "sim/abi_guard.h"

#include <new>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/log.h"

namespace neuronserve::nrtsim {
namespace {

void LogQuietly(const char* function, const char* what) noexcept {
  try {
    LogLine(std::string(function) + ": " + what);
  } catch (...) {
    // Out of memory while logging: the status still tells the caller.
  }
}

}  // namespace

NRT_STATUS StatusForCurrentException(const char* function) noexcept {
  try {
    throw;
  } catch (const nlohmann::json::exception& e) {
    LogQuietly(function, e.what());
    return NRT_INVALID;
  } catch (const std::bad_alloc&) {
    LogQuietly(function, "out of host memory");
    return NRT_FAIL_HOST_MEM_ALLOC;
  } catch (const std::exception& e) {
    LogQuietly(function, e.what());
    return NRT_FAILURE;
  } catch (...) {
    LogQuietly(function, "unknown exception");
    return NRT_FAILURE;
  }
}

}  // namespace neuronserve::nrtsim
