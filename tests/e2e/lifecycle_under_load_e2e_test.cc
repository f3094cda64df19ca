// The model lifecycle under inference traffic, through the real daemon on the simulator:
// replacing a version while clients keep sending (no request fails, traffic moves from the old
// version to the new one), unloading with requests in flight (they complete; later requests
// are NOT_FOUND), and the unload timeout (queued requests get UNAVAILABLE, the executing one
// finishes, device memory is freed).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace lifecycle_under_load_e2e_test {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr uint32_t kReluWidth = 8;

// Threads that must all finish within a deadline: a hang aborts the test binary (printing
// `what`) instead of blocking until ctest's timeout. The threads use the test's frame, so
// returning from the test while they run is not an option; the daemon dies with the test
// through PR_SET_PDEATHSIG.
class ThreadGroup {
 public:
  ~ThreadGroup() {
    for (std::thread& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
  }
  void Start(std::function<void()> body) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++started_;
    threads_.emplace_back([this, body = std::move(body)] {
      body();
      std::lock_guard<std::mutex> lock(mutex_);
      ++finished_;
      done_.notify_all();
    });
  }
  void JoinWithin(absl::Duration timeout, const std::string& what) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!done_.wait_for(lock, absl::ToChronoMilliseconds(timeout),
                          [&] { return finished_ == started_; })) {
        std::fprintf(stderr, "HANG: %d of %d threads (%s) still running after %s\n",
                     started_ - finished_, started_, what.c_str(),
                     absl::FormatDuration(timeout).c_str());
        std::fflush(stderr);
        std::abort();
      }
    }
    for (std::thread& thread : threads_) thread.join();
    threads_.clear();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  int started_ = 0;
  int finished_ = 0;
  std::vector<std::thread> threads_;
};

// y = x (identity) or y = relu(x) over float32 [1, kReluWidth], tensors named "input"/"output".
std::string VersionNeff(bool relu, uint64_t latency_us, uint64_t load_latency_ms = 0) {
  simmodel::SimModel model;
  model.inputs = {{"input", DataType::kFloat32, {1, kReluWidth}}};
  model.outputs = {{"output", DataType::kFloat32, {1, kReluWidth}}};
  model.ops = {{relu ? simmodel::OpKind::kRelu : simmodel::OpKind::kIdentity, {"input"},
                "output"}};
  model.latency_us = latency_us;
  model.load_latency_ms = load_latency_ms;
  return EncodeNeff(model);
}

// Random values with at least one negative one, so relu(x) != x.
std::vector<float> RandomRowWithANegative(std::mt19937& random) {
  std::uniform_real_distribution<float> value(-10.0f, 10.0f);
  std::vector<float> row(kReluWidth);
  for (float& v : row) v = value(random);
  row[random() % kReluWidth] = -1.0f - std::abs(value(random));
  return row;
}

std::vector<float> Relu(std::vector<float> values) {
  for (float& v : values) v = v > 0 ? v : 0;
  return values;
}

v1::InferRequest MakeRequest(const std::string& model, const std::string& id,
                             const std::vector<float>& input) {
  v1::InferRequest request;
  request.set_model(model);
  request.set_id(id);
  AddInput(request, "input", {1, kReluWidth}, input, TensorForm::kFloat);
  return request;
}

std::vector<float> Values(const v1::InferResponse& response) {
  return response.outputs_size() == 1 ? OutputValues(response.outputs(0)) : std::vector<float>();
}

// What one replica of VersionNeff holds on its core: no constants, and `pipeline_depth` tensor
// sets (the daemon's default unless its config says), each an input and an output of
// kReluWidth floats.
uint64_t ReplicaDeviceBytes(uint32_t pipeline_depth = kDefaultPipelineDepth) {
  return pipeline_depth * 2 * uint64_t{kReluWidth} * sizeof(float);
}

// b and c are about what becomes of the requests a model holds when it is unloaded, and need to
// know when every request reached the daemon: the queue_depth and executions_in_flight gauges
// count them. A pipelined replica (pipeline_depth K > 1) also holds up to K - 1 units whose
// inputs are written while its core executes another; no gauge counts those, and they finish as
// the executing one does. So these models run unpipelined, where every request the daemon holds
// is either queued or executing.
constexpr uint32_t kUnpipelined = 1;

