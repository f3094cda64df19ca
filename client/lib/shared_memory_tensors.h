// Tensors in shared memory on the client's side: an input's elements written into the caller's
// mapping of a region exactly as a raw request would carry them, and an output the server wrote
// there (InferOptions::output_shared_memory) read back into the same decoded form as an output
// that came in the response.
//
// Thread safety: functions on their arguments. Write an input before sending the request that
// names it; read an output after its answer arrived and before the range is reused.
#ifndef NEURON_SERVE_CLIENT_LIB_SHARED_MEMORY_TENSORS_H_
#define NEURON_SERVE_CLIENT_LIB_SHARED_MEMORY_TENSORS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "client/lib/infer_types.h"

namespace neuronserve::client {

// The bytes `tensor` carries raw: its `bytes`, or its float32 `values` as its dtype (4 bytes
// each, 2 for float16 and bfloat16). 0 for a tensor already in shared memory.
uint64_t RawByteSize(const NamedTensor& tensor);

// Writes `tensor`'s raw bytes into `region` (the caller's view of the region registered as
// `region_name`) at `offset`, and returns the same tensor naming that range instead of carrying
// its elements. OUT_OF_RANGE, naming the region, when they do not fit; INVALID_ARGUMENT for a
// tensor that is already in shared memory.
absl::StatusOr<NamedTensor> WriteSharedMemoryInput(const NamedTensor& tensor,
                                                   absl::Span<uint8_t> region,
                                                   const std::string& region_name, uint64_t offset);

// `region` is the caller's view of the region as it was registered: the object's bytes from the
// registration's offset, for the registration's byte size. Fills output.bytes (shape's elements
// times the dtype's size, from output.shared_memory->offset; an output of a dtype this client
// does not know gets the span's whole byte_size) and output.values as DecodeInferResponse would.
// FAILED_PRECONDITION when the output did not go to shared memory; OUT_OF_RANGE, naming the
// region, when the bytes do not lie inside `region` or the output needs more than its span.
absl::Status ReadSharedMemoryOutput(absl::Span<const uint8_t> region, OutputTensor& output);

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_SHARED_MEMORY_TENSORS_H_
