// OutputBytesHook: how a protocol's adapter takes a raw output's bytes outside its message, so
// that the device writes them where the protocol sends them from, with no copy in between.
//
// InferCall knows no protocol's byte types: a gRPC unary answer hands large raw outputs to gRPC
// as slices of their own (server/grpc/detached_bytes.h implements this hook); a protocol with
// nothing of the kind sets no hook and every output stays in its message.
//
// Thread safety: one thread at a time, as the call that asks it (bound on the protocol's thread,
// read by one core worker, then answered; the queue's hand-offs order them). Ownership: the
// hook owns the buffers it returns; the call borrows the hook, which outlives it.
#ifndef NEURON_SERVE_SERVER_CALL_OUTPUT_BYTES_HOOK_H_
#define NEURON_SERVE_SERVER_CALL_OUTPUT_BYTES_HOOK_H_

#include <cstddef>

namespace neuronserve {

class OutputBytesHook {
 public:
  // A buffer of `bytes` for the raw output at `slot` (the adapter's index of the output),
  // outside the protocol's message, or null when the output stays in the message (too small to
  // be worth a buffer of its own). The same slot asked again with the same size returns the
  // same buffer.
  virtual char* OutsideMessage(int slot, size_t bytes) = 0;

 protected:
  ~OutputBytesHook() = default;  // never deleted through the hook
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_CALL_OUTPUT_BYTES_HOOK_H_
