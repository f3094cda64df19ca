// The soak's traffic: the clients of every kind, each checking and tallying every answer it
// gets.
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "client/lib/client.h"
#include "client/lib/shared_memory_tensors.h"
#include "client/shared_memory/shared_memory_object.h"
#include "inference/grpc_service.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "tests/bench/payload.h"
#include "tests/bench/soak.h"

namespace neuronserve::bench::soak {

void Soak::UnaryClient(Kind kind, int client, std::mt19937& random, Tally& tally) {
  const std::unique_ptr<v1::NeuronServing::Stub> native =
      v1::NeuronServing::NewStub(Connect(address_));
  const std::unique_ptr<inference::GRPCInferenceService::Stub> v2 =
      inference::GRPCInferenceService::NewStub(Connect(address_));
  for (uint64_t n = 0; !Stopping(); ++n) {
    Sent sent;
    uint32_t rows = 1;
    if (kind == Kind::kBatched) {
      sent.model = kBatched;
      rows = 1 + random() % 4;
    } else {
      sent.model = PickModel(random);
    }
    sent.short_deadline = random() % 10 == 0;
    const v1::InferRequest request =
        NativeRequest(sent.model, absl::StrCat("c", client, "-", n), RandomRows(random, rows));
    grpc::ClientContext context;
    SetDeadline(context, sent.short_deadline ? kShortDeadline : kPatientDeadline);
    ++tally.requests;
    const bool use_v2 = kind == Kind::kV2Unary || (kind == Kind::kBatched && n % 2 == 1);
    if (use_v2) {
      const inference::ModelInferRequest v2_request = MakeV2Request(request);
      inference::ModelInferResponse response;
      const grpc::Status status = v2->ModelInfer(&context, v2_request, &response);
      if (!status.ok()) {
        JudgeError(tally, sent, status.error_code(), status.error_message());
      } else if (std::string wrong = V2CompareOutput(v2_request, response); !wrong.empty()) {
        tally.Problem(tally.wrong, absl::StrCat("model '", sent.model, "': ", wrong));
      } else {
        ++tally.ok;
      }
    } else {
      v1::InferResponse response;
      const grpc::Status status = native->Infer(&context, request, &response);
      if (!status.ok()) {
        JudgeError(tally, sent, status.error_code(), status.error_message());
      } else if (std::string wrong = CompareOutput(request, response); !wrong.empty()) {
        tally.Problem(tally.wrong, absl::StrCat("model '", sent.model, "': ", wrong));
      } else {
        ++tally.ok;
      }
    }
  }
}

void Soak::RestClient(int client, std::mt19937& random, Tally& tally) {
  HttpConnection connection(http_address_);
  connection.set_receive_timeout(kPatientDeadline);
  for (uint64_t n = 0; !Stopping(); ++n) {
    Sent sent{PickModel(random)};
    const v1::InferRequest native =
        NativeRequest(sent.model, absl::StrCat("c", client, "-", n), RandomRows(random, 1));
    const inference::ModelInferRequest v2 = MakeV2Request(native);
    const HttpPost post = MakeRestBinaryRequest(v2);
    ++tally.requests;
    if (random() % 10 == 0) {
      SendAndHangUp(http_address_, post, absl::Microseconds(random() % 2000));
      ++tally.abandoned;
      continue;
    }
    const HttpAnswer answer = connection.Send(post);
    if (answer.status == 200) {
      if (std::string wrong = RestBinaryCompareOutput(v2.raw_input_contents(0), answer);
          !wrong.empty()) {
        tally.Problem(tally.wrong, absl::StrCat("REST model '", sent.model, "': ", wrong));
      } else {
        ++tally.ok;
      }
      continue;
    }
    if (answer.status == 0) {
      tally.Problem(answer.timed_out ? tally.lost : tally.unexpected,
                    absl::StrCat("REST model '", sent.model, "': ", answer.error));
      continue;
    }
    // An error's body is {"error": "..."}: the message judged like a gRPC one.
    std::string message;
    const nlohmann::json body = nlohmann::json::parse(answer.body, nullptr, false);
    if (body.is_object() && body.contains("error") && body["error"].is_string()) {
      message = body["error"].get<std::string>();
    }
    JudgeError(tally, sent, CodeOfHttpStatus(answer.status),
               message.empty() ? "" : absl::StrCat("HTTP ", answer.status, ": ", message));
  }
}

void Soak::NativeStreamClient(int client, std::mt19937& random, Tally& tally) {
  const std::unique_ptr<v1::NeuronServing::Stub> stub =
      v1::NeuronServing::NewStub(Connect(address_));
  for (uint64_t n = 0; !Stopping(); ++n) {
    grpc::ClientContext context;
    SetDeadline(context, kPatientDeadline);
    const bool cancel = random() % 10 == 0;
    auto stream = stub->InferStream(&context);
    const std::map<std::string, v1::InferRequest> requests =
        WriteStreamRequests<v1::InferRequest>(*stream, tally, [&](int i) {
          return NativeRequest(PickModel(random), absl::StrCat("c", client, "-", n, "-", i),
                               RandomRows(random, 1));
        });
    if (cancel) context.TryCancel();
    std::set<std::string> answered;
    v1::InferResponse response;
    while (stream->Read(&response)) {
      const auto found = requests.find(response.id());
      if (found == requests.end()) {
        tally.Problem(tally.unexpected, "stream answer for an id never sent: " + response.id());
        continue;
      }
      if (!answered.insert(response.id()).second) {
        tally.Problem(tally.duplicated, "stream id answered twice: " + response.id());
        continue;
      }
      const Sent sent{found->second.model(), false, cancel};
      if (response.error().code() != 0) {
        JudgeError(tally, sent, static_cast<grpc::StatusCode>(response.error().code()),
                   response.error().message());
      } else if (std::string wrong = CompareOutput(found->second, response); !wrong.empty()) {
        tally.Problem(tally.wrong, absl::StrCat("stream model '", sent.model, "': ", wrong));
      } else {
        ++tally.ok;
      }
    }
    const grpc::Status status = stream->Finish();
    CountUnanswered(tally, requests.size() - answered.size(), cancel, status, "");
  }
}

void Soak::V2StreamClient(int client, std::mt19937& random, Tally& tally) {
  const std::unique_ptr<inference::GRPCInferenceService::Stub> stub =
      inference::GRPCInferenceService::NewStub(Connect(address_));
  for (uint64_t n = 0; !Stopping(); ++n) {
    grpc::ClientContext context;
    SetDeadline(context, kPatientDeadline);
    const bool cancel = random() % 10 == 0;
    auto stream = stub->ModelStreamInfer(&context);
    const std::map<std::string, inference::ModelInferRequest> requests =
        WriteStreamRequests<inference::ModelInferRequest>(*stream, tally, [&](int i) {
          return MakeV2Request(NativeRequest(
              PickModel(random), absl::StrCat("c", client, "-", n, "-", i), RandomRows(random, 1)));
        });
    if (cancel) context.TryCancel();
    std::set<std::string> answered;
    uint64_t answers = 0;
    inference::ModelStreamInferResponse response;
    while (stream->Read(&response)) {
      ++answers;
      if (!response.error_message().empty()) {
        // Which request it answers (and so its code) is not said: an error with a message is
        // counted as one, as a stream cancelled or ended by the daemon would have caused.
        ++tally.expected["v2 stream error"];
        continue;
      }
      const std::string& id = response.infer_response().id();
      const auto found = requests.find(id);
      if (found == requests.end()) {
        tally.Problem(tally.unexpected, "v2 stream answer for an id never sent: " + id);
      } else if (!answered.insert(id).second) {
        tally.Problem(tally.duplicated, "v2 stream id answered twice: " + id);
      } else if (std::string wrong = V2CompareOutput(found->second, response.infer_response());
                 !wrong.empty()) {
        tally.Problem(tally.wrong, "v2 stream: " + wrong);
      } else {
        ++tally.ok;
      }
    }
    const grpc::Status status = stream->Finish();
    if (answers > requests.size()) {
      tally.Problem(tally.duplicated, absl::StrCat("v2 stream: ", answers, " answers to ",
                                                   requests.size(), " requests"));
    } else {
      CountUnanswered(tally, requests.size() - answers, cancel, status, "v2 ");
    }
  }
}

void Soak::CountUnanswered(Tally& tally, uint64_t missing, bool cancelled,
                           const grpc::Status& status, const char* which) {
  if (missing == 0) return;
  if (cancelled) {
    tally.abandoned += missing;
  } else if (!status.ok() && !status.error_message().empty() &&
             status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) {
    tally.expected[absl::StrCat("stream ended, code ", status.error_code())] += missing;
  } else {
    tally.Problem(tally.lost,
                  absl::StrCat(which, "stream: ", missing, " answers missing; it ended with code ",
                               status.error_code(), ": ", status.error_message()));
  }
}

void Soak::SharedMemoryClient(bool v2, int client, std::mt19937& random, Tally& tally) {
  const client::Protocol protocol = v2 ? client::Protocol::kV2 : client::Protocol::kNative;
  client::ConnectOptions connect;
  connect.target = address_;
  absl::StatusOr<std::unique_ptr<client::Client>> connected = client::Client::Connect(connect);
  absl::StatusOr<client::SharedMemoryObject> object = client::SharedMemoryObject::Create(
      client::SharedMemoryObject::UniqueKey("neuron-serve-soak"), 2 * kRowBytes);
  const std::string region = absl::StrCat("soak-shm-", client);
  absl::Status registered =
      !connected.ok() ? connected.status()
      : !object.ok()
          ? object.status()
          : (*connected)->RegisterSharedMemory(region, object->key(), 0, 2 * kRowBytes, protocol);
  if (!registered.ok()) {
    tally.Problem(tally.unexpected, absl::StrCat("shared memory setup: ", registered.ToString()));
    return;
  }
  client::Client& library = **connected;
  const absl::Span<uint8_t> bytes = object->bytes();
  for (uint64_t n = 0; !Stopping(); ++n) {
    Sent sent{PickModel(random)};
    sent.short_deadline = random() % 10 == 0;
    const std::string input = RandomRows(random, 1);
    const client::NamedTensor tensor{
        kInputName,
        {1, kRowElements},
        {},
        "float32",
        absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(input.data()), input.size())};
    absl::StatusOr<client::NamedTensor> placed =
        client::WriteSharedMemoryInput(tensor, bytes, region, 0);
    if (!placed.ok()) {
      tally.Problem(tally.unexpected, placed.status().ToString());
      return;
    }
    std::fill(bytes.begin() + kRowBytes, bytes.end(), 0);  // no stale answer passes
    client::InferOptions options;
    options.protocol = protocol;
    options.timeout = sent.short_deadline ? kShortDeadline : kPatientDeadline;
    // A request the client gives up on may still run and write its output after the client
    // has moved on: as with Triton, the region is the client's to keep out of such a
    // request's way. A request with a 1 ms deadline therefore takes its output in the
    // answer; only requests the client waits for write into the region.
    if (!sent.short_deadline) {
      options.output_shared_memory[kOutputName] = {region, kRowBytes, kRowBytes};
    }
    ++tally.requests;
    absl::StatusOr<client::InferResult> result = library.Infer(sent.model, {*placed}, options);
    if (!result.ok()) {
      JudgeError(tally, sent, static_cast<grpc::StatusCode>(result.status().code()),
                 std::string(result.status().message()));
    } else if (std::memcmp(sent.short_deadline ? OutputBytes(*result) : bytes.data() + kRowBytes,
                           input.data(), kRowBytes) != 0) {
      tally.Problem(tally.wrong, absl::StrCat("shared memory: model '", sent.model,
                                              "' wrote an output that is not the input"));
    } else {
      ++tally.ok;
    }
  }
  (void)library.UnregisterSharedMemory(region, protocol);
}

