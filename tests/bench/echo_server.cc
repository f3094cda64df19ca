#include "tests/bench/echo_server.h"

#include <signal.h>

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "bench_echo.grpc.pb.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"

namespace neuronserve::bench {
namespace {

// An identity model's work: the input bytes copied to the output, in the same form, as the
// daemon answers by default.
void EchoInto(const v1::InferRequest& request, v1::InferResponse& response) {
  response.set_id(request.id());
  response.set_model(request.model());
  for (const v1::InputTensor& input : request.inputs()) {
    v1::OutputTensor* output = response.add_outputs();
    output->set_name("output");
    *output->mutable_shape() = input.shape();
    if (input.float_data_size() > 0) {
      *output->mutable_float_data() = input.float_data();
    } else {
      output->set_raw_data(input.raw_data());
    }
  }
}

// EchoAnswer::kHandOff's one answering thread, as a core's worker is one thread: requests are
// answered in the order they were queued, each with one wake-up when the thread was idle.
// Thread-safe; Stop (or the destructor) ends the thread after what is queued is answered.
class AnsweringThread {
 public:
  AnsweringThread() : thread_([this] { Run(); }) {}
  ~AnsweringThread() { Stop(); }

  AnsweringThread(const AnsweringThread&) = delete;
  AnsweringThread& operator=(const AnsweringThread&) = delete;

  // `request`, `response` and `reactor` are gRPC's and stay valid until Finish.
  void Queue(const v1::InferRequest* request, v1::InferResponse* response,
             grpc::ServerUnaryReactor* reactor) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back({request, response, reactor});
    }
    wake_.notify_one();
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

 private:
  struct Call {
    const v1::InferRequest* request;
    v1::InferResponse* response;
    grpc::ServerUnaryReactor* reactor;
  };

  void Run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      const Call call = queue_.front();
      queue_.pop_front();
      lock.unlock();
      EchoInto(*call.request, *call.response);
      call.reactor->Finish(grpc::Status::OK);
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Call> queue_;  // guarded by mutex_
  bool stopping_ = false;   // guarded by mutex_
  std::thread thread_;      // last: starts once the members above exist
};

// Answers on the receiving gRPC thread, or hands the request to `answering` when there is one.
class EchoService final : public BenchEcho::CallbackService {
 public:
  explicit EchoService(AnsweringThread* answering) : answering_(answering) {}

  grpc::ServerUnaryReactor* Echo(grpc::CallbackServerContext* context,
                                 const v1::InferRequest* request,
                                 v1::InferResponse* response) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    if (answering_ != nullptr) {
      answering_->Queue(request, response, reactor);
      return reactor;
    }
    EchoInto(*request, *response);
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

 private:
  AnsweringThread* const answering_;  // null: answer inline
};

}  // namespace

int RunEchoServer(const std::string& listen_address, uint64_t max_message_bytes,
                  EchoAnswer answer) {
  // Block the stop signals before gRPC starts its threads (they inherit the mask), so that only
  // sigwait below ever sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // Before the server (destroyed after it): Shutdown waits for the calls it holds.
  std::unique_ptr<AnsweringThread> answering;
  if (answer == EchoAnswer::kHandOff) answering = std::make_unique<AnsweringThread>();
  EchoService service(answering.get());
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen_address, grpc::InsecureServerCredentials(), &port);
  // The largest payload must fit (gRPC's default limit is 4 MiB): the limit the daemon is given,
  // set as the daemon sets it (server/daemon/listeners.cc: receiving only).
  builder.SetMaxReceiveMessageSize(
      static_cast<int>(std::min<uint64_t>(max_message_bytes, INT_MAX)));
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::fprintf(stderr, "bench echo server: cannot listen on '%s'\n", listen_address.c_str());
    return 1;
  }
  const std::string host = listen_address.substr(0, listen_address.rfind(':'));
  std::fprintf(stderr, "bench echo server listening on %s:%d\n", host.c_str(), port);
  std::fflush(stderr);

  int received = 0;
  sigwait(&stop_signals, &received);
  server->Shutdown();
  return 0;
}

}  // namespace neuronserve::bench
