// Cancellation frees the queue slot at once, on every front end, through the real daemon: a
// model whose queue holds one request (--max-queue=1) has one executing and one queued; the
// queued one's client goes away (a native Infer, a v2 ModelInfer or a native stream cancelled
// with TryCancel, a REST client that closes its connection), and a new request is admitted
// within 100 ms, where before it waited for the worker to reach the cancelled one (seconds). And
// overload: with more request bytes than --max-queued-bytes allows, requests are answered
// UNAVAILABLE (REST 503 with Retry-After) at once, naming the flag, and are admitted again once the
// queue drains.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/shm_object.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace cancellation_e2e_test {
namespace {

using ::testing::HasSubstr;

// Long enough that the executing request outlasts every check of a cancellation test (under a
// sanitizer, beside other tests), short enough that the test does not wait long for it at the
// end.
constexpr uint64_t kExecutionUs = 3000000;
constexpr int kFloats = 4;

v1::InferRequest NativeRequest() {
  v1::InferRequest request;
  request.set_model("slow");
  AddInput(request, "input", {1, kFloats}, {1, 2, 3, 4}, TensorForm::kRaw);
  return request;
}

inference::ModelInferRequest V2Request() {
  inference::ModelInferRequest request;
  request.set_model_name("slow");
  inference::ModelInferRequest::InferInputTensor* input = request.add_inputs();
  input->set_name("input");
  input->set_datatype("FP32");
  input->add_shape(1);
  input->add_shape(kFloats);
  for (int i = 0; i < kFloats; ++i) input->mutable_contents()->add_fp32_contents(float(i));
  return request;
}

// A daemon on the simulator serving "slow" (identity of `floats` float32, `execution_us` per
// execution, one replica, unpipelined: one execution at a time) with `flags`.
struct SlowDaemon {
  std::unique_ptr<RunningDaemon> daemon;
  std::string http;  // host:port of the HTTP endpoint
};

std::optional<SlowDaemon> StartSlowDaemon(std::vector<std::string> flags, uint64_t floats,
                                          uint64_t execution_us, std::string* log) {
  flags.push_back("--http-listen=127.0.0.1:0");
  SlowDaemon slow;
  slow.daemon = StartDaemon(SimDaemonArgs(flags), log);
  if (slow.daemon == nullptr) return std::nullopt;
  const std::optional<std::string> http =
      WaitForLog(*slow.daemon->process, "HTTP endpoint on ([^ ]+)");
  v1::ModelConfig config = Config("slow");
  config.set_pipeline_depth(1);
  const LoadResult loaded =
      Upload(*slow.daemon->stub, config,
             EncodeNeff(IdentityModel({1, static_cast<int64_t>(floats)}, execution_us)));
  if (!http.has_value() || !loaded.status.ok()) {
    *log = absl::StrCat(loaded.status.error_message(), "\n", slow.daemon->process->Stderr());
    return std::nullopt;
  }
  slow.http = *http;
  return slow;
}

// One native Infer on its own thread; `context` cancels it.
struct AsyncInfer {
  grpc::ClientContext context;
  std::atomic<bool> done{false};
  grpc::Status status;
  std::thread thread;

  AsyncInfer(v1::NeuronServing::Stub& stub, v1::InferRequest request) {
    thread = std::thread([this, &stub, request = std::move(request)] {
      v1::InferResponse response;
      status = stub.Infer(&context, request, &response);
      done.store(true);
    });
  }
  // Waits for the answer.
  void Wait() {
    if (thread.joinable()) thread.join();
  }
  ~AsyncInfer() { Wait(); }
};

// Sends probe requests (20 ms deadline) until one is admitted to the full queue instead of
// being refused UNAVAILABLE at once; returns when that probe was sent. An admitted probe waits
// behind the executing request until its deadline, and its own cancellation frees the slot
// again.
absl::Time FirstAdmittedProbe(v1::NeuronServing::Stub& stub, absl::Duration timeout) {
  const absl::Time give_up = absl::Now() + timeout;
  while (absl::Now() < give_up) {
    const absl::Time sent = absl::Now();
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(20));
    v1::InferResponse response;
    const grpc::Status status = stub.Infer(&context, NativeRequest(), &response);
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE) return sent;
  }
  return absl::InfiniteFuture();
}

// Connects to host:port on loopback; -1 on failure.
int ConnectTo(const std::string& host_port) {
  const size_t colon = host_port.rfind(':');
  int port = 0;
  if (colon == std::string::npos || !absl::SimpleAtoi(host_port.substr(colon + 1), &port)) {
    return -1;
  }
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Sends a REST inference request of "slow" on `fd` and leaves the connection open.
bool SendRestInfer(int fd) {
  const std::string body =
      R"({"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}]})";
  const std::string request = absl::StrCat(
      "POST /v2/models/slow/infer HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
      "application/json\r\nContent-Length: ",
      body.size(), "\r\n\r\n", body);
  return send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
         static_cast<ssize_t>(request.size());
}

