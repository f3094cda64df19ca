// End-to-end: the real neuron-serve binary on loopback, the simulated runtime loaded through
// --nrt-library, and clients over real gRPC channels.
#include <signal.h>

#include <memory>

#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"
#include "tests/e2e/daemon_process.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {
namespace daemon_e2e_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint64_t kGiB = uint64_t{1} << 30;

DaemonArgs SimDaemon(std::map<std::string, std::string> env = {}) {
  DaemonArgs args;
  args.flags = {"--listen=127.0.0.1:0", std::string("--nrt-library=") + NRTSIM_LIBRARY_PATH};
  args.env = std::move(env);
  // The test's own environment must not shape the simulated machine.
  // Not NRTSIM_LOCK_DIR: the daemon inherits the test's private lock directory
  // (tests/sim_lock_dir), so it never collides with other tests' daemons or a developer's.
  args.unset_env = {"NRTSIM_CORES",        "NRTSIM_INSTANCE",           "NRTSIM_HBM_BYTES",
                    "NRTSIM_VERSION",      "NRTSIM_VOID_DTYPE_TENSORS", "NEURON_RT_VISIBLE_CORES",
                    "NEURON_RT_NUM_CORES", "NEURON_LOGICAL_NC_CONFIG",  "NEURON_RT_EXEC_TIMEOUT"};
  return args;
}

std::shared_ptr<grpc::Channel> Connect(const std::string& address) {
  return grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
}

