#include "server/grpc/detached_bytes.h"

#include <climits>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"

namespace neuronserve {
namespace {

using google::protobuf::io::CodedOutputStream;

// The wire tag of a length-delimited field (wire type 2).
uint64_t LengthDelimitedTag(int field) { return (static_cast<uint64_t>(field) << 3) | 2; }

void FreeDetachedBuffer(void* bytes) { delete[] static_cast<char*>(bytes); }

}  // namespace

char* DetachedBytes::Buffer(int slot, size_t size) {
  for (Detached& detached : detached_) {
    if (detached.slot != slot) continue;
    if (detached.size != size || detached.bytes == nullptr) {  // resized, or taken already
      detached.bytes.reset(new char[size]);  // not value-initialized: the read overwrites it
      detached.size = size;
    }
    return detached.bytes.get();
  }
  detached_.push_back(Detached{slot, size, std::unique_ptr<char[]>(new char[size])});
  return detached_.back().bytes.get();
}

std::optional<grpc::Slice> DetachedBytes::Take(int slot) {
  for (Detached& detached : detached_) {
    if (detached.slot != slot || detached.bytes == nullptr) continue;
    const size_t size = detached.size;
    return grpc::Slice(detached.bytes.release(), size, &FreeDetachedBuffer);
  }
  return std::nullopt;
}

size_t FieldHeaderSize(int field, size_t length) {
  return CodedOutputStream::VarintSize64(LengthDelimitedTag(field)) +
         CodedOutputStream::VarintSize64(length);
}

void SplicedMessageWriter::AppendMessage(const google::protobuf::MessageLite& message) {
  const size_t before = piece_.size();
  message.AppendToString(&piece_);
  size_ += piece_.size() - before;
}

void SplicedMessageWriter::AppendFieldHeader(int field, size_t length) {
  uint8_t header[2 * 10];  // two varints of at most 10 bytes each
  uint8_t* end = CodedOutputStream::WriteVarint64ToArray(LengthDelimitedTag(field), header);
  end = CodedOutputStream::WriteVarint64ToArray(length, end);
  AppendBytes(absl::string_view(reinterpret_cast<const char*>(header), end - header));
}

void SplicedMessageWriter::AppendBytes(absl::string_view bytes) {
  piece_.append(bytes.data(), bytes.size());
  size_ += bytes.size();
}

void SplicedMessageWriter::AppendSlice(grpc::Slice slice) {
  EndPiece();
  size_ += slice.size();
  slices_.push_back(std::move(slice));
}

void SplicedMessageWriter::EndPiece() {
  if (piece_.empty()) return;
  slices_.emplace_back(piece_);  // copies the (small) piece
  piece_.clear();
}

absl::Status SplicedMessageWriter::Finish(std::string_view rpc, std::string_view type,
                                          grpc::ByteBuffer& out) {
  if (size_ > static_cast<size_t>(INT_MAX)) {
    return absl::InternalError(absl::StrCat(std::string(rpc), ": the response (", std::string(type),
                                            ", ", size_, " bytes) is larger than 2 GiB"));
  }
  EndPiece();
  grpc::ByteBuffer buffer(slices_.data(), slices_.size());
  out.Swap(&buffer);
  slices_.clear();
  size_ = 0;
  return absl::OkStatus();
}

}  // namespace neuronserve
