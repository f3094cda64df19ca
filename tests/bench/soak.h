// The soak's parts (tests/bench/soak_run.h says what it runs and checks): the request mix and
// its kinds, the tally each client keeps and the judgement of an error answer, the helpers
// that make requests, and class Soak, whose members are defined by phase: soak_run.cc (the
// daemon, the models and the clients' threads), soak_traffic.cc (the clients of every kind),
// soak_churn.cc (lifecycle churn, execution faults and the monitor) and soak_reckoning.cc
// (the checks at the end).
//
// Thread safety: a Soak's Run starts one thread per client, a fault writer and the monitor,
// and joins them all before it reckons. Each client writes only its own Tally; the counters
// they share are atomics, and the problems list is behind problems_mutex_. The helpers keep
// no state.
#ifndef NEURON_SERVE_TESTS_BENCH_SOAK_H_
#define NEURON_SERVE_TESTS_BENCH_SOAK_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "client/lib/client.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"
#include "tests/bench/http_load.h"
#include "tests/bench/soak_run.h"
#include "tests/prometheus/prometheus_text_parser.h"
#include "tests/support/child_process.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::bench::soak {

using ::neuronserve::testing::ChildProcess;
using ::neuronserve::testing::PromFamily;
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

std::string ChurnName(int index);

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

const char* KindName(Kind kind);

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

bool IsChurnModel(const std::string& model);

// Judges an error answer. The traffic can cause: a model being replaced or unloaded (NOT_FOUND
// for a churned model only, UNAVAILABLE, FAILED_PRECONDITION), an injected execution fault
// (INTERNAL, RESOURCE_EXHAUSTED), a full queue (UNAVAILABLE), a 1 ms deadline
// (DEADLINE_EXCEEDED) and a cancellation (CANCELLED). A patient request past its deadline was
// not answered: lost. Anything else, or any error without a message, is a problem.
void JudgeError(Tally& tally, const Sent& sent, grpc::StatusCode code, const std::string& message);

// REST statuses as the gRPC codes they stand for (the daemon's own mapping), so that one
// judgement serves both.
grpc::StatusCode CodeOfHttpStatus(int status);

// `rows` rows of finite floats, each request's own.
std::string RandomRows(std::mt19937& random, uint32_t rows);

v1::InferRequest NativeRequest(const std::string& model, const std::string& id, std::string bytes);

void SetDeadline(grpc::ClientContext& context, absl::Duration timeout);

// A REST client that hangs up: sends the whole request on a connection of its own and closes
// it `wait` later, before the answer could have been read.
void SendAndHangUp(const std::string& address, const HttpPost& post, absl::Duration wait);

std::shared_ptr<grpc::Channel> Connect(const std::string& address);

class Soak {
 public:
  explicit Soak(const SoakOptions& options)
      : options_(options), faults_file_(dir_.Join("faults")) {}

  int Run();

 private:
  bool Stopping() const { return absl::Now() >= stop_at_; }

  bool StartDaemon();

  bool LoadFixedModels();

  void PrintMix() const;

  // A model for a request: mostly the stable one, else a churned one that may be absent.
  static std::string PickModel(std::mt19937& random);

  void RunClient(Kind kind, int client, int churn, std::mt19937& random, Tally& tally);

  // Unary Infer (native, or ModelInfer for v2; the batched kind alternates), a tenth with a 1 ms
  // deadline.
  void UnaryClient(Kind kind, int client, std::mt19937& random, Tally& tally);

  // REST /v2/models/<model>/infer with binary data on a kept-alive connection; a tenth of the
  // requests go on a connection of their own that hangs up 0-2 ms after sending.
  void RestClient(int client, std::mt19937& random, Tally& tally);

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
  void NativeStreamClient(int client, std::mt19937& random, Tally& tally);

  // ModelStreamInfer, as above. Its errors carry no id (Triton's form), so the count of answers
  // and the ids of the OK ones are what can be checked.
  void V2StreamClient(int client, std::mt19937& random, Tally& tally);

  // The requests of a stream that got no answer: left on purpose when the client cancelled the
  // stream; the daemon's answer when it ended the stream with an error that says why; else lost.
  static void CountUnanswered(Tally& tally, uint64_t missing, bool cancelled,
                              const grpc::Status& status, const char* which);

  // Inputs and outputs in a shared-memory region of the client's (the client library's own
  // helpers), registered once; each answer's bytes are read back from the region.
  void SharedMemoryClient(bool v2, int client, std::mt19937& random, Tally& tally);

  // The output's bytes when they came in the answer (a null answer compares unequal to none:
  // a zero row of the right size).
  static const uint8_t* OutputBytes(const client::InferResult& result);

  // Calls (native and v2 in turn) cancelled 0-2 ms after they start, on gRPC's callback API.
  void CancellingClient(int client, std::mt19937& random, Tally& tally);

  // One churned model: loaded, replaced under a new version label (7 times in 10) or unloaded,
  // every 50-300 ms. Load failures the faults cause are expected; they are counted.
  void LifecycleClient(int churn, std::mt19937& random);

  // Rewrites NRTSIM_FAULTS_FILE every 200-500 ms: a few executions fail with a transient status
  // (retried once on another replica, else the request's error), and now and then one load.
  void WriteFaults();

  void WriteFaultRules(const std::string& rules);

  // Every second until the end: the models' states (a FAILED model must say why) and the
  // daemon's RSS; progress every 10 s.
  void Monitor();

  void CheckModelStates();

  bool Reckon(const std::map<Kind, Tally>& by_kind);

  unsigned long long FailedModelsSeen();

  static double Get(const std::map<std::string, double>& values, const std::string& key);

  static void PrintTally(const char* name, const Tally& tally);

  std::optional<std::vector<PromFamily>> Scrape();

  // neuronserve_requests_by_protocol_total, by its protocol label. The first scrape after the
  // traffic: it also prints what the replaced versions left waiting for it.
  std::optional<std::map<std::string, double>> AnsweredByProtocol();

  // The sum of a gauge's samples.
  static double Total(const std::vector<PromFamily>& families, const std::string& name);

  // After the traffic: queues empty, device memory what the loaded models hold (and 0 once
  // they are unloaded), RSS within its bound.
  bool CheckQuiescentState();

  std::optional<std::map<uint32_t, uint64_t>> DeviceMemoryUsed();

  static bool MemoryMatches(const std::map<uint32_t, uint64_t>& expected,
                            const std::map<uint32_t, uint64_t>& used);

  int Finish(bool held);

  static std::string TailOf(const std::string& log);

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

}  // namespace neuronserve::bench::soak

#endif  // NEURON_SERVE_TESTS_BENCH_SOAK_H_