v1::EnumerateResponse Enumerate(const std::string& address) {
  auto stub = v1::NeuronServing::NewStub(Connect(address));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::EnumerateResponse response;
  grpc::Status status = stub->Enumerate(&context, v1::EnumerateRequest(), &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response;
}

grpc::health::v1::HealthCheckResponse::ServingStatus CheckHealth(const std::string& address,
                                                                 const std::string& service) {
  auto stub = grpc::health::v1::Health::NewStub(Connect(address));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status status = stub->Check(&context, request, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response.status();
}

TEST(DaemonE2ETest, EnumerateReportsTheSimulatedInf2) {
  DaemonProcess daemon(SimDaemon());
  auto address = daemon.WaitUntilListening();
  ASSERT_TRUE(address.has_value()) << daemon.Stderr();

  v1::EnumerateResponse response = Enumerate(*address);
  EXPECT_EQ(response.runtime().major(), 2u);
  EXPECT_EQ(response.runtime().minor(), 30u);
  EXPECT_EQ(response.runtime().library(), NRTSIM_LIBRARY_PATH);
  EXPECT_EQ(response.instance().family(), "inf2");
  EXPECT_EQ(response.instance().type(), "inf2.xlarge");
  EXPECT_EQ(response.total_cores(), 2u);
  EXPECT_EQ(response.visible_cores(), 2u);
  ASSERT_EQ(response.cores_size(), 2);
  for (int i = 0; i < 2; ++i) {
    const v1::NeuronCore& core = response.cores(i);
    EXPECT_EQ(core.index(), static_cast<uint32_t>(i));
    EXPECT_EQ(core.architecture(), "NeuronCore-v2");
    EXPECT_EQ(core.memory_bytes(), 16 * kGiB);
    EXPECT_EQ(core.memory_used_bytes(), 0u);
    EXPECT_THAT(
        core.capabilities(),
        ElementsAre(v1::CAPABILITY_FP32, v1::CAPABILITY_BF16, v1::CAPABILITY_FP16,
                    v1::CAPABILITY_INT8, v1::CAPABILITY_FP8_E4M3, v1::CAPABILITY_FP8_E5M2,
                    v1::CAPABILITY_MATRIX_ENGINE, v1::CAPABILITY_HBM, v1::CAPABILITY_MULTI_STREAM));
  }
  EXPECT_EQ(daemon.StopWith(SIGTERM), 0) << daemon.Stderr();
}

TEST(DaemonE2ETest, VisibleCoresFromTheEnvironmentAreRenumbered) {
  DaemonProcess daemon(SimDaemon({{"NRTSIM_CORES", "8"}, {"NEURON_RT_VISIBLE_CORES", "2-5"}}));
  auto address = daemon.WaitUntilListening();
  ASSERT_TRUE(address.has_value()) << daemon.Stderr();
  v1::EnumerateResponse response = Enumerate(*address);
  EXPECT_EQ(response.total_cores(), 8u);
  EXPECT_EQ(response.visible_cores(), 4u);
  ASSERT_EQ(response.cores_size(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(response.cores(i).index(), static_cast<uint32_t>(i));
  EXPECT_THAT(daemon.Stderr(), HasSubstr("4 of 8 NeuronCores"));
}

TEST(DaemonE2ETest, Trn2WithMemoryOverride) {
  DaemonProcess daemon(SimDaemon(
      {{"NRTSIM_INSTANCE", "trn2"}, {"NRTSIM_CORES", "4"}, {"NRTSIM_HBM_BYTES", "1GiB"}}));
  auto address = daemon.WaitUntilListening();
  ASSERT_TRUE(address.has_value()) << daemon.Stderr();
  v1::EnumerateResponse response = Enumerate(*address);
  EXPECT_EQ(response.instance().family(), "trn2");
  ASSERT_EQ(response.cores_size(), 4);
  EXPECT_EQ(response.cores(3).architecture(), "NeuronCore-v3");
  EXPECT_EQ(response.cores(3).memory_bytes(), kGiB);
  EXPECT_THAT(response.cores(3).capabilities(),
              ::testing::Not(::testing::Contains(v1::CAPABILITY_INT8)));
}

TEST(DaemonE2ETest, HealthIsServingOnceTheRuntimeIsUp) {
  DaemonProcess daemon(SimDaemon());
  auto address = daemon.WaitUntilListening();
  ASSERT_TRUE(address.has_value()) << daemon.Stderr();
  EXPECT_EQ(CheckHealth(*address, ""), grpc::health::v1::HealthCheckResponse::SERVING);
  EXPECT_EQ(CheckHealth(*address, "neuronserve.v1.NeuronServing"),
            grpc::health::v1::HealthCheckResponse::SERVING);
}

// Server reflection, asked the way grpcurl does, with the request encoded by hand (Debian ships
// no reflection .proto): ServerReflectionRequest{list_services (field 7) = ""}.
TEST(DaemonE2ETest, ReflectionListsTheServices) {
  DaemonProcess daemon(SimDaemon());
  auto address = daemon.WaitUntilListening();
  ASSERT_TRUE(address.has_value()) << daemon.Stderr();

  grpc::CompletionQueue queue;
  grpc::GenericStub stub(Connect(*address));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  auto call = stub.PrepareCall(
      &context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &queue);
  void* tag = nullptr;
  bool ok = false;
  // Waits for the operation tagged `expected_tag`; false if the queue gave anything else.
  auto step = [&](intptr_t expected_tag) {
    return queue.Next(&tag, &ok) && reinterpret_cast<intptr_t>(tag) == expected_tag;
  };
  call->StartCall(reinterpret_cast<void*>(1));
  ASSERT_TRUE(step(1));
  ASSERT_TRUE(ok);
  const char request_bytes[] = {0x3a, 0x00};
  grpc::Slice slice(request_bytes, sizeof(request_bytes));
  call->Write(grpc::ByteBuffer(&slice, 1), reinterpret_cast<void*>(2));
  ASSERT_TRUE(step(2));
  ASSERT_TRUE(ok);
  grpc::ByteBuffer reply;
  call->Read(&reply, reinterpret_cast<void*>(3));
  ASSERT_TRUE(step(3));
  ASSERT_TRUE(ok);
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(reply.Dump(&slices).ok());
  std::string reply_bytes;
  for (const grpc::Slice& part : slices) {
    reply_bytes.append(reinterpret_cast<const char*>(part.begin()), part.size());
  }
  EXPECT_THAT(reply_bytes, HasSubstr("neuronserve.v1.NeuronServing"));
  EXPECT_THAT(reply_bytes, HasSubstr("grpc.health.v1.Health"));
  call->WritesDone(reinterpret_cast<void*>(4));
  ASSERT_TRUE(step(4));
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(5));
  ASSERT_TRUE(step(5));
  EXPECT_TRUE(status.ok()) << status.error_message();
  queue.Shutdown();
  while (queue.Next(&tag, &ok)) {
  }
}

TEST(DaemonE2ETest, StartupLineNamesAddressRuntimeVersionAndCores) {
  DaemonProcess daemon(SimDaemon());
  auto address = daemon.WaitUntilListening();
  ASSERT_TRUE(address.has_value()) << daemon.Stderr();
  const std::string log = daemon.Stderr();
  EXPECT_THAT(log, HasSubstr("listening on " + *address));
  EXPECT_THAT(log, HasSubstr(std::string("runtime ") + NRTSIM_LIBRARY_PATH + " version 2.30.0.0"));
  EXPECT_THAT(log, HasSubstr("2 of 2 NeuronCores (NeuronCore-v2, 16 GiB each) on inf2.xlarge"));
}

TEST(DaemonE2ETest, SigtermAndSigintShutDownCleanlyAndCloseTheRuntime) {
  for (int signal_number : {SIGTERM, SIGINT}) {
    DaemonProcess daemon(SimDaemon());
    ASSERT_TRUE(daemon.WaitUntilListening().has_value()) << daemon.Stderr();
    EXPECT_EQ(daemon.StopWith(signal_number), 0) << daemon.Stderr();
    const std::string log = daemon.Stderr();
    EXPECT_THAT(log, HasSubstr(signal_number == SIGTERM ? "received SIGTERM" : "received SIGINT"));
    EXPECT_THAT(log, HasSubstr("nrtsim: nrt_close"));
    EXPECT_THAT(log, HasSubstr("neuron-serve stopped"));
  }
}

TEST(DaemonE2ETest, FlagsCanComeFromTheEnvironment) {
  DaemonArgs args = SimDaemon();
  args.flags.clear();
  args.env["NEURON_SERVE_LISTEN"] = "127.0.0.1:0";
  args.env["NEURON_SERVE_NRT_LIBRARY"] = NRTSIM_LIBRARY_PATH;
  DaemonProcess daemon(args);
  auto address = daemon.WaitUntilListening();
  ASSERT_TRUE(address.has_value()) << daemon.Stderr();
  EXPECT_EQ(Enumerate(*address).visible_cores(), 2u);
}

TEST(DaemonE2ETest, CommandLineWinsOverTheEnvironment) {
  DaemonArgs args = SimDaemon();
  args.env["NEURON_SERVE_NRT_LIBRARY"] = "/nonexistent/libnrt.so";
  DaemonProcess daemon(args);
  EXPECT_TRUE(daemon.WaitUntilListening().has_value()) << daemon.Stderr();
}

TEST(DaemonE2ETest, MissingRuntimeLibraryIsAClearStartupError) {
  DaemonArgs args = SimDaemon();
  args.flags = {"--listen=127.0.0.1:0", "--nrt-library=/nonexistent/libnrt.so.1"};
  DaemonProcess daemon(args);
  EXPECT_EQ(daemon.WaitForExit(), 1);
  EXPECT_THAT(daemon.Stderr(), HasSubstr("neuron-serve failed to start: cannot load the Neuron "
                                         "runtime library (tried /nonexistent/libnrt.so.1)"));
}

TEST(DaemonE2ETest, RuntimeLibraryMissingASymbolIsAClearStartupError) {
  DaemonArgs args = SimDaemon();
  args.flags = {"--listen=127.0.0.1:0", std::string("--nrt-library=") + STUB_WITHOUT_EXECUTE_PATH};
  DaemonProcess daemon(args);
  EXPECT_EQ(daemon.WaitForExit(), 1);
  EXPECT_THAT(daemon.Stderr(), HasSubstr("does not export the required symbol nrt_execute"));
}

TEST(DaemonE2ETest, RuntimeInitFailureIsAClearStartupError) {
  DaemonProcess daemon(SimDaemon({{"NEURON_RT_VISIBLE_CORES", "7-9"}}));
  EXPECT_EQ(daemon.WaitForExit(), 1);
  EXPECT_THAT(daemon.Stderr(), HasSubstr("nrt_init"));
  EXPECT_THAT(daemon.Stderr(), HasSubstr("NRT_INVALID (2)"));
  EXPECT_THAT(daemon.Stderr(), HasSubstr("NEURON_RT_VISIBLE_CORES"));
}

TEST(DaemonE2ETest, AddressInUseIsAClearStartupError) {
  // The two daemons run on disjoint cores of one machine: a NeuronCore belongs to one process,
  // and the daemon opens the runtime (nrt_init) before it listens, so on the same cores the
  // second would fail on its cores before it ever reached the address in use.
  DaemonProcess first(SimDaemon({{"NRTSIM_CORES", "4"}, {"NEURON_RT_VISIBLE_CORES", "0-1"}}));
  auto address = first.WaitUntilListening();
  ASSERT_TRUE(address.has_value()) << first.Stderr();
  DaemonArgs args = SimDaemon({{"NRTSIM_CORES", "4"}, {"NEURON_RT_VISIBLE_CORES", "2-3"}});
  args.flags[0] = "--listen=" + *address;
  DaemonProcess second(args);
  EXPECT_EQ(second.WaitForExit(), 1);
  EXPECT_THAT(second.Stderr(), HasSubstr("cannot listen on '" + *address + "'"));
}

// A NeuronCore belongs to one process: a second daemon on cores a live one holds fails at
// nrt_init, naming the holder; once the first is gone (even killed) the cores are free again.
TEST(DaemonE2ETest, ASecondDaemonOnTheSameCoresIsAClearStartupError) {
  DaemonProcess first(SimDaemon());
  ASSERT_TRUE(first.WaitUntilListening().has_value()) << first.Stderr();
  DaemonProcess second(SimDaemon());
  EXPECT_EQ(second.WaitForExit(), 1);
  EXPECT_THAT(second.Stderr(), HasSubstr("NRT_RESOURCE (4)"));
  EXPECT_THAT(second.Stderr(),
              HasSubstr("NeuronCores 0,1 are in use by process " + std::to_string(first.pid())));
  first.StopWith(SIGKILL);
  DaemonProcess third(SimDaemon());
  EXPECT_TRUE(third.WaitUntilListening().has_value()) << third.Stderr();
}

TEST(DaemonE2ETest, BadFlagValuesAreUsageErrors) {
  DaemonArgs args = SimDaemon();
  args.flags.push_back("--log-level=chatty");
  DaemonProcess bad_level(args);
  EXPECT_EQ(bad_level.WaitForExit(), 2);
  EXPECT_THAT(bad_level.Stderr(), HasSubstr("--log-level='chatty'"));

  DaemonArgs env_args = SimDaemon();
  env_args.env["NEURON_SERVE_DRAIN_TIMEOUT"] = "soon";
  DaemonProcess bad_env(env_args);
  EXPECT_EQ(bad_env.WaitForExit(), 2);
  EXPECT_THAT(bad_env.Stderr(), HasSubstr("NEURON_SERVE_DRAIN_TIMEOUT='soon'"));

  DaemonArgs no_queue = SimDaemon();
  no_queue.flags.push_back("--max-queue=0");
  DaemonProcess zero_queue(no_queue);
  EXPECT_EQ(zero_queue.WaitForExit(), 2);
  EXPECT_THAT(zero_queue.Stderr(), HasSubstr("--max-queue must be at least 1"));

  for (const char* depth : {"0", "9"}) {
    DaemonArgs bad_depth = SimDaemon();
    bad_depth.flags.push_back(std::string("--pipeline-depth=") + depth);
    DaemonProcess process(bad_depth);
    EXPECT_EQ(process.WaitForExit(), 2) << depth;
    EXPECT_THAT(process.Stderr(),
                HasSubstr(std::string("--pipeline-depth must be 1 to 8, the tensor sets each "
                                      "replica binds per variant (1: no pipelining) (got ") +
                          depth + ")"));
  }

  DaemonArgs bad_malloc = SimDaemon();
  bad_malloc.flags.push_back("--malloc=jemalloc");
  DaemonProcess malloc_process(bad_malloc);
  EXPECT_EQ(malloc_process.WaitForExit(), 2);
  EXPECT_THAT(malloc_process.Stderr(),
              HasSubstr("--malloc must be tuned or default (got 'jemalloc')"));

  for (const char* flag : {"--drain-timeout=0s", "--execution-timeout=-1s", "--log-format=xml",
                           "--malloc-trim-interval=-1s"}) {
    DaemonArgs bad = SimDaemon();
    bad.flags.push_back(flag);
    DaemonProcess process(bad);
    EXPECT_EQ(process.WaitForExit(), 2) << flag;
    const std::string name = std::string(flag).substr(0, std::string(flag).find('='));
    EXPECT_THAT(process.Stderr(), HasSubstr(name)) << flag;
  }
  DaemonArgs bad_http = SimDaemon();
  bad_http.flags.push_back("--http-listen=not-an-address");
  DaemonProcess http_process(bad_http);
  EXPECT_EQ(http_process.WaitForExit(), 1);
  EXPECT_THAT(http_process.Stderr(), HasSubstr("cannot serve HTTP on 'not-an-address'"));
  DaemonArgs bad_access_log = SimDaemon();
  bad_access_log.flags.push_back("--access-log=/dev/null/access.log");
  DaemonProcess access_process(bad_access_log);
  EXPECT_EQ(access_process.WaitForExit(), 1);
  EXPECT_THAT(access_process.Stderr(),
              HasSubstr("--access-log='/dev/null/access.log': cannot open it"));

  for (const char* size : {"0", "2147483648"}) {
    DaemonArgs bad_size = SimDaemon();
    bad_size.flags.push_back(std::string("--max-message-bytes=") + size);
    DaemonProcess process(bad_size);
    EXPECT_EQ(process.WaitForExit(), 2) << size;
    EXPECT_THAT(process.Stderr(), HasSubstr("--max-message-bytes must be between 1 and 2147483647"));
  }
}

}  // namespace
}  // namespace daemon_e2e_test
}  // namespace neuronserve::testing
