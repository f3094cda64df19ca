// extern "C" entry points: tensors and tensor sets.
#include <string>

#include "base/nrt_abi.h"
#include "sim/abi_guard.h"
#include "sim/call_faults.h"
#include "sim/log.h"
#include "sim/runtime_state.h"
#include "sim/tensor.h"
#include "sim/tensor_set.h"

namespace nrtsim = neuronserve::nrtsim;

namespace {

// A single tensor larger than this is refused before any host memory is asked for: the
// sanitizers' allocators abort (rather than fail) on requests near 1 TiB.
constexpr size_t kMaxTensorBytes = size_t{1} << 39;

NRT_STATUS RejectAllocate(NRT_STATUS status, const std::string& why) {
  nrtsim::LogLine("nrt_tensor_allocate: " + why);
  return status;
}

NRT_STATUS Allocate(nrt_tensor_placement_t placement, int vnc, size_t size, const char* name,
                    nrt_tensor_t** tensor) {
  if (tensor == nullptr) return RejectAllocate(NRT_INVALID, "null result pointer");
  std::shared_ptr<const nrtsim::Session> session;
  if (NRT_STATUS s = nrtsim::CurrentSession(&session); s != NRT_SUCCESS) return s;
  if (placement != NRT_TENSOR_PLACEMENT_DEVICE && placement != NRT_TENSOR_PLACEMENT_HOST &&
      placement != NRT_TENSOR_PLACEMENT_VIRTUAL) {
    return RejectAllocate(NRT_INVALID, "unknown placement " + std::to_string(placement));
  }
  if (placement == NRT_TENSOR_PLACEMENT_VIRTUAL && session->config.version.AtLeast(2, 32)) {
    return RejectAllocate(NRT_INVALID,
                          "VIRTUAL placement does not exist in runtime 2.32 and later (reported "
                          "version " +
                              session->config.version.ToString() + ")");
  }
  if (size == 0) return RejectAllocate(NRT_INVALID, "size 0");
  std::shared_ptr<nrtsim::DeviceCore> core = session->CoreAt(vnc);
  // A DEVICE tensor needs a visible core; HOST and VIRTUAL ones take -1 or a visible core.
  if (core == nullptr && (placement == NRT_TENSOR_PLACEMENT_DEVICE || vnc != -1)) {
    return RejectAllocate(NRT_INVALID, "core " + std::to_string(vnc) + " is not visible (" +
                                           std::to_string(session->cores.size()) +
                                           " visible cores)");
  }
  if (size > kMaxTensorBytes) {
    return RejectAllocate(NRT_RESOURCE, std::to_string(size) + " bytes is more than the " +
                                            "simulator backs with host memory");
  }
  // Every argument is valid; nothing is taken yet. Only a DEVICE tensor is on a core.
  std::optional<uint32_t> on_core;
  if (placement == NRT_TENSOR_PLACEMENT_DEVICE) on_core = core->visible_index();
  if (std::optional<NRT_STATUS> fault =
          nrtsim::InjectedCallFault(nrtsim::RuntimeCall::kTensorAllocate, on_core)) {
    return *fault;
  }
  std::optional<nrtsim::HbmReservation> hbm;
  if (placement == NRT_TENSOR_PLACEMENT_DEVICE) {
    hbm = nrtsim::HbmReservation::TryReserve(core, size);
    if (!hbm) {
      return RejectAllocate(
          NRT_RESOURCE, std::to_string(size) + " bytes do not fit in the HBM of core " +
                            std::to_string(vnc) + " (" + std::to_string(core->hbm_bytes_used()) +
                            " of " + std::to_string(core->hbm_bytes_limit()) + " used)");
    }
  }
  std::unique_ptr<nrt_tensor> created =
      nrtsim::Tensor::Create(placement, size, name != nullptr ? name : "", std::move(hbm));
  if (created == nullptr) {
    return RejectAllocate(NRT_RESOURCE, "no host memory for " + std::to_string(size) + " bytes");
  }
  *tensor = created.release();
  return NRT_SUCCESS;
}

// For read/write/memset: the tensor must be a live handle and the runtime open.
NRT_STATUS CheckTensorAccess(const nrt_tensor_t* tensor,
                             std::shared_ptr<const nrtsim::Session>* session) {
  if (tensor == nullptr) return NRT_INVALID;
  if (!tensor->valid_handle()) return NRT_INVALID_HANDLE;
  return nrtsim::CurrentSession(session);
}

NRT_STATUS CheckTensorAccess(const nrt_tensor_t* tensor) {
  std::shared_ptr<const nrtsim::Session> session;
  return CheckTensorAccess(tensor, &session);
}

// A read or write that moved `size` bytes of a DEVICE tensor took its time on the core's copy
// engine (NRTSIM_DMA_BYTES_PER_SECOND); host and virtual tensors copy for free.
NRT_STATUS ChargeCopy(const nrt_tensor_t* tensor, const nrtsim::Session& session, size_t size,
                      NRT_STATUS copied) {
  if (copied == NRT_SUCCESS && tensor->core() != nullptr) {
    tensor->core()->Copy(size, session.config.dma_bytes_per_second);
  }
  return copied;
}

// nrt_tensor_read and nrt_tensor_write up to the copy: the tensor, the runtime and the range
// must be valid (else the status says which is not), then a fault rule may fail the copy before
// it moves a byte. A DEVICE tensor is on its core; HOST and VIRTUAL ones are on none.
NRT_STATUS CheckCopy(nrtsim::RuntimeCall call, const nrt_tensor_t* tensor, const void* buffer,
                     size_t offset, size_t size, std::shared_ptr<const nrtsim::Session>* session) {
  if (NRT_STATUS s = CheckTensorAccess(tensor, session); s != NRT_SUCCESS) return s;
  if (!tensor->CanCopy(buffer, offset, size)) return NRT_INVALID;
  std::optional<uint32_t> on_core;
  if (tensor->core() != nullptr) on_core = tensor->core()->visible_index();
  if (std::optional<NRT_STATUS> fault = nrtsim::InjectedCallFault(call, on_core)) return *fault;
  return NRT_SUCCESS;
}

NRT_STATUS CheckTensorSet(const nrt_tensor_set_t* set) {
  if (set == nullptr) return NRT_INVALID;
  if (!static_cast<const nrtsim::TensorSet*>(set)->valid_handle()) return NRT_INVALID_HANDLE;
  return NRT_SUCCESS;
}

}  // namespace

