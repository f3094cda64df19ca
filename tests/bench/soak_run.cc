#include "tests/bench/soak_run.h"

#include <netdb.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "client/lib/client.h"
#include "client/lib/shared_memory_tensors.h"
#include "client/shared_memory/shared_memory_object.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "inference/grpc_service.grpc.pb.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "tests/bench/daemon_models.h"
#include "tests/bench/http_load.h"
#include "tests/bench/payload.h"
#include "tests/prometheus/prometheus_text_parser.h"
#include "tests/support/child_process.h"
#include "tests/support/sanitizer_report.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::bench {
namespace {

using ::neuronserve::testing::ChildProcess;
using ::neuronserve::testing::ChildSpec;
using ::neuronserve::testing::ParsePrometheusText;
using ::neuronserve::testing::ProcessStatusBytes;
using ::neuronserve::testing::PromFamily;
using ::neuronserve::testing::PromSample;
using ::neuronserve::testing::SanitizerReport;
using ::neuronserve::testing::TempDir;

constexpr uint64_t kRowBytes = 4096;  // float32 [rows, 1024]
constexpr uint32_t kRowElements = kRowBytes / 4;
constexpr int kCores = 8;
// Long enough that only a lost answer misses it; the short one is the 1 ms.
constexpr absl::Duration kPatientDeadline = absl::Seconds(30);
constexpr absl::Duration kShortDeadline = absl::Milliseconds(1);
constexpr int kStreamRequests = 8;
constexpr int kChurnModels = 2;
constexpr char kStable[] = "soak-stable";
constexpr char kBatched[] = "soak-batched";

std::string ChurnName(int index) { return absl::StrCat("soak-churn-", index); }

enum class Kind {
  kNativeUnary,
  kV2Unary,
  kRest,
  kNativeStream,
  kV2Stream,
  kNativeSharedMemory,
  kV2SharedMemory,
  kCanceller,
  kBatched,
  kLifecycle,
};

// The mix, repeated every 16 clients: with 32, 4 native unary, 4 v2 unary, 6 REST, 2 + 2
// streams, 2 + 2 shared memory, 2 cancellers, 6 batched and 2 lifecycle clients.
constexpr Kind kMix[16] = {Kind::kNativeUnary,
                           Kind::kV2Unary,
                           Kind::kRest,
                           Kind::kNativeStream,
                           Kind::kV2Stream,
                           Kind::kBatched,
                           Kind::kNativeSharedMemory,
                           Kind::kV2SharedMemory,
                           Kind::kCanceller,
                           Kind::kRest,
                           Kind::kNativeUnary,
                           Kind::kV2Unary,
                           Kind::kBatched,
                           Kind::kLifecycle,
                           Kind::kRest,
                           Kind::kBatched};

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

// What the clients of one kind saw. Requests are counted when sent; each ends in exactly one
// of ok, wrong, lost, expected (an error the traffic can cause: by code), unexpected, or
// unanswered-by-design (a stream cancelled midway, a REST client that hung up).
struct Tally {
  uint64_t requests = 0;
  uint64_t ok = 0;
  uint64_t wrong = 0;       // OK with an answer that is not the input
  uint64_t lost = 0;        // no answer by the patient deadline, or a stream answer missing
  uint64_t duplicated = 0;  // a stream answer for an id already answered
  uint64_t unexpected = 0;  // an error this traffic cannot cause, or one without a message
  uint64_t abandoned = 0;   // the client left on purpose before the answer
  std::map<std::string, uint64_t> expected;          // by code
  std::map<std::string, std::string> first_message;  // of each expected code
  std::vector<std::string> examples;                 // the first problems, in full

