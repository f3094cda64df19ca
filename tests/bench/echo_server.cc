#include "tests/bench/echo_server.h"

#include <signal.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <memory>

#include "bench_echo.grpc.pb.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"

namespace neuronserve::bench {
namespace {

// Answers every request at once on the gRPC thread that received it: there is no device, so the
// only work is the copy an identity model makes, input bytes to output bytes.
class EchoService final : public BenchEcho::CallbackService {
 public:
  grpc::ServerUnaryReactor* Echo(grpc::CallbackServerContext* context,
                                 const v1::InferRequest* request,
                                 v1::InferResponse* response) override {
    response->set_id(request->id());
    response->set_model(request->model());
    for (const v1::InputTensor& input : request->inputs()) {
      v1::OutputTensor* output = response->add_outputs();
      output->set_name("output");
      *output->mutable_shape() = input.shape();
      // The same form back, as the daemon answers by default.
      if (input.float_data_size() > 0) {
        *output->mutable_float_data() = input.float_data();
      } else {
        output->set_raw_data(input.raw_data());
      }
    }
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

}  // namespace

int RunEchoServer(const std::string& listen_address, uint64_t max_message_bytes) {
  // Block the stop signals before gRPC starts its threads (they inherit the mask), so that only
  // sigwait below ever sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  EchoService service;
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