const uint8_t* Soak::OutputBytes(const client::InferResult& result) {
  static const uint8_t kNone[kRowBytes] = {};
  const auto output = result.outputs.find(kOutputName);
  if (output == result.outputs.end() || output->second.bytes.size() != kRowBytes) return kNone;
  return output->second.bytes.data();
}

void Soak::CancellingClient(int client, std::mt19937& random, Tally& tally) {
  const std::unique_ptr<v1::NeuronServing::Stub> native =
      v1::NeuronServing::NewStub(Connect(address_));
  const std::unique_ptr<inference::GRPCInferenceService::Stub> v2 =
      inference::GRPCInferenceService::NewStub(Connect(address_));
  for (uint64_t n = 0; !Stopping(); ++n) {
    Sent sent{PickModel(random), false, true};
    const v1::InferRequest request =
        NativeRequest(sent.model, absl::StrCat("c", client, "-", n), RandomRows(random, 1));
    const inference::ModelInferRequest v2_request = MakeV2Request(request);
    v1::InferResponse response;
    inference::ModelInferResponse v2_response;
    grpc::ClientContext context;
    SetDeadline(context, kPatientDeadline);
    absl::Notification ended;
    grpc::Status status;
    auto done = [&](grpc::Status result) {
      status = std::move(result);
      ended.Notify();
    };
    ++tally.requests;
    if (n % 2 == 0) {
      native->async()->Infer(&context, &request, &response, done);
    } else {
      v2->async()->ModelInfer(&context, &v2_request, &v2_response, done);
    }
    absl::SleepFor(absl::Microseconds(random() % 2000));
    context.TryCancel();
    ended.WaitForNotification();
    if (!status.ok()) {
      JudgeError(tally, sent, status.error_code(), status.error_message());
      continue;
    }
    const std::string wrong =
        n % 2 == 0 ? CompareOutput(request, response) : V2CompareOutput(v2_request, v2_response);
    if (!wrong.empty()) {
      tally.Problem(tally.wrong, absl::StrCat("model '", sent.model, "': ", wrong));
    } else {
      ++tally.ok;
    }
  }
}

}  // namespace neuronserve::bench::soak