  void Problem(uint64_t& counter, std::string what) {
    ++counter;
    if (examples.size() < 4) examples.push_back(std::move(what));
  }
  uint64_t Problems() const { return wrong + lost + duplicated + unexpected; }
  void Add(const Tally& other) {
    requests += other.requests;
    ok += other.ok;
    wrong += other.wrong;
    lost += other.lost;
    duplicated += other.duplicated;
    unexpected += other.unexpected;
    abandoned += other.abandoned;
    for (const auto& [code, count] : other.expected) expected[code] += count;
    first_message.insert(other.first_message.begin(), other.first_message.end());
    for (const std::string& example : other.examples) {
      if (examples.size() < 8) examples.push_back(example);
    }
  }
};

// What a request was sent as, for judging its answer.
struct Sent {
  std::string model;
  bool short_deadline = false;
  bool cancelled = false;  // the client cancelled it
};

bool IsChurnModel(const std::string& model) { return model.rfind("soak-churn-", 0) == 0; }

// Judges an error answer. The traffic can cause: a model being replaced or unloaded (NOT_FOUND
// for a churned model only, UNAVAILABLE, FAILED_PRECONDITION), an injected execution fault
// (INTERNAL, RESOURCE_EXHAUSTED), a full queue (UNAVAILABLE), a 1 ms deadline
// (DEADLINE_EXCEEDED) and a cancellation (CANCELLED). A patient request past its deadline was
// not answered: lost. Anything else, or any error without a message, is a problem.
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

// REST statuses as the gRPC codes they stand for (the daemon's own mapping), so that one
// judgement serves both.
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

// `rows` rows of finite floats, each request's own.
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

// A REST client that hangs up: sends the whole request on a connection of its own and closes
// it `wait` later, before the answer could have been read.
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

class Soak {
 public:
  explicit Soak(const SoakOptions& options)
      : options_(options), faults_file_(dir_.Join("faults")) {}

  int Run() {
    if (options_.clients < 16) {
      std::fprintf(stderr, "soak: --soak-clients must be at least 16 (the mix repeats every 16)\n");
      return 1;
    }
    if (!StartDaemon() || !LoadFixedModels()) return Finish(false);
    PrintMix();
    stop_at_ = absl::Now() + options_.duration;
    std::vector<Tally> tallies(options_.clients);
    std::vector<std::thread> threads;
    int lifecycle_ordinal = 0;
    for (int i = 0; i < options_.clients; ++i) {
      const Kind kind = kMix[i % 16];
      const int ordinal = kind == Kind::kLifecycle ? lifecycle_ordinal++ : 0;
      threads.emplace_back([this, i, kind, ordinal, &tallies] {
        std::mt19937 random(options_.seed * 1000 + static_cast<uint32_t>(i));
        RunClient(kind, i, ordinal % kChurnModels, random, tallies[i]);
      });
    }
    std::thread faults([this] { WriteFaults(); });
    Monitor();
    for (std::thread& thread : threads) thread.join();
    faults.join();
    // Before the end's scrapes, whose text (every retired version's series, up to
    // --max-retired-metric-versions of them) is a transient of its own, and while every model
    // is still loaded: the RSS as the traffic ended, then polled (at most 15 s) until it is
    // within the bound, since what the last bursts freed goes back to the kernel at the
    // daemon's next --malloc-trim-interval (10 s). A leak stays.
    traffic_end_rss_ = ProcessStatusBytes(daemon_->pid(), "VmRSS");
    settled_rss_ = traffic_end_rss_;
    const absl::Time settle_deadline = absl::Now() + absl::Seconds(15);
    while (warm_rss_.has_value() && settled_rss_ > *warm_rss_ + options_.rss_growth_bytes &&
           absl::Now() < settle_deadline) {
      absl::SleepFor(absl::Milliseconds(250));
      settled_rss_ = ProcessStatusBytes(daemon_->pid(), "VmRSS");
    }
    std::map<Kind, Tally> by_kind;
    for (int i = 0; i < options_.clients; ++i) by_kind[kMix[i % 16]].Add(tallies[i]);
    const bool answers_held = Reckon(by_kind);
    const bool state_held = CheckQuiescentState();
    return Finish(answers_held && state_held);
  }

 private:
  bool Stopping() const { return absl::Now() >= stop_at_; }

  bool StartDaemon() {
    WriteFaultRules("");
    std::vector<std::string> argv = {
        options_.daemon, "--listen=127.0.0.1:0", "--http-listen=127.0.0.1:0",
        "--nrt-library=" + options_.nrt_library, "--allow-client-shared-memory"};
    argv.insert(argv.end(), options_.daemon_args.begin(), options_.daemon_args.end());
    std::map<std::string, std::string> env = {{"NRTSIM_CORES", std::to_string(kCores)},
                                              {"NRTSIM_FAULTS_FILE", faults_file_}};
    // The simulator's core locks: the bench's private directory (tests/sim_lock_dir).
    if (const char* lock_dir = std::getenv("NRTSIM_LOCK_DIR"); lock_dir != nullptr) {
      env.emplace("NRTSIM_LOCK_DIR", lock_dir);
    }
    daemon_ = std::make_unique<ChildProcess>(ChildSpec{
        argv, env, {"NEURON_LOGICAL_NC_CONFIG"}, {"NRTSIM_", "NEURON_RT_", "NEURON_SERVE_"}});
    std::optional<std::string> address = daemon_->WaitUntilListening(absl::Seconds(30));
    if (!address.has_value()) {
      std::printf("soak: the daemon did not start; its log:\n%s\n", daemon_->Stderr().c_str());
      return false;
    }
    address_ = *address;
    http_address_ = HttpAddressInLog(daemon_->Stderr());
    if (http_address_.empty()) {
      std::printf("soak: the daemon logged no HTTP endpoint\n");
      return false;
    }
    stub_ = v1::NeuronServing::NewStub(Connect(address_));
    return true;
  }