class CancellationE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string log;
    std::optional<SlowDaemon> started =
        StartSlowDaemon({"--max-queue=1"}, kFloats, kExecutionUs, &log);
    ASSERT_TRUE(started.has_value()) << log;
    slow_ = std::move(*started);
    // One request executing: the next one waits in the queue, which is then full.
    executing_ = std::make_unique<AsyncInfer>(*slow_.daemon->stub, NativeRequest());
    ASSERT_TRUE(WaitUntilInFlight(*slow_.daemon->process, 1));
  }

  // With the queued request in: the queue is full (a probe is refused), the client leaves at
  // the returned time, and a new request is admitted within 100 ms of it.
  void ExpectTheSlotFreedSoonAfter(absl::Time left) {
    const absl::Time admitted = FirstAdmittedProbe(*slow_.daemon->stub, absl::Seconds(10));
    ASSERT_NE(admitted, absl::InfiniteFuture()) << "the slot never came free";
    std::printf("[ measured ] the slot came free within %s of the client leaving\n",
                absl::FormatDuration(absl::Trunc(admitted - left, absl::Microseconds(10))).c_str());
    EXPECT_LT(admitted - left, absl::Milliseconds(100))
        << "the slot came free " << absl::FormatDuration(admitted - left)
        << " after the client left";
    // Still before the executing request ended: the worker did not free it.
    EXPECT_FALSE(executing_->done.load());
  }

  void QueueIsFull() {
    ASSERT_TRUE(WaitUntilInFlight(*slow_.daemon->process, 2));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    v1::InferResponse response;
    const grpc::Status refused = slow_.daemon->stub->Infer(&context, NativeRequest(), &response);
    ASSERT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE) << refused.error_message();
    EXPECT_THAT(refused.error_message(), HasSubstr("queue is full"));
  }

  SlowDaemon slow_;
  std::unique_ptr<AsyncInfer> executing_;
};

