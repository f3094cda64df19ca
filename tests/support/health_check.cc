#include "tests/support/health_check.h"

#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/client_context.h"

namespace neuronserve::testing {

int HealthCheck(const std::shared_ptr<grpc::Channel>& channel, const std::string& service,
                absl::Duration deadline) {
  auto stub = grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = stub->Check(&context, request, &response);
  return status.ok() ? static_cast<int>(response.status()) : -1;
}

}  // namespace neuronserve::testing