  bool LoadFixedModels() {
    IdentityModel stable{kStable, kRowBytes, 200, 2};
    IdentityModel batched{kBatched, kRowBytes, 0, 1};
    batched.variants = {{1, 150}, {4, 300}};
    batched.max_queue_delay_us = 2000;
    for (const IdentityModel& model : {stable, batched}) {
      const grpc::Status loaded = LoadIdentityModel(*stub_, model);
      if (!loaded.ok()) {
        std::printf("soak: loading '%s' failed, code %d: %s\n", model.name.c_str(),
                    loaded.error_code(), loaded.error_message().c_str());
        return false;
      }
    }
    return true;
  }

  void PrintMix() const {
    std::map<Kind, int> counts;
    for (int i = 0; i < options_.clients; ++i) ++counts[kMix[i % 16]];
    std::vector<std::string> parts;
    for (const auto& [kind, count] : counts)
      parts.push_back(absl::StrCat(count, " ", KindName(kind)));
    std::printf(
        "\n== soak: %s, %d clients (%s) against one daemon on the simulator (%d cores), "
        "execution faults from NRTSIM_FAULTS_FILE ==\n",
        absl::FormatDuration(options_.duration).c_str(), options_.clients,
        absl::StrJoin(parts, ", ").c_str(), kCores);
    std::fflush(stdout);
  }

  // A model for a request: mostly the stable one, else a churned one that may be absent.
  static std::string PickModel(std::mt19937& random) {
    const uint32_t pick = random() % 4;
    return pick < 2 ? kStable : ChurnName(static_cast<int>(pick - 2));
  }

  void RunClient(Kind kind, int client, int churn, std::mt19937& random, Tally& tally) {
    switch (kind) {
      case Kind::kNativeUnary:
      case Kind::kV2Unary:
      case Kind::kBatched:
        return UnaryClient(kind, client, random, tally);
      case Kind::kRest:
        return RestClient(client, random, tally);
      case Kind::kNativeStream:
        return NativeStreamClient(client, random, tally);
      case Kind::kV2Stream:
        return V2StreamClient(client, random, tally);
      case Kind::kNativeSharedMemory:
      case Kind::kV2SharedMemory:
        return SharedMemoryClient(kind == Kind::kV2SharedMemory, client, random, tally);
      case Kind::kCanceller:
        return CancellingClient(client, random, tally);
      case Kind::kLifecycle:
        return LifecycleClient(churn, random);
    }
  }

