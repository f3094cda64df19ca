// DetachedBytes and SplicedMessageWriter: the large raw outputs of a unary answer travel outside
// its protobuf message, as slices of their own.
//
// A bytes field held in the message costs two passes over the tensor besides the device read:
// sizing the std::string fills it with zeros, and serializing the message copies it into gRPC's
// buffer. A raw output of kMinBytes or more is instead read by the core worker into a buffer
// that DetachedBytes allocates without filling, and the serialized answer hands that buffer to
// gRPC as a slice that owns it. At 1 MiB and up those two passes were a large share of the
// daemon's profile (tests/bench/README.md, "Detached outputs").
//
// SplicedMessageWriter writes such an answer: protobuf serializes the message's other fields as
// usual, and each detached field is written as its tag and length followed by its slice. A
// parser accepts a message's fields in any order (and keeps a repeated field's elements in their
// order), so the answer parses into the same message as if the bytes had been inline.
//
// Thread safety: one thread at a time (the gRPC thread that binds the call, then the core worker
// that reads the outputs, then the thread that completes it; the queue's hand-offs order them).
// Ownership: DetachedBytes owns its buffers until Take moves one into a slice, which then owns
// it (gRPC frees it once the answer is sent).
#ifndef NEURON_SERVE_SERVER_GRPC_DETACHED_BYTES_H_
#define NEURON_SERVE_SERVER_GRPC_DETACHED_BYTES_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message_lite.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/slice.h"
#include "server/call/output_bytes_hook.h"

namespace neuronserve {

// The OutputBytesHook of a gRPC unary answer (server/call/output_bytes_hook.h): InferCall
// asks it for a raw output's buffer, and it takes the outputs of kMinBytes or more.
class DetachedBytes final : public OutputBytesHook {
 public:
  // Smaller fields stay in the message: a slice of their own would cost more than the copy.
  static constexpr size_t kMinBytes = size_t{64} << 10;

  // Buffer(slot, bytes) for a field of kMinBytes or more, else null (it stays in the message).
  char* OutsideMessage(int slot, size_t bytes) override {
    return bytes >= kMinBytes ? Buffer(slot, bytes) : nullptr;
  }

  // The buffer of the field at `slot` (the front end's index of the output), `size` bytes,
  // allocated on the first call and not filled; later calls for the slot return the same buffer
  // (a new one if `size` changed or the buffer was taken).
  char* Buffer(int slot, size_t size);
  // The buffer of `slot` moved into a slice that owns it, or nullopt when the slot has none.
  std::optional<grpc::Slice> Take(int slot);
  bool empty() const { return detached_.empty(); }

 private:
  struct Detached {
    int slot;
    size_t size;
    std::unique_ptr<char[]> bytes;
  };
  absl::InlinedVector<Detached, 2> detached_;
};

class SplicedMessageWriter {
 public:
  // Appends `message` serialized (copied into the writer).
  void AppendMessage(const google::protobuf::MessageLite& message);
  // Appends the tag of the length-delimited field `field` and `length`: the field's contents
  // follow (AppendMessage, AppendBytes, AppendSlice), `length` bytes in all.
  void AppendFieldHeader(int field, size_t length);
  // Appends `bytes`, copied.
  void AppendBytes(absl::string_view bytes);
  // Appends `slice` as it is: no copy.
  void AppendSlice(grpc::Slice slice);
  // The bytes appended so far.
  size_t size() const { return size_; }
  // Moves everything appended into `out` (one slice per detached field, one per stretch between
  // them). An answer over 2 GiB, which gRPC could not send, is INTERNAL naming the RPC `rpc`
  // and the message `type` (as SerializeMessage's failure), and `out` is left as it was.
  absl::Status Finish(std::string_view rpc, std::string_view type, grpc::ByteBuffer& out);

 private:
  void EndPiece();

  std::string piece_;  // what was copied since the last slice
  std::vector<grpc::Slice> slices_;
  size_t size_ = 0;
};

// The bytes the tag and length of a length-delimited field take before its `length` bytes.
size_t FieldHeaderSize(int field, size_t length);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_DETACHED_BYTES_H_
