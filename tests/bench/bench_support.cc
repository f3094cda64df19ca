#include "tests/bench/bench_support.h"

#include <filesystem>
#include <functional>
#include <system_error>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "tests/bench/http_load.h"
#include "tests/bench/payload.h"
#include "tests/prometheus/prometheus_text_parser.h"

namespace neuronserve::bench {

using ::neuronserve::testing::ChildProcess;
uint64_t BytesInFlight(uint64_t tensor_bytes, int concurrency) {
  return kTensorCopiesPerRequestInFlight * tensor_bytes * static_cast<uint64_t>(concurrency);
}

std::string WhyOverBudget(uint64_t tensor_bytes, int concurrency, uint64_t budget) {
  const uint64_t need = BytesInFlight(tensor_bytes, concurrency);
  if (need <= budget) return "";
  return absl::StrCat(kTensorCopiesPerRequestInFlight, " x ", FormatBytes(tensor_bytes), " x ",
                      concurrency, " in flight = ", FormatBytes(need),
                      ", over --memory-budget=", FormatBytes(budget));
}

std::shared_ptr<grpc::Channel> Connect(const std::string& address, int max_message_bytes) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(max_message_bytes);
  args.SetMaxSendMessageSize(max_message_bytes);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

std::string AddressOf(ChildProcess& child, const char* what) {
  std::optional<std::string> address = child.WaitUntilListening(kStartTimeout);
  if (!address.has_value()) {
    std::fprintf(stderr, "bench: the %s did not start; its output:\n%s\n", what,
                 child.Stderr().c_str());
    return "";
  }
  return *address;
}

std::string Probe(const StartCall& start, const v1::InferRequest& request) {
  v1::InferResponse response;
  grpc::Status status = CallOnce(start, request, &response, kProbeTimeout);
  if (!status.ok()) {
    return absl::StrCat("code ", status.error_code(), ": ", status.error_message());
  }
  return CompareOutput(request, response);
}

std::string Probe(const V2StartCall& start, const inference::ModelInferRequest& request) {
  inference::ModelInferResponse response;
  grpc::Status status = CallOnce(start, request, &response, kProbeTimeout);
  if (!status.ok()) {
    return absl::StrCat("code ", status.error_code(), ": ", status.error_message());
  }
  return V2CompareOutput(request, response);
}

LoadOptions OptionsFor(const BenchFlags& flags, int concurrency, int round, int rounds) {
  LoadOptions options;
  options.concurrency = concurrency;
  options.warmup = round == 0 ? absl::Seconds(flags.warmup_seconds) : absl::ZeroDuration();
  options.measure = absl::Seconds(flags.seconds / rounds);
  return options;
}

StartCall EchoCallOn(BenchEcho::Stub* stub) {
  return [stub](grpc::ClientContext* context, const v1::InferRequest* request,
                v1::InferResponse* response, std::function<void(grpc::Status)> done) {
    stub->async()->Echo(context, request, response, std::move(done));
  };
}

StartCall InferCallOn(v1::NeuronServing::Stub* stub) {
  return [stub](grpc::ClientContext* context, const v1::InferRequest* request,
                v1::InferResponse* response, std::function<void(grpc::Status)> done) {
    stub->async()->Infer(context, request, response, std::move(done));
  };
}

std::string HttpAddressOf(ChildProcess& daemon) { return HttpAddressInLog(daemon.Stderr()); }

std::optional<CoreTotals> ScrapeCoreTotals(const std::string& http_address) {
  if (http_address.empty()) return std::nullopt;
  HttpConnection connection(http_address);
  HttpPost get;
  get.method = "GET";
  get.path = "/metrics";
  const HttpAnswer answer = connection.Send(get);
  CoreTotals totals;
  totals.at = absl::Now();
  if (answer.status != 200) return std::nullopt;
  absl::StatusOr<std::vector<testing::PromFamily>> families =
      testing::ParsePrometheusText(answer.body);
  if (!families.ok()) return std::nullopt;
  for (const testing::PromFamily& family : *families) {
    double* sum = family.name == "neuronserve_core_busy_seconds_total" ? &totals.busy_seconds
                  : family.name == "neuronserve_core_executions_total" ? &totals.executions
                                                                       : nullptr;
    if (sum == nullptr) continue;
    for (const testing::PromSample& sample : family.samples) *sum += sample.value;
  }
  return totals;
}

std::string SelfPath() {
  std::error_code error;
  std::filesystem::path path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "" : path.string();
}

}  // namespace neuronserve::bench