TEST_F(CancellationE2ETest, ACancelledNativeInferLeavesTheQueueAtOnce) {
  AsyncInfer queued(*slow_.daemon->stub, NativeRequest());
  QueueIsFull();
  const absl::Time left = absl::Now();
  queued.context.TryCancel();
  ExpectTheSlotFreedSoonAfter(left);
  queued.Wait();
  EXPECT_EQ(queued.status.error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(CancellationE2ETest, ACancelledV2ModelInferLeavesTheQueueAtOnce) {
  auto v2 = inference::GRPCInferenceService::NewStub(slow_.daemon->channel);
  grpc::ClientContext context;
  grpc::Status status;
  std::thread queued([&] {
    inference::ModelInferResponse response;
    status = v2->ModelInfer(&context, V2Request(), &response);
  });
  QueueIsFull();
  const absl::Time left = absl::Now();
  context.TryCancel();
  ExpectTheSlotFreedSoonAfter(left);
  queued.join();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(CancellationE2ETest, ACancelledStreamTakesItsQueuedRequestOutAtOnce) {
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReaderWriter<v1::InferRequest, v1::InferResponse>> stream =
      slow_.daemon->stub->InferStream(&context);
  ASSERT_TRUE(stream->Write(NativeRequest()));
  QueueIsFull();
  const absl::Time left = absl::Now();
  context.TryCancel();
  ExpectTheSlotFreedSoonAfter(left);
  EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(CancellationE2ETest, ARestClientThatClosesItsConnectionLeavesTheQueueAtOnce) {
  const int fd = ConnectTo(slow_.http);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendRestInfer(fd));
  QueueIsFull();
  const absl::Time left = absl::Now();
  close(fd);
  ExpectTheSlotFreedSoonAfter(left);
}

TEST_F(CancellationE2ETest, ARestClientThatStaysIsAnsweredAndTheServerKeepsServing) {
  const int fd = ConnectTo(slow_.http);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendRestInfer(fd));
  QueueIsFull();
  std::string answer;
  char buffer[4096];
  while (answer.find("\"outputs\"") == std::string::npos) {
    const ssize_t got = recv(fd, buffer, sizeof(buffer), 0);
    if (got <= 0) break;
    answer.append(buffer, static_cast<size_t>(got));
  }
  close(fd);
  EXPECT_THAT(answer, HasSubstr("HTTP/1.1 200"));
  EXPECT_THAT(answer, HasSubstr("\"outputs\""));
}

// 16 KiB requests against a 40,000-byte budget: one executes (not counted: it left the queue),
// two wait, the next is refused at once with the overload answer on gRPC and REST (but one
// whose input is in client shared memory is admitted), and once the queue drains requests are
// admitted again.
TEST(OverloadE2ETest, QueuedBytesPastTheBudgetAreRefusedAtOnceAndServingRecovers) {
  constexpr uint64_t kBigFloats = 4096;  // 16 KiB per request
  std::string log;
  std::optional<SlowDaemon> slow = StartSlowDaemon(
      {"--max-queued-bytes=40000", "--allow-client-shared-memory"}, kBigFloats, 1000000, &log);
  ASSERT_TRUE(slow.has_value()) << log;
  v1::NeuronServing::Stub& stub = *slow->daemon->stub;
  auto big = [] {
    v1::InferRequest request;
    request.set_model("slow");
    AddInput(request, "input", {1, kBigFloats}, std::vector<float>(kBigFloats, 0.5f),
             TensorForm::kRaw);
    return request;
  };
  std::vector<std::unique_ptr<AsyncInfer>> admitted;
  admitted.push_back(std::make_unique<AsyncInfer>(stub, big()));
  ASSERT_TRUE(WaitUntilInFlight(*slow->daemon->process, 1));
  admitted.push_back(std::make_unique<AsyncInfer>(stub, big()));
  admitted.push_back(std::make_unique<AsyncInfer>(stub, big()));
  ASSERT_TRUE(WaitUntilInFlight(*slow->daemon->process, 3));

  const absl::Time sent = absl::Now();
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  v1::InferResponse response;
  const grpc::Status refused = stub.Infer(&context, big(), &response);
  EXPECT_LT(absl::Now() - sent, absl::Seconds(1));  // at once, not after the queue drained
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(refused.error_message(), HasSubstr("model 'slow'"));
  EXPECT_THAT(refused.error_message(), HasSubstr("16384 input bytes"));
  EXPECT_THAT(refused.error_message(), HasSubstr("32768 of 40000 bytes"));
  EXPECT_THAT(refused.error_message(), HasSubstr("--max-queued-bytes"));
  // What the queues hold, as /metrics shows it: the two waiting requests, within the budget.
  EXPECT_THAT(HttpGet("http://" + slow->http + "/metrics").body,
              HasSubstr("neuronserve_queued_request_bytes 32768\n"));

  // REST: the same answer, 503 with Retry-After. A request of 4 floats still fits.
  const int fd = ConnectTo(slow->http);
  ASSERT_GE(fd, 0);
  const std::string body =
      absl::StrCat(R"({"inputs":[{"name":"input","shape":[1,4096],"datatype":"FP32","data":[)",
                   absl::StrJoin(std::vector<int>(kBigFloats, 1), ","), "]}]}");
  const std::string request = absl::StrCat(
      "POST /v2/models/slow/infer HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
      "Content-Length: ",
      body.size(), "\r\n\r\n", body);
  ASSERT_EQ(send(fd, request.data(), request.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(request.size()));
  std::string answer;
  char buffer[4096];
  for (ssize_t got; (got = recv(fd, buffer, sizeof(buffer), 0)) > 0;) {
    answer.append(buffer, static_cast<size_t>(got));
  }
  close(fd);
  EXPECT_THAT(answer, HasSubstr("HTTP/1.1 503"));
  EXPECT_THAT(answer, HasSubstr("Retry-After: 1"));
  EXPECT_THAT(answer, HasSubstr("--max-queued-bytes"));

  // The same 16 KiB in client shared memory hold none of the daemon's memory while they wait:
  // admitted with the budget full, and counted nowhere.
  ShmObject object(kBigFloats * 4);
  ASSERT_TRUE(object.ok());
  {
    grpc::ClientContext registering;
    v1::RegisterSharedMemoryRequest region;
    region.set_name("inputs");
    region.set_key(object.key());
    region.set_byte_size(kBigFloats * 4);
    v1::RegisterSharedMemoryResponse registered;
    const grpc::Status status = stub.RegisterSharedMemory(&registering, region, &registered);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  v1::InferRequest in_shared_memory;
  in_shared_memory.set_model("slow");
  v1::InputTensor* input = in_shared_memory.add_inputs();
  input->set_name("input");
  input->add_shape(1);
  input->add_shape(kBigFloats);
  input->mutable_shared_memory()->set_region("inputs");
  input->mutable_shared_memory()->set_byte_size(kBigFloats * 4);
  admitted.push_back(std::make_unique<AsyncInfer>(stub, in_shared_memory));
  ASSERT_TRUE(WaitUntilInFlight(*slow->daemon->process, 4));
  EXPECT_THAT(HttpGet("http://" + slow->http + "/metrics").body,
              HasSubstr("neuronserve_queued_request_bytes 32768\n"));

  // Recovery: once the queue drained, the same request is served.
  for (auto& call : admitted) {
    call->Wait();
    EXPECT_TRUE(call->status.ok()) << call->status.error_message();
  }
  grpc::ClientContext again;
  again.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  EXPECT_TRUE(stub.Infer(&again, big(), &response).ok());
}

}  // namespace
}  // namespace cancellation_e2e_test
}  // namespace neuronserve::testing