// The device memory in use on each core.
std::vector<uint64_t> MemoryUsed(v1::NeuronServing::Stub& stub) {
  std::vector<uint64_t> used;
  const v1::EnumerateResponse enumerated = EnumerateCores(stub);
  for (const v1::NeuronCore& core : enumerated.cores()) {
    used.push_back(core.memory_used_bytes());
  }
  return used;
}

// ---------------------------------------------------------------------------------------------
// a. Replacement under load.

struct Answer {
  int client = 0;
  bool stream = false;
  int64_t sequence = 0;  // per client, in send order
  absl::Time sent_at;
  grpc::Status status;   // the call's (unary) or the stream's
  int error_code = 0;    // InferResponse.error.code (stream)
  std::string error_message;
  std::string version;
  bool correct = false;  // the values of the version that answered
};

bool CorrectFor(const v1::InferResponse& response, const std::vector<float>& input) {
  if (response.version() == "1") return Values(response) == input;
  if (response.version() == "2") return Values(response) == Relu(input);
  return false;
}

TEST(LifecycleUnderLoadE2ETest, ReplacementUnderLoadFailsNoRequest) {
  START_DAEMON(daemon, SimDaemonArgs({}, {{"NRTSIM_CORES", "2"}}));
  v1::ModelConfig v1_config = Config("m", "1");
  v1_config.set_replicas(2);
  LoadResult first = Upload(*daemon->stub, v1_config, VersionNeff(false, 1000));
  ASSERT_TRUE(first.status.ok()) << first.status.error_message();

  constexpr int kUnaryClients = 4;
  constexpr int kStreamClients = 2;
  constexpr size_t kStreamWindow = 4;
  std::atomic<bool> stop{false};
  std::vector<std::vector<Answer>> answers(kUnaryClients + kStreamClients);
  // Successful answers by client and by version ("1", "2"), for the test to wait on while the
  // clients run (`answers` is theirs until they are joined).
  std::atomic<int> answered[kUnaryClients + kStreamClients][2] = {};
  auto count_answer = [&answered](int client, const std::string& version) {
    if (version == "1" || version == "2") ++answered[client][version == "1" ? 0 : 1];
  };
  // True once every client has had `count` successful answers from `version`.
  auto every_client_answered = [&answered](const std::string& version, int count) {
    for (const auto& by_version : answered) {
      if (by_version[version == "1" ? 0 : 1].load() < count) return false;
    }
    return true;
  };
  ThreadGroup clients;
  for (int c = 0; c < kUnaryClients; ++c) {
    clients.Start([&, c] {
      std::mt19937 random(c + 1);
      for (int64_t i = 0; !stop.load(); ++i) {
        const std::vector<float> input = RandomRowWithANegative(random);
        Answer answer;
        answer.client = c;
        answer.sequence = i;
        answer.sent_at = absl::Now();
        v1::InferResponse response;
        answer.status = Infer(*daemon->stub, MakeRequest("m", absl::StrCat("u", c, "-", i), input),
                              &response, absl::Seconds(30));
        answer.version = response.version();
        answer.correct = answer.status.ok() && CorrectFor(response, input);
        answers[c].push_back(answer);
        if (answer.status.ok()) count_answer(c, answer.version);
      }
    });
  }
  for (int s = 0; s < kStreamClients; ++s) {
    const int c = kUnaryClients + s;
    clients.Start([&, c] {
      std::mt19937 random(100 + c);
      grpc::ClientContext context;
      context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
      auto stream = daemon->stub->InferStream(&context);
      std::map<std::string, std::pair<size_t, std::vector<float>>> outstanding;
      std::vector<Answer>& mine = answers[c];
      bool writes_done = false;
      bool broken = false;
      for (;;) {
        if (!stop.load() && !broken && outstanding.size() < kStreamWindow) {
          const std::string id = absl::StrCat("s", c, "-", mine.size());
          const std::vector<float> input = RandomRowWithANegative(random);
          Answer answer;
          answer.client = c;
          answer.stream = true;
          answer.sequence = static_cast<int64_t>(mine.size());
          answer.sent_at = absl::Now();
          answer.error_code = -1;  // until answered
          outstanding[id] = {mine.size(), input};
          mine.push_back(answer);
          if (!stream->Write(MakeRequest("m", id, input))) broken = true;
          continue;
        }
        if (!writes_done && !broken) {
          if (stop.load()) {
            stream->WritesDone();
            writes_done = true;
          }
        }
        v1::InferResponse response;
        if (!stream->Read(&response)) break;
        auto it = outstanding.find(response.id());
        if (it == outstanding.end()) {
          Answer stray;
          stray.client = c;
          stray.stream = true;
          stray.error_code = -2;
          stray.error_message = "answer for an id not outstanding: " + response.id();
          mine.push_back(stray);
          continue;
        }
        Answer& answer = mine[it->second.first];
        answer.error_code = response.error().code();
        answer.error_message = response.error().message();
        answer.version = response.version();
        answer.correct = answer.error_code == 0 && CorrectFor(response, it->second.second);
        if (answer.error_code == 0) count_answer(c, answer.version);
        outstanding.erase(it);
      }
      const grpc::Status status = stream->Finish();
      for (Answer& answer : mine) answer.status = status;
    });
  }

  // Traffic on version 1: every client is answered by it a few times. (EXPECT, not ASSERT: the
  // clients stop only when told to.)
  constexpr int kAnswersPerVersion = 20;
  EXPECT_TRUE(WaitUntil([&] { return every_client_answered("1", kAnswersPerVersion); }))
      << "not every client got " << kAnswersPerVersion << " answers from version 1";
  v1::ModelConfig v2_config = Config("m", "2");
  v2_config.set_replicas(2);
  const absl::Time load_started = absl::Now();
  // 150 ms per replica load: version 1 keeps serving meanwhile.
  LoadResult second = Upload(*daemon->stub, v2_config, VersionNeff(true, 1000, 150));
  const absl::Time load_returned = absl::Now();
  // Traffic on version 2: every client is answered by it a few times.
  EXPECT_TRUE(WaitUntil([&] { return every_client_answered("2", kAnswersPerVersion); }))
      << "not every client got " << kAnswersPerVersion << " answers from version 2";
  stop.store(true);
  clients.JoinWithin(absl::Seconds(60), "replacement clients");
  ASSERT_TRUE(second.status.ok()) << second.status.error_message();
  EXPECT_EQ(second.response.model().version(), "2");

  int64_t total = 0;
  int64_t from_v1 = 0;
  int64_t from_v2 = 0;
  int64_t v1_during_load = 0;
  int64_t failed = 0;
  int64_t wrong = 0;
  int64_t v1_after_load = 0;
  int64_t v2_before_load = 0;
  std::string first_problem;
  for (const std::vector<Answer>& client : answers) {
    std::string previous_version = "1";
    for (const Answer& answer : client) {
      ++total;
      if (!answer.status.ok() || answer.error_code != 0) {
        ++failed;
        if (first_problem.empty()) {
          first_problem = absl::StrCat("client ", answer.client, " request ", answer.sequence,
                                       ": status ", answer.status.error_code(), " '",
                                       answer.status.error_message(), "', error ",
                                       answer.error_code, " '", answer.error_message, "'");
        }
        continue;
      }
      if (!answer.correct) ++wrong;
      if (answer.version == "1") {
        ++from_v1;
        if (answer.sent_at > load_started && answer.sent_at < load_returned) ++v1_during_load;
        if (answer.sent_at > load_returned) ++v1_after_load;
      } else if (answer.version == "2") {
        ++from_v2;
        if (answer.sent_at < load_started) ++v2_before_load;
      }
      // A unary client sends one request at a time: its answers switch versions once.
      if (!answer.stream) {
        EXPECT_FALSE(previous_version == "2" && answer.version == "1")
            << "client " << answer.client << " request " << answer.sequence
            << " was answered by version 1 after an earlier one by version 2";
        previous_version = answer.version;
      }
    }
  }
  std::printf("replacement: %lld requests, %lld from version 1 (%lld sent during the load), "
              "%lld from version 2; load took %s\n",
              static_cast<long long>(total), static_cast<long long>(from_v1),
              static_cast<long long>(v1_during_load), static_cast<long long>(from_v2),
              absl::FormatDuration(load_returned - load_started).c_str());
  EXPECT_EQ(failed, 0) << first_problem;
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(from_v1 + from_v2 + failed, total);
  EXPECT_GT(from_v1, 0);
  EXPECT_GT(from_v2, 0);
  EXPECT_GT(v1_during_load, 0) << "version 1 should serve while version 2 loads";
  EXPECT_EQ(v1_after_load, 0) << "requests sent after LoadModel returned went to version 1";
  EXPECT_EQ(v2_before_load, 0);
  for (const std::vector<Answer>& client : answers) EXPECT_FALSE(client.empty());

  v1::ModelStatus model;
  ASSERT_TRUE(GetModel(*daemon->stub, "m", &model).ok());
  EXPECT_EQ(model.state(), v1::MODEL_STATE_READY);
  EXPECT_EQ(model.version(), "2");
  EXPECT_EQ(model.requests().failed(), 0u);
  EXPECT_EQ(model.requests().succeeded(), static_cast<uint64_t>(from_v2));
  // Version 1 is unloaded once its last requests are done: only version 2's tensors remain.
  std::vector<uint64_t> used;
  WaitUntil([&] {
    used = MemoryUsed(*daemon->stub);
    return used == std::vector<uint64_t>(2, ReplicaDeviceBytes());
  }, absl::Seconds(10));
  EXPECT_EQ(used, std::vector<uint64_t>(2, ReplicaDeviceBytes()));
}

