#include "tests/e2e/ops_client.h"

#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/prometheus/prometheus_text_parser.h"

namespace neuronserve::testing {

bool WaitUntil(const std::function<bool()>& condition, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!condition()) {
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return true;
}

std::optional<std::string> WaitForLog(const ChildProcess& process, const std::string& pattern,
                                      absl::Duration timeout) {
  const std::regex expression(pattern);
  std::optional<std::string> found;
  WaitUntil(
      [&] {
        const std::string log = process.Stderr();
        std::smatch match;
        if (!std::regex_search(log, match, expression)) return false;
        found = match.size() > 1 ? match[1].str() : match[0].str();
        return true;
      },
      timeout);
  return found;
}

bool WaitUntilInFlight(const ChildProcess& process, int count) {
  const std::optional<std::string> http = WaitForLog(process, "HTTP endpoint on ([^ ]+)");
  if (!http.has_value()) return false;
  return WaitUntil(
      [&] {
        absl::StatusOr<std::vector<PromFamily>> families =
            ParsePrometheusText(HttpGet("http://" + *http + "/metrics").body + "\n");
        if (!families.ok()) return false;
        double held = 0;
        for (const PromFamily& family : *families) {
          if (family.name != "neuronserve_queue_depth" &&
              family.name != "neuronserve_executions_in_flight") {
            continue;
          }
          for (const PromSample& sample : family.samples) held += sample.value;
        }
        return held >= count;
      },
      absl::Seconds(10));
}

HealthWatch::HealthWatch(const std::shared_ptr<grpc::Channel>& channel,
                         const std::string& service)
    : stub_(grpc::health::v1::Health::NewStub(channel)) {
  reader_ = std::thread([this, service] {
    grpc::health::v1::HealthCheckRequest request;
    request.set_service(service);
    std::unique_ptr<grpc::ClientReader<grpc::health::v1::HealthCheckResponse>> reader =
        stub_->Watch(&context_, request);
    grpc::health::v1::HealthCheckResponse response;
    while (reader->Read(&response)) {
      absl::MutexLock lock(&mutex_);
      received_.push_back(response.status());
    }
    grpc::Status status = reader->Finish();
    absl::MutexLock lock(&mutex_);
    ended_ = status;
  });
}

HealthWatch::~HealthWatch() {
  context_.TryCancel();
  reader_.join();
}

bool HealthWatch::WaitForLatest(HealthStatus status, absl::Duration timeout) {
  absl::MutexLock lock(&mutex_);
  auto latest_is = [this, status]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return !received_.empty() && received_.back() == status;
  };
  return mutex_.AwaitWithTimeout(absl::Condition(&latest_is), timeout);
}

std::vector<HealthStatus> HealthWatch::Received() const {
  absl::MutexLock lock(&mutex_);
  return received_;
}

std::optional<grpc::Status> HealthWatch::Ended() const {
  absl::MutexLock lock(&mutex_);
  return ended_;
}

std::string Describe(const std::vector<HealthStatus>& statuses) {
  std::vector<std::string> names;
  for (HealthStatus status : statuses) {
    names.push_back(grpc::health::v1::HealthCheckResponse::ServingStatus_Name(status));
  }
  return names.empty() ? "(none)" : absl::StrJoin(names, " ");
}

}  // namespace neuronserve::testing
