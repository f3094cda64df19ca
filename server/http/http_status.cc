#include "server/http/http_status.h"

#include <string>

#include "util/json_escape.h"

namespace neuronserve {

int HttpStatusOf(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return 409;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kCancelled:
      return 499;
    case absl::StatusCode::kUnimplemented:
      return 501;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    default:
      return 500;
  }
}

HttpResponse HttpErrorResponse(int status, std::string_view message) {
  HttpResponse response;
  response.status = status;
  response.content_type = "application/json";
  response.body = "{\"error\":\"";
  AppendJsonEscaped(message, response.body);
  response.body += "\"}";
  // Every 503 (a full queue, a model or daemon not ready, a shutdown) is worth retrying.
  if (status == 503) response.headers.emplace_back("Retry-After", "1");
  return response;
}

HttpResponse HttpErrorResponse(const absl::Status& status) {
  return HttpErrorResponse(HttpStatusOf(status.code()),
                           std::string_view(status.message().data(), status.message().size()));
}

}  // namespace neuronserve