// ---------------------------------------------------------------------------------------------
// b. Unload with requests in flight.

struct InFlight {
  std::vector<float> input;
  grpc::Status status;
  v1::InferResponse response;
};

TEST(LifecycleUnderLoadE2ETest, UnloadLetsRequestsInFlightCompleteAndRefusesLaterOnes) {
  START_DAEMON(daemon, SimDaemonArgs({"--http-listen=127.0.0.1:0"}, {{"NRTSIM_CORES", "2"}}));
  v1::ModelConfig config = Config("m", "7");
  config.set_replicas(2);
  config.set_pipeline_depth(kUnpipelined);
  // 2 s an execution: every request must reach the daemon before the first round ends, and the
  // unload begin, and the model be seen UNLOADING, before the last round ends, however slowly the
  // requests arrive on a loaded machine (with 200 ms, and then 500 ms, a slow start let the first
  // round end first: under ASan, beside a 64-client stress test, eight calls took over 500 ms).
  ASSERT_TRUE(Upload(*daemon->stub, config, VersionNeff(false, 2000000)).status.ok());

  // 6 unary requests from threads and 2 on a stream: 4 rounds of 2 s on 2 replicas.
  constexpr int kUnary = 6;
  std::mt19937 random(7);
  std::vector<InFlight> unary(kUnary);
  for (InFlight& call : unary) call.input = RandomRowWithANegative(random);
  const std::vector<v1::InferRequest> streamed = {
      MakeRequest("m", "s0", RandomRowWithANegative(random)), MakeRequest("m", "s1", RandomRowWithANegative(random))};
  std::atomic<int> calling{0};
  ThreadGroup clients;
  for (int i = 0; i < kUnary; ++i) {
    clients.Start([&, i] {
      ++calling;
      unary[i].status = Infer(*daemon->stub, MakeRequest("m", absl::StrCat("u", i), unary[i].input),
                              &unary[i].response, absl::Seconds(30));
    });
  }
  grpc::Status stream_status;
  std::vector<v1::InferResponse> stream_responses;
  clients.Start([&] {
    ++calling;
    stream_responses = RunStream(*daemon->stub, streamed, &stream_status, absl::Seconds(30));
  });
  WaitUntil([&] { return calling.load() == kUnary + 1; }, absl::Seconds(10));
  ASSERT_EQ(calling.load(), kUnary + 1);
  // Every request reached the daemon: 2 executing, 6 queued.
  ASSERT_TRUE(WaitUntilInFlight(*daemon->process, kUnary + 2));

  grpc::Status unloaded;
  v1::UnloadModelResponse unload_response;
  absl::Time unload_returned;
  const absl::Time unload_started = absl::Now();
  ThreadGroup unloader;
  unloader.Start([&] {
    unloaded = UnloadModel(*daemon->stub, "m", &unload_response);
    unload_returned = absl::Now();
  });

  // While it drains, the model is UNLOADING and takes no new request.
  const bool saw_unloading = WaitUntil(
      [&] {
        v1::ModelStatus model;
        return GetModel(*daemon->stub, "m", &model).ok() &&
               model.state() == v1::MODEL_STATE_UNLOADING;
      },
      absl::Seconds(10));
  EXPECT_TRUE(saw_unloading);
  v1::InferResponse refused;
  grpc::Status during = Infer(*daemon->stub, MakeRequest("m", "during", RandomRowWithANegative(random)),
                              &refused, absl::Seconds(10));
  EXPECT_EQ(during.error_code(), grpc::StatusCode::NOT_FOUND) << during.error_message();
  EXPECT_THAT(during.error_message(), HasSubstr("'m'"));
  EXPECT_THAT(during.error_message(), HasSubstr("UNLOADING"));
  grpc::Status during_stream_status;
  std::vector<v1::InferResponse> during_stream =
      RunStream(*daemon->stub, {MakeRequest("m", "during-stream", RandomRowWithANegative(random))},
                &during_stream_status, absl::Seconds(10));
  EXPECT_TRUE(during_stream_status.ok()) << during_stream_status.error_message();
  ASSERT_EQ(during_stream.size(), 1u);
  EXPECT_EQ(during_stream[0].id(), "during-stream");
  EXPECT_EQ(during_stream[0].error().code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(during_stream[0].error().message(), HasSubstr("'m'"));

  unloader.JoinWithin(absl::Seconds(60), "UnloadModel");
  clients.JoinWithin(absl::Seconds(60), "in-flight requests");
  ASSERT_TRUE(unloaded.ok()) << unloaded.error_message();
  EXPECT_EQ(unload_response.model().name(), "m");
  EXPECT_EQ(unload_response.model().version(), "7");
  // It waited for the requests: at least the last round of 2 s ran after it began.
  EXPECT_GE(unload_returned - unload_started, absl::Milliseconds(250));

  // Every request in flight when the unload began completed, with the right values.
  for (int i = 0; i < kUnary; ++i) {
    ASSERT_TRUE(unary[i].status.ok()) << "u" << i << ": " << unary[i].status.error_code() << " "
                                      << unary[i].status.error_message();
    EXPECT_EQ(unary[i].response.id(), absl::StrCat("u", i));
    EXPECT_EQ(unary[i].response.version(), "7");
    EXPECT_EQ(Values(unary[i].response), unary[i].input);
  }
  ASSERT_TRUE(stream_status.ok()) << stream_status.error_message();
  ASSERT_EQ(stream_responses.size(), 2u);
  std::map<std::string, const v1::InferResponse*> by_id;
  for (const v1::InferResponse& response : stream_responses) by_id[response.id()] = &response;
  for (const v1::InferRequest& request : streamed) {
    ASSERT_EQ(by_id.count(request.id()), 1u) << request.id();
    const v1::InferResponse& response = *by_id[request.id()];
    EXPECT_EQ(response.error().code(), 0) << response.error().message();
    const std::vector<float> input(request.inputs(0).float_data().begin(),
                                   request.inputs(0).float_data().end());
    EXPECT_EQ(Values(response), input);
  }

  // After the unload: NOT_FOUND naming the model, unary and streamed; nothing left on device.
  grpc::Status after = Infer(*daemon->stub, MakeRequest("m", "after", RandomRowWithANegative(random)),
                             &refused, absl::Seconds(10));
  EXPECT_EQ(after.error_code(), grpc::StatusCode::NOT_FOUND) << after.error_message();
  EXPECT_THAT(after.error_message(), HasSubstr("'m'"));
  grpc::Status after_stream_status;
  std::vector<v1::InferResponse> after_stream =
      RunStream(*daemon->stub, {MakeRequest("m", "after-stream", RandomRowWithANegative(random))},
                &after_stream_status, absl::Seconds(10));
  EXPECT_TRUE(after_stream_status.ok()) << after_stream_status.error_message();
  ASSERT_EQ(after_stream.size(), 1u);
  EXPECT_EQ(after_stream[0].error().code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(after_stream[0].error().message(), HasSubstr("'m'"));
  EXPECT_EQ(GetModel(*daemon->stub, "m", nullptr).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(MemoryUsed(*daemon->stub), std::vector<uint64_t>(2, 0));
}

// ---------------------------------------------------------------------------------------------
// c. The unload timeout.

TEST(LifecycleUnderLoadE2ETest, AfterTheUnloadTimeoutQueuedRequestsAreUnavailable) {
  START_DAEMON(daemon, SimDaemonArgs({"--unload-timeout=300ms", "--http-listen=127.0.0.1:0"},
                                     {{"NRTSIM_CORES", "2"}}));
  // Request 0 must still be executing when the unload timeout (300 ms) ends, however long the
  // test takes to queue the others behind it on a loaded machine: it runs for 2 s, so the queue
  // has 1.7 s to fill (with 500 ms, a slow start let a queued request run and pass).
  v1::ModelConfig config = Config("slow", "1");
  config.set_pipeline_depth(kUnpipelined);
  ASSERT_TRUE(Upload(*daemon->stub, config, VersionNeff(false, 2000000)).status.ok());
  const std::vector<uint64_t> loaded = MemoryUsed(*daemon->stub);
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0], ReplicaDeviceBytes(kUnpipelined));

  // Request 0 executes (2 s); 4 unary and 2 streamed requests queue behind it.
  constexpr int kUnary = 5;
  std::mt19937 random(11);
  std::vector<InFlight> unary(kUnary);
  for (InFlight& call : unary) call.input = RandomRowWithANegative(random);
  ThreadGroup clients;
  auto start_unary = [&](int i) {
    clients.Start([&, i] {
      unary[i].status = Infer(*daemon->stub,
                              MakeRequest("slow", absl::StrCat("u", i), unary[i].input),
                              &unary[i].response, absl::Seconds(30));
    });
  };
  start_unary(0);
  ASSERT_TRUE(WaitUntilInFlight(*daemon->process, 1));  // request 0 is the one executing
  for (int i = 1; i < kUnary; ++i) start_unary(i);
  grpc::Status stream_status;
  std::vector<v1::InferResponse> stream_responses;
  clients.Start([&] {
    stream_responses = RunStream(*daemon->stub,
                                 {MakeRequest("slow", "s0", RandomRowWithANegative(random)),
                                  MakeRequest("slow", "s1", RandomRowWithANegative(random))},
                                 &stream_status, absl::Seconds(30));
  });
  ASSERT_TRUE(WaitUntilInFlight(*daemon->process, kUnary + 2));  // all of them reached the daemon

  const absl::Time unload_started = absl::Now();
  v1::UnloadModelResponse unload_response;
  grpc::Status unloaded = UnloadModel(*daemon->stub, "slow", &unload_response);
  const absl::Duration unload_took = absl::Now() - unload_started;
  clients.JoinWithin(absl::Seconds(60), "requests to the unloaded model");
  ASSERT_TRUE(unloaded.ok()) << unloaded.error_message();
  EXPECT_EQ(unload_response.model().name(), "slow");
  // It waited the timeout, then for the executing request (which ends ~2 s after it began).
  EXPECT_GE(unload_took, absl::Milliseconds(300));

  // The executing one completed; the queued ones did not run.
  ASSERT_TRUE(unary[0].status.ok()) << unary[0].status.error_code() << " "
                                    << unary[0].status.error_message();
  EXPECT_EQ(Values(unary[0].response), unary[0].input);
  for (int i = 1; i < kUnary; ++i) {
    EXPECT_EQ(unary[i].status.error_code(), grpc::StatusCode::UNAVAILABLE)
        << "u" << i << ": " << unary[i].status.error_message();
    EXPECT_THAT(unary[i].status.error_message(), HasSubstr("'slow'"));
    EXPECT_THAT(unary[i].status.error_message(), HasSubstr("unloaded"));
  }
  EXPECT_TRUE(stream_status.ok()) << stream_status.error_message();
  ASSERT_EQ(stream_responses.size(), 2u);
  for (const v1::InferResponse& response : stream_responses) {
    EXPECT_EQ(response.error().code(), grpc::StatusCode::UNAVAILABLE) << response.id();
    EXPECT_THAT(response.error().message(), HasSubstr("'slow'"));
    EXPECT_THAT(response.outputs(), IsEmpty());
  }

  // Everything is gone: the model, its cores, its device memory.
  EXPECT_EQ(GetModel(*daemon->stub, "slow", nullptr).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(MemoryUsed(*daemon->stub), std::vector<uint64_t>(2, 0));
  const v1::EnumerateResponse enumerated = EnumerateCores(*daemon->stub);
  ASSERT_EQ(enumerated.cores_size(), 2);
  for (const v1::NeuronCore& core : enumerated.cores()) {
    EXPECT_THAT(core.resident_models(), IsEmpty());
  }
  // And the daemon serves a new model at once.
  ASSERT_TRUE(Upload(*daemon->stub, Config("next"), VersionNeff(false, 0)).status.ok());
  const std::vector<float> input = RandomRowWithANegative(random);
  v1::InferResponse response;
  ASSERT_TRUE(Infer(*daemon->stub, MakeRequest("next", "n", input), &response).ok());
  EXPECT_EQ(Values(response), input);
}

}  // namespace
}  // namespace lifecycle_under_load_e2e_test
}  // namespace neuronserve::testing