  // Unary Infer (native, or ModelInfer for v2; the batched kind alternates), a tenth with a 1 ms
  // deadline.
  void UnaryClient(Kind kind, int client, std::mt19937& random, Tally& tally) {
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

  // REST /v2/models/<model>/infer with binary data on a kept-alive connection; a tenth of the
  // requests go on a connection of their own that hangs up 0-2 ms after sending.
  void RestClient(int client, std::mt19937& random, Tally& tally) {
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

  // Writes a stream's kStreamRequests requests, each made by make(i), and closes the writing
  // side. Stops early when the daemon ends the stream (its Finish says why). Returns the
  // requests written, by id.
  template <typename Request, typename Stream, typename MakeRequest>
  static std::map<std::string, Request> WriteStreamRequests(Stream& stream, Tally& tally,
                                                            MakeRequest make) {
    std::map<std::string, Request> requests;
    for (int i = 0; i < kStreamRequests; ++i) {
      Request request = make(i);
      if (!stream.Write(request)) break;
      ++tally.requests;
      requests.emplace(request.id(), std::move(request));
    }
    stream.WritesDone();
    return requests;
  }

  // InferStream: 8 requests (each to a model picked for it), then every answer read: each id
  // answered once; a tenth of the streams are cancelled after the writes.
  void NativeStreamClient(int client, std::mt19937& random, Tally& tally) {
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

  // ModelStreamInfer, as above. Its errors carry no id (Triton's form), so the count of answers
  // and the ids of the OK ones are what can be checked.
  void V2StreamClient(int client, std::mt19937& random, Tally& tally) {
    const std::unique_ptr<inference::GRPCInferenceService::Stub> stub =
        inference::GRPCInferenceService::NewStub(Connect(address_));
    for (uint64_t n = 0; !Stopping(); ++n) {
      grpc::ClientContext context;
      SetDeadline(context, kPatientDeadline);
      const bool cancel = random() % 10 == 0;
      auto stream = stub->ModelStreamInfer(&context);
      const std::map<std::string, inference::ModelInferRequest> requests =
          WriteStreamRequests<inference::ModelInferRequest>(*stream, tally, [&](int i) {
            return MakeV2Request(NativeRequest(PickModel(random),
                                               absl::StrCat("c", client, "-", n, "-", i),
                                               RandomRows(random, 1)));
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

  // The requests of a stream that got no answer: left on purpose when the client cancelled the
  // stream; the daemon's answer when it ended the stream with an error that says why; else lost.
  static void CountUnanswered(Tally& tally, uint64_t missing, bool cancelled,
                              const grpc::Status& status, const char* which) {
    if (missing == 0) return;
    if (cancelled) {
      tally.abandoned += missing;
    } else if (!status.ok() && !status.error_message().empty() &&
               status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) {
      tally.expected[absl::StrCat("stream ended, code ", status.error_code())] += missing;
    } else {
      tally.Problem(tally.lost, absl::StrCat(which, "stream: ", missing,
                                             " answers missing; it ended with code ",
                                             status.error_code(), ": ", status.error_message()));
    }
  }

  // Inputs and outputs in a shared-memory region of the client's (the client library's own
  // helpers), registered once; each answer's bytes are read back from the region.
  void SharedMemoryClient(bool v2, int client, std::mt19937& random, Tally& tally) {
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

  // The output's bytes when they came in the answer (a null answer compares unequal to none:
  // a zero row of the right size).
  static const uint8_t* OutputBytes(const client::InferResult& result) {
    static const uint8_t kNone[kRowBytes] = {};
    const auto output = result.outputs.find(kOutputName);
    if (output == result.outputs.end() || output->second.bytes.size() != kRowBytes) return kNone;
    return output->second.bytes.data();
  }

  // Calls (native and v2 in turn) cancelled 0-2 ms after they start, on gRPC's callback API.
  void CancellingClient(int client, std::mt19937& random, Tally& tally) {
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

  // One churned model: loaded, replaced under a new version label (7 times in 10) or unloaded,
  // every 50-300 ms. Load failures the faults cause are expected; they are counted.
  void LifecycleClient(int churn, std::mt19937& random) {
    const std::string name = ChurnName(churn);
    bool loaded = false;
    for (uint64_t n = 1; !Stopping(); ++n) {
      if (loaded && random() % 10 >= 7) {
        const grpc::Status status = UnloadModel(*stub_, name);
        loaded = !status.ok();
        ++(status.ok() ? unloads_ : failed_lifecycle_);
      } else {
        IdentityModel model{name, kRowBytes, 100, 1};
        model.version = absl::StrCat("v", options_.reuse_labels ? 1 + n % 4 : n);
        const grpc::Status status = LoadIdentityModel(*stub_, model);
        if (status.ok()) {
          loaded = true;
          ++loads_;
        } else {
          ++failed_lifecycle_;
          if (status.error_message().empty()) {
            absl::MutexLock lock(&problems_mutex_);
            problems_.push_back(absl::StrCat("loading '", name, "' failed without a message"));
          }
        }
      }
      absl::SleepFor(absl::Milliseconds(50 + random() % 250));
    }
  }

  // Rewrites NRTSIM_FAULTS_FILE every 200-500 ms: a few executions fail with a transient status
  // (retried once on another replica, else the request's error), and now and then one load.
  void WriteFaults() {
    std::mt19937 random(options_.seed);
    const std::vector<std::string>& statuses = options_.fault_statuses;
    while (!Stopping() && !statuses.empty()) {
      std::string rules = absl::StrCat("nrt_execute:", statuses[random() % statuses.size()],
                                       ":after=", random() % 50, ":count=", 1 + random() % 3, "\n");
      if (random() % 5 == 0) absl::StrAppend(&rules, "nrt_load:NRT_RESOURCE:count=1\n");
      WriteFaultRules(rules);
      ++fault_files_;
      absl::SleepFor(absl::Milliseconds(200 + random() % 300));
    }
    WriteFaultRules("");
  }

  void WriteFaultRules(const std::string& rules) {
    const std::string temp = faults_file_ + ".tmp";
    FILE* file = std::fopen(temp.c_str(), "w");
    if (file == nullptr) return;
    std::fputs(rules.c_str(), file);
    std::fclose(file);
    std::rename(temp.c_str(), faults_file_.c_str());
  }

  // Every second until the end: the models' states (a FAILED model must say why) and the
  // daemon's RSS; progress every 10 s.
  void Monitor() {
    const absl::Time start = absl::Now();
    const absl::Time warm_at = start + std::min(options_.warm_rss_at, options_.duration / 2);
    absl::Time next_line = start + absl::Seconds(10);
    // The first scrape at once; then, as Prometheus would, every scrape_every (the series of
    // replaced versions are dropped at the scrape after the one that showed their final values).
    absl::Time next_scrape = start;
    while (!Stopping()) {
      if (absl::Now() >= next_scrape) {
        if (!Scrape().has_value()) {
          absl::MutexLock lock(&problems_mutex_);
          problems_.push_back("a scrape of /metrics failed during the traffic");
        }
        next_scrape = options_.scrape_every > absl::ZeroDuration()
                          ? next_scrape + options_.scrape_every
                          : absl::InfiniteFuture();
      }
      absl::SleepFor(std::min(absl::Seconds(1), stop_at_ - absl::Now()));
      CheckModelStates();
      const uint64_t rss = ProcessStatusBytes(daemon_->pid(), "VmRSS");
      if (!warm_rss_.has_value() && absl::Now() >= warm_at) warm_rss_ = rss;
      if (warm_rss_.has_value()) max_rss_after_warmup_ = std::max(max_rss_after_warmup_, rss);
      if (absl::Now() >= next_line) {
        std::printf("soak: %4.0f s  RSS %.1f MiB  loads %llu  unloads %llu  fault files %llu\n",
                    absl::ToDoubleSeconds(absl::Now() - start), rss / 1048576.0,
                    static_cast<unsigned long long>(loads_.load()),
                    static_cast<unsigned long long>(unloads_.load()),
                    static_cast<unsigned long long>(fault_files_.load()));
        std::fflush(stdout);
        next_line += absl::Seconds(10);
      }
    }
  }

  void CheckModelStates() {
    v1::ListModelsResponse list;
    grpc::ClientContext context;
    SetDeadline(context, kPatientDeadline);
    const grpc::Status status = stub_->ListModels(&context, v1::ListModelsRequest(), &list);
    absl::MutexLock lock(&problems_mutex_);
    if (!status.ok()) {
      problems_.push_back(absl::StrCat("ListModels failed, code ", status.error_code(), ": ",
                                       status.error_message()));
      return;
    }
    for (const v1::ModelStatus& model : list.models()) {
      if (model.state() == v1::MODEL_STATE_FAILED) {
        ++failed_models_seen_;
        if (model.error().empty()) {
          problems_.push_back(
              absl::StrCat("model '", model.name(), "' is FAILED without a message"));
        }
      }
    }
  }

  bool Reckon(const std::map<Kind, Tally>& by_kind) {
    std::printf("\n%-14s %9s %9s %7s %5s %5s %5s %5s %9s  expected errors\n", "clients", "requests",
                "ok", "wrong", "lost", "dup", "unexp", "left", "");
    Tally all;
    for (const auto& [kind, tally] : by_kind) {
      if (kind == Kind::kLifecycle) continue;
      PrintTally(KindName(kind), tally);
      all.Add(tally);
    }
    PrintTally("all", all);
    for (const auto& [code, message] : all.first_message) {
      std::printf("  first %s: %s\n", code.c_str(), message.c_str());
    }
    for (const std::string& example : all.examples) std::printf("  problem: %s\n", example.c_str());
    std::printf(
        "lifecycle: %llu loads and replacements, %llu unloads, %llu refused (faults, "
        "replacement in progress); %llu fault files written; FAILED seen %llu times\n",
        static_cast<unsigned long long>(loads_.load()),
        static_cast<unsigned long long>(unloads_.load()),
        static_cast<unsigned long long>(failed_lifecycle_.load()),
        static_cast<unsigned long long>(fault_files_.load()), FailedModelsSeen());
    bool held = all.Problems() == 0 && all.ok > 0;
    // The daemon's side of "exactly once": it counted no more answers than were sent.
    const std::optional<std::map<std::string, double>> answered = AnsweredByProtocol();
    if (!answered.has_value()) {
      held = false;
    } else {
      uint64_t sent_grpc = 0;
      uint64_t sent_rest = 0;
      for (const auto& [kind, tally] : by_kind) {
        (kind == Kind::kRest ? sent_rest : sent_grpc) += tally.requests;
      }
      const double counted_grpc = Get(*answered, "native") + Get(*answered, "v2");
      const double counted_rest = Get(*answered, "v2_http");
      std::printf(
          "the daemon counted %.0f gRPC answers (%llu sent) and %.0f REST answers (%llu "
          "sent)\n",
          counted_grpc, static_cast<unsigned long long>(sent_grpc), counted_rest,
          static_cast<unsigned long long>(sent_rest));
      if (counted_grpc > static_cast<double>(sent_grpc) ||
          counted_rest > static_cast<double>(sent_rest)) {
        std::printf("soak: FAILED: the daemon counted more answers than requests were sent\n");
        held = false;
      }
    }
    {
      absl::MutexLock lock(&problems_mutex_);
      for (const std::string& problem : problems_) std::printf("  problem: %s\n", problem.c_str());
      held = held && problems_.empty();
    }
    std::printf(
        "answers: %llu requests, %llu lost or duplicated, %llu wrong, %llu unexpected "
        "errors: %s\n",
        static_cast<unsigned long long>(all.requests),
        static_cast<unsigned long long>(all.lost + all.duplicated),
        static_cast<unsigned long long>(all.wrong), static_cast<unsigned long long>(all.unexpected),
        held ? "held" : "FAILED");
    return held;
  }

  unsigned long long FailedModelsSeen() {
    absl::MutexLock lock(&problems_mutex_);
    return failed_models_seen_;
  }

  static double Get(const std::map<std::string, double>& values, const std::string& key) {
    const auto found = values.find(key);
    return found == values.end() ? 0 : found->second;
  }

  static void PrintTally(const char* name, const Tally& tally) {
    std::vector<std::string> codes;
    for (const auto& [code, count] : tally.expected)
      codes.push_back(absl::StrCat(code, ": ", count));
    std::printf(
        "%-14s %9llu %9llu %7llu %5llu %5llu %5llu %5llu %9s  %s\n", name,
        static_cast<unsigned long long>(tally.requests), static_cast<unsigned long long>(tally.ok),
        static_cast<unsigned long long>(tally.wrong), static_cast<unsigned long long>(tally.lost),
        static_cast<unsigned long long>(tally.duplicated),
        static_cast<unsigned long long>(tally.unexpected),
        static_cast<unsigned long long>(tally.abandoned), "", absl::StrJoin(codes, ", ").c_str());
  }

  std::optional<std::vector<PromFamily>> Scrape() {
    HttpConnection connection(http_address_);
    connection.set_receive_timeout(kPatientDeadline);
    HttpPost get;
    get.method = "GET";
    get.path = "/metrics";
    const HttpAnswer answer = connection.Send(get);
    if (answer.status != 200) {
      std::printf("soak: /metrics answered %d %s\n", answer.status, answer.error.c_str());
      return std::nullopt;
    }
    absl::StatusOr<std::vector<PromFamily>> families = ParsePrometheusText(answer.body);
    if (!families.ok()) {
      std::printf("soak: /metrics does not parse: %s\n", families.status().ToString().c_str());
      return std::nullopt;
    }
    return *std::move(families);
  }

  // neuronserve_requests_by_protocol_total, by its protocol label. The first scrape after the
  // traffic: it also prints what the replaced versions left waiting for it.
  std::optional<std::map<std::string, double>> AnsweredByProtocol() {
    std::optional<std::vector<PromFamily>> families = Scrape();
    if (!families.has_value()) return std::nullopt;
    std::printf(
        "at the end: %.0f retired versions' series waiting for this scrape, %.0f dropped "
        "unscraped; the allocator's bytes in use %.1f MiB\n",
        Total(*families, "neuronserve_retired_metric_versions"),
        Total(*families, "neuronserve_retired_versions_unscraped_total"),
        Total(*families, "neuronserve_heap_in_use_bytes") / 1048576.0);
    std::map<std::string, double> by_protocol;
    for (const PromFamily& family : *families) {
      if (family.name != "neuronserve_requests_by_protocol_total") continue;
      for (const PromSample& sample : family.samples) {
        const auto protocol = sample.labels.find("protocol");
        if (protocol != sample.labels.end()) by_protocol[protocol->second] += sample.value;
      }
    }
    return by_protocol;
  }

  // The sum of a gauge's samples.
  static double Total(const std::vector<PromFamily>& families, const std::string& name) {
    double total = 0;
    for (const PromFamily& family : families) {
      if (family.name != name) continue;
      for (const PromSample& sample : family.samples) total += sample.value;
    }
    return total;
  }

  // After the traffic: queues empty, device memory what the loaded models hold (and 0 once
  // they are unloaded), RSS within its bound.
  bool CheckQuiescentState() {
    const uint64_t scraped_rss = ProcessStatusBytes(daemon_->pid(), "VmRSS");  // after a scrape
    bool held = true;
    // Queues and held bytes drain by themselves (a hung-up REST request is withdrawn at once,
    // but the last answers may still be on their way): polled with a deadline.
    const absl::Time deadline = absl::Now() + absl::Seconds(20);
    std::string queues;
    for (;;) {
      std::optional<std::vector<PromFamily>> families = Scrape();
      if (families.has_value()) {
        const double depth = Total(*families, "neuronserve_queue_depth");
        const double in_flight = Total(*families, "neuronserve_executions_in_flight");
        const double bytes = Total(*families, "neuronserve_queued_request_bytes");
        queues = absl::StrCat("queue depth ", depth, ", executions in flight ", in_flight,
                              ", queued request bytes ", bytes);
        if (depth == 0 && in_flight == 0 && bytes == 0) break;
      }
      if (absl::Now() >= deadline) {
        held = false;
        break;
      }
      absl::SleepFor(absl::Milliseconds(50));
    }
    std::printf("queues after the traffic: %s: %s\n", queues.c_str(), held ? "empty" : "FAILED");

    // Device memory: per core, the tensor sets of the replicas on it (identity models have no
    // constants), against what the runtime says is in use.
    std::map<uint32_t, uint64_t> expected;
    v1::ListModelsResponse list;
    {
      grpc::ClientContext context;
      SetDeadline(context, kPatientDeadline);
      if (!stub_->ListModels(&context, v1::ListModelsRequest(), &list).ok()) held = false;
    }
    std::vector<std::string> loaded;
    for (const v1::ModelStatus& model : list.models()) {
      loaded.push_back(absl::StrCat(model.name(), " ", v1::ModelState_Name(model.state())));
      if (model.state() != v1::MODEL_STATE_READY) continue;
      for (const v1::ModelReplica& replica : model.replicas()) {
        if (!replica.cores().empty()) expected[replica.cores(0)] += replica.tensor_bytes();
      }
    }
    const std::optional<std::map<uint32_t, uint64_t>> used = DeviceMemoryUsed();
    const bool memory_held = used.has_value() && MemoryMatches(expected, *used);
    std::printf("device memory with %s loaded: %s\n", absl::StrJoin(loaded, ", ").c_str(),
                memory_held ? "each core's use equals its replicas' tensor sets" : "FAILED");
    held = held && memory_held;
    for (const v1::ModelStatus& model : list.models()) {
      const grpc::Status status = UnloadModel(*stub_, model.name());
      if (!status.ok()) {
        std::printf("soak: unloading '%s' failed: %s\n", model.name().c_str(),
                    status.error_message().c_str());
        held = false;
      }
    }
    const std::map<uint32_t, uint64_t> none;
    std::optional<std::map<uint32_t, uint64_t>> after = DeviceMemoryUsed();
    const bool freed = after.has_value() && MemoryMatches(none, *after);
    std::printf("device memory after unloading every model: %s\n",
                freed ? "0 on every core" : "FAILED");
    held = held && freed;

    if (warm_rss_.has_value()) {
      const uint64_t allowed = options_.rss_growth_bytes;
      // The end against 10 s, as a leak shows; in between, a burst (queues filling while
      // faults stall the cores, up to --max-queue and --max-queued-bytes) may pass the bound.
      const bool bounded = !options_.check_rss || settled_rss_ <= *warm_rss_ + allowed;
      std::printf(
          "daemon RSS: %.1f MiB at %.0f s, %.1f MiB at most after it, %.1f MiB as the traffic "
          "ended and %.1f MiB once settled; bound %.1f MiB: %s (%.1f MiB after the end's "
          "first scrape)\n",
          *warm_rss_ / 1048576.0,
          absl::ToDoubleSeconds(std::min(options_.warm_rss_at, options_.duration / 2)),
          max_rss_after_warmup_ / 1048576.0, traffic_end_rss_ / 1048576.0,
          settled_rss_ / 1048576.0, (*warm_rss_ + allowed) / 1048576.0,
          !options_.check_rss ? "not checked"
          : bounded           ? "held"
                              : "FAILED",
          scraped_rss / 1048576.0);
      held = held && bounded;
    }
    return held;
  }

  std::optional<std::map<uint32_t, uint64_t>> DeviceMemoryUsed() {
    v1::EnumerateResponse cores;
    grpc::ClientContext context;
    SetDeadline(context, kPatientDeadline);
    if (!stub_->Enumerate(&context, v1::EnumerateRequest(), &cores).ok()) return std::nullopt;
    std::map<uint32_t, uint64_t> used;
    for (const v1::NeuronCore& core : cores.cores()) {
      if (core.memory_used_bytes() != 0) used[core.index()] = core.memory_used_bytes();
    }
    return used;
  }

  static bool MemoryMatches(const std::map<uint32_t, uint64_t>& expected,
                            const std::map<uint32_t, uint64_t>& used) {
    bool same = true;
    std::set<uint32_t> cores;
    for (const auto& [core, bytes] : expected) cores.insert(core);
    for (const auto& [core, bytes] : used) cores.insert(core);
    for (uint32_t core : cores) {
      const uint64_t want = expected.count(core) ? expected.at(core) : 0;
      const uint64_t have = used.count(core) ? used.at(core) : 0;
      if (want != have) {
        std::printf("  core %u: %llu bytes in use, the loaded replicas hold %llu\n", core,
                    static_cast<unsigned long long>(have), static_cast<unsigned long long>(want));
        same = false;
      }
    }
    return same;
  }

  int Finish(bool held) {
    if (daemon_ != nullptr) {
      const int code = daemon_->StopWith(SIGTERM, absl::Seconds(30));
      if (code != 0) {
        // A sanitizer's report is shown whole, on stderr, by ChildProcess (from its
        // `==PID==ERROR:` line): its head is what a tail would cut.
        if (!SanitizerReport(daemon_->Stderr()).empty()) {
          std::printf("soak: the daemon exited with %d, stopped by a sanitizer (its report is "
                      "printed whole on stderr)\n",
                      code);
        } else {
          std::printf("soak: the daemon exited with %d; the end of its log:\n%s\n", code,
                      TailOf(daemon_->Stderr()).c_str());
        }
        held = false;
      }
    }
    std::printf("soak: %s\n", held ? "every check held" : "FAILED");
    return held ? 0 : 1;
  }

  static std::string TailOf(const std::string& log) {
    constexpr size_t kTail = 8192;
    return log.size() <= kTail ? log : log.substr(log.size() - kTail);
  }

  const SoakOptions options_;
  const TempDir dir_;
  const std::string faults_file_;
  std::unique_ptr<ChildProcess> daemon_;
  std::string address_;
  std::string http_address_;
  std::unique_ptr<v1::NeuronServing::Stub> stub_;  // lifecycle and monitoring
  absl::Time stop_at_ = absl::InfiniteFuture();

  std::atomic<uint64_t> loads_{0};
  std::atomic<uint64_t> unloads_{0};
  std::atomic<uint64_t> failed_lifecycle_{0};
  std::atomic<uint64_t> fault_files_{0};
  // The monitor's (its thread only, read after it returns).
  std::optional<uint64_t> warm_rss_;
  uint64_t max_rss_after_warmup_ = 0;
  uint64_t traffic_end_rss_ = 0;  // as the clients ended, before the end's scrapes
  uint64_t settled_rss_ = 0;      // then, within the bound or after 15 s
  absl::Mutex problems_mutex_;
  std::vector<std::string> problems_ ABSL_GUARDED_BY(problems_mutex_);
  uint64_t failed_models_seen_ ABSL_GUARDED_BY(problems_mutex_) = 0;
};

}  // namespace

int RunSoak(const SoakOptions& options) { return Soak(options).Run(); }

}  // namespace neuronserve::bench
