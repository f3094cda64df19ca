#include "server/grpc/raw_message.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "grpcpp/impl/codegen/proto_utils.h"  // the SerializationTraits the generated code uses
#include "server/grpc/grpc_status.h"

namespace neuronserve {

absl::Status ParseMessage(std::string_view rpc, const grpc::ByteBuffer& raw,
                          google::protobuf::MessageLite& message, size_t position) {
  // gRPC hands a zero-length message over as a buffer with no slices; it parses as the empty
  // message, as the generated code would parse it.
  if (!raw.Valid()) {
    message.Clear();
    return absl::OkStatus();
  }
  // Deserialize consumes (clears) the buffer it reads: it gets a copy, which only takes a
  // reference on each slice.
  grpc::ByteBuffer copy(raw);
  const grpc::Status parsed =
      grpc::SerializationTraits<google::protobuf::MessageLite>::Deserialize(&copy, &message);
  if (parsed.ok()) return absl::OkStatus();
  message.Clear();  // a failed parse may leave some fields set: nothing of it is used
  const std::string what = position == 0 ? std::string("the request")
                                         : absl::StrCat("message ", position, " of the stream");
  return absl::InvalidArgumentError(absl::StrCat(std::string(rpc), ": ", what,
                                                 " could not be parsed as ", message.GetTypeName(),
                                                 " (", raw.Length(), " bytes)"));
}

absl::Status SerializeMessage(std::string_view rpc, const google::protobuf::MessageLite& message,
                              grpc::ByteBuffer& raw) {
  bool own_buffer = false;  // always true for a proto message: the buffer is ours
  const grpc::Status serialized =
      grpc::SerializationTraits<google::protobuf::MessageLite>::Serialize(message, &raw,
                                                                          &own_buffer);
  if (serialized.ok()) return absl::OkStatus();
  raw.Clear();
  return absl::InternalError(
      absl::StrCat(std::string(rpc), ": the response (", message.GetTypeName(),
                   ") could not be serialized: ", serialized.error_message()));
}

grpc::ServerUnaryReactor* FinishRawUnaryNow(grpc::CallbackServerContext* context,
                                            std::string_view rpc, const grpc::Status& status,
                                            const google::protobuf::MessageLite& response,
                                            grpc::ByteBuffer* raw_response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (status.ok()) {
    if (absl::Status serialized = SerializeMessage(rpc, response, *raw_response);
        !serialized.ok()) {
      reactor->Finish(ToGrpcStatus(serialized));
      return reactor;
    }
  }
  reactor->Finish(status);
  return reactor;
}

grpc::ServerUnaryReactor* FinishRawUnaryNow(grpc::CallbackServerContext* context,
                                            std::string_view rpc, const absl::Status& status,
                                            const google::protobuf::MessageLite& response,
                                            grpc::ByteBuffer* raw_response) {
  return FinishRawUnaryNow(context, rpc, ToGrpcStatus(status), response, raw_response);
}

}  // namespace neuronserve