extern "C" {

NRT_STATUS nrt_tensor_allocate(nrt_tensor_placement_t placement, int vnc, size_t size,
                               const char* name, nrt_tensor_t** tensor) {
  try {
    return Allocate(placement, vnc, size, name, tensor);
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_tensor_allocate");
  }
}

void nrt_tensor_free(nrt_tensor_t** tensor) {
  if (tensor == nullptr || *tensor == nullptr || !(*tensor)->valid_handle()) return;
  // Works after nrt_close too: a DEVICE tensor's HBM goes back to its core.
  delete *tensor;
  *tensor = nullptr;
}

NRT_STATUS nrt_tensor_read(const nrt_tensor_t* tensor, void* buf, size_t offset, size_t size) {
  try {
    std::shared_ptr<const nrtsim::Session> session;
    if (NRT_STATUS s =
            CheckCopy(nrtsim::RuntimeCall::kTensorRead, tensor, buf, offset, size, &session);
        s != NRT_SUCCESS) {
      return s;
    }
    return ChargeCopy(tensor, *session, size, tensor->Read(buf, offset, size));
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_tensor_read");
  }
}

NRT_STATUS nrt_tensor_write(nrt_tensor_t* tensor, const void* buf, size_t offset, size_t size) {
  try {
    std::shared_ptr<const nrtsim::Session> session;
    if (NRT_STATUS s =
            CheckCopy(nrtsim::RuntimeCall::kTensorWrite, tensor, buf, offset, size, &session);
        s != NRT_SUCCESS) {
      return s;
    }
    return ChargeCopy(tensor, *session, size, tensor->Write(buf, offset, size));
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_tensor_write");
  }
}

NRT_STATUS nrt_tensor_memset(nrt_tensor_t* tensor, uint64_t offset, int value, size_t size) {
  if (NRT_STATUS s = CheckTensorAccess(tensor); s != NRT_SUCCESS) return s;
  return tensor->Fill(offset, value, size);
}

size_t nrt_tensor_get_size(const nrt_tensor_t* tensor) {
  if (tensor == nullptr || !tensor->valid_handle()) return 0;
  return tensor->size();
}

NRT_STATUS nrt_allocate_tensor_set(nrt_tensor_set_t** result) {
  try {
    if (result == nullptr) return NRT_INVALID;
    if (std::optional<NRT_STATUS> fault =
            nrtsim::InjectedCallFault(nrtsim::RuntimeCall::kAllocateTensorSet, std::nullopt)) {
      return *fault;
    }
    *result = new nrtsim::TensorSet();
    return NRT_SUCCESS;
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_allocate_tensor_set");
  }
}

void nrt_destroy_tensor_set(nrt_tensor_set_t** tensor_set) {
  if (tensor_set == nullptr || *tensor_set == nullptr) return;
  auto* set = static_cast<nrtsim::TensorSet*>(*tensor_set);
  if (!set->valid_handle()) return;
  delete set;
  *tensor_set = nullptr;
}

NRT_STATUS nrt_add_tensor_to_tensor_set(nrt_tensor_set_t* tensor_set, const char* tensor_name,
                                        nrt_tensor_t* tensor) {
  try {
    if (NRT_STATUS s = CheckTensorSet(tensor_set); s != NRT_SUCCESS) return s;
    if (tensor_name == nullptr || tensor == nullptr) return NRT_INVALID;
    if (!tensor->valid_handle()) return NRT_INVALID_HANDLE;
    if (std::optional<NRT_STATUS> fault =
            nrtsim::InjectedCallFault(nrtsim::RuntimeCall::kAddTensorToTensorSet, std::nullopt)) {
      return *fault;  // the set keeps the binding it had (or none)
    }
    static_cast<nrtsim::TensorSet*>(tensor_set)->Bind(tensor_name, tensor);
    return NRT_SUCCESS;
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_add_tensor_to_tensor_set");
  }
}

NRT_STATUS nrt_get_tensor_from_tensor_set(nrt_tensor_set_t* tensor_set, const char* tensor_name,
                                          nrt_tensor_t** tensor) {
  try {
    if (NRT_STATUS s = CheckTensorSet(tensor_set); s != NRT_SUCCESS) return s;
    if (tensor_name == nullptr || tensor == nullptr) return NRT_INVALID;
    nrt_tensor* found = static_cast<nrtsim::TensorSet*>(tensor_set)->Find(tensor_name);
    if (found == nullptr) return NRT_INVALID;
    *tensor = found;
    return NRT_SUCCESS;
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_get_tensor_from_tensor_set");
  }
}

}  // extern "C"
