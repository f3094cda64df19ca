// The soak's helpers: the names of the kinds and the models, the judgement of an error
// answer, and the requests, deadlines and connections its clients make.
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "tests/bench/payload.h"
#include "tests/bench/soak.h"

namespace neuronserve::bench::soak {

std::string ChurnName(int index) { return absl::StrCat("soak-churn-", index); }

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kNativeUnary:
      return "native unary";
    case Kind::kV2Unary:
      return "v2 unary";
    case Kind::kRest:
      return "REST";
    case Kind::kNativeStream:
      return "native stream";
    case Kind::kV2Stream:
      return "v2 stream";
    case Kind::kNativeSharedMemory:
      return "native shm";
    case Kind::kV2SharedMemory:
      return "v2 shm";
    case Kind::kCanceller:
      return "cancelled";
    case Kind::kBatched:
      return "batched";
    case Kind::kLifecycle:
      return "lifecycle";
  }
  return "?";
}

bool IsChurnModel(const std::string& model) { return model.rfind("soak-churn-", 0) == 0; }

void JudgeError(Tally& tally, const Sent& sent, grpc::StatusCode code, const std::string& message) {
  const std::string what =
      absl::StrCat("model '", sent.model, "': code ", static_cast<int>(code), ": ", message);
  if (message.empty())
    return tally.Problem(tally.unexpected, "an error without a message: " + what);
  switch (code) {
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      if (sent.short_deadline || sent.cancelled) break;
      return tally.Problem(tally.lost, "no answer within 30 s: " + what);
    case grpc::StatusCode::CANCELLED:
      if (sent.cancelled) break;
      return tally.Problem(tally.unexpected, what);
    case grpc::StatusCode::NOT_FOUND:
      if (IsChurnModel(sent.model)) break;
      return tally.Problem(tally.unexpected, what);
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::INTERNAL:
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      break;
    default:
      return tally.Problem(tally.unexpected, what);
  }
  const std::string key = absl::StrCat("code ", static_cast<int>(code));
  ++tally.expected[key];
  tally.first_message.emplace(key, what);
}

grpc::StatusCode CodeOfHttpStatus(int status) {
  switch (status) {
    case 400:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case 404:
      return grpc::StatusCode::NOT_FOUND;
    case 408:
    case 504:
      return grpc::StatusCode::DEADLINE_EXCEEDED;
    case 429:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case 500:
      return grpc::StatusCode::INTERNAL;
    case 503:
      return grpc::StatusCode::UNAVAILABLE;
    default:
      return grpc::StatusCode::UNKNOWN;
  }
}

std::string RandomRows(std::mt19937& random, uint32_t rows) {
  std::string bytes(rows * kRowBytes, '\0');
  for (uint32_t i = 0; i < rows * kRowElements; ++i) {
    const float value = static_cast<float>(random() % 2000001) * 0.125f - 125000.0f;
    std::memcpy(bytes.data() + i * 4, &value, 4);
  }
  return bytes;
}

v1::InferRequest NativeRequest(const std::string& model, const std::string& id, std::string bytes) {
  v1::InferRequest request;
  request.set_id(id);
  request.set_model(model);
  v1::InputTensor* input = request.add_inputs();
  input->set_name(kInputName);
  input->add_shape(static_cast<uint32_t>(bytes.size() / kRowBytes));
  input->add_shape(kRowElements);
  input->set_raw_data(std::move(bytes));
  request.set_response_form(v1::TENSOR_FORM_RAW);
  return request;
}

void SetDeadline(grpc::ClientContext& context, absl::Duration timeout) {
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
}

void SendAndHangUp(const std::string& address, const HttpPost& post, absl::Duration wait) {
  const size_t colon = address.rfind(':');
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(address.substr(0, colon).c_str(), address.substr(colon + 1).c_str(), &hints,
                    &found) != 0 ||
      found == nullptr) {
    return;
  }
  const int fd = ::socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  if (fd >= 0 && ::connect(fd, found->ai_addr, found->ai_addrlen) == 0) {
    const std::string whole =
        absl::StrCat(post.method, " ", post.path, " HTTP/1.1\r\nHost: ", address,
                     "\r\nContent-Length: ", post.body.size(), "\r\n",
                     absl::StrJoin(post.headers, "\r\n"), "\r\n\r\n", post.body);
    (void)::send(fd, whole.data(), whole.size(), MSG_NOSIGNAL);
    absl::SleepFor(wait);
  }
  if (fd >= 0) ::close(fd);
  ::freeaddrinfo(found);
}

std::shared_ptr<grpc::Channel> Connect(const std::string& address) {
  return grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
}

}  // namespace neuronserve::bench::soak
