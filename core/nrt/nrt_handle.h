// NrtHandle: sole ownership of one runtime handle (a tensor, a tensor set, a loaded model),
// freed exactly once through the runtime's function table.
//
// It is std::unique_ptr with a deleter that carries the table (NrtDeleter), rather than a class
// of its own: unique_ptr already is the move-only owner with reset() and release() that every
// handle class here used to re-implement, and it frees the old handle with the old table on a
// move assignment. `Free` names the table's member that frees this kind of handle:
//   - a `void (T**)` function (nrt_tensor_free, nrt_destroy_tensor_set) gets the handle's
//     address, as the runtime asks;
//   - a `NRT_STATUS (T*)` function (nrt_unload) gets the handle; a failure cannot be returned
//     from a destructor, so it is logged. Callers that want the status release() the handle
//     and make the call themselves (NrtModel::Unload).
//
// Thread safety: like std::unique_ptr, one owner; moving or resetting a handle must not race
// with any other use of it. Which runtime calls on the handle may run concurrently is said in
// nrt_handles.h. Ownership: the handle owns the runtime object; the table is borrowed, and the
// NrtRuntime that owns it must outlive every handle (the daemon unloads every model, and so
// frees every tensor, before it closes the runtime).
#ifndef NEURON_SERVE_CORE_NRT_NRT_HANDLE_H_
#define NEURON_SERVE_CORE_NRT_NRT_HANDLE_H_

#include <memory>
#include <type_traits>

#include "absl/strings/string_view.h"
#include "base/nrt_abi.h"
#include "core/nrt/nrt_library.h"

namespace neuronserve {

// Logs (warning) a runtime call's failure that no caller can be told of: a handle freed by a
// destructor or a move assignment. Silent for NRT_SUCCESS.
void LogNrtFreeFailure(absl::string_view operation, NRT_STATUS status);

template <typename T, auto Free>
struct NrtDeleter {
  // Borrowed; null only in a handle that never held anything (unique_ptr never calls the
  // deleter on null).
  const NrtApi* api = nullptr;
  // The runtime function's name, for the log line of a failure.
  const char* operation = "";

  void operator()(T* handle) const {
    if constexpr (std::is_invocable_v<decltype(api->*Free), T**>) {
      (api->*Free)(&handle);
    } else {
      LogNrtFreeFailure(operation, (api->*Free)(handle));
    }
  }
};

template <typename T, auto Free>
using NrtHandle = std::unique_ptr<T, NrtDeleter<T, Free>>;

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_NRT_NRT_HANDLE_H_
