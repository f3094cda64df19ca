// HTTP error answers: the HTTP status of each status code (the same code the gRPC front end
// would give; KServe v2 REST and Triton answer errors so) and the one JSON error body,
// {"error": "..."}, that the server's own refusals and every route's errors use.
//
// Thread safety: pure functions.
#ifndef NEURON_SERVE_SERVER_HTTP_HTTP_STATUS_H_
#define NEURON_SERVE_SERVER_HTTP_HTTP_STATUS_H_

#include <string_view>

#include "absl/status/status.h"
#include "server/http/http_exchange.h"

namespace neuronserve {

// OK 200; INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE 400; UNAUTHENTICATED 401;
// PERMISSION_DENIED 403; NOT_FOUND 404; ALREADY_EXISTS, ABORTED 409; RESOURCE_EXHAUSTED 429;
// CANCELLED 499 (nginx's "client closed request": no standard status says it); UNIMPLEMENTED 501;
// UNAVAILABLE 503; DEADLINE_EXCEEDED 504; every other code 500.
int HttpStatusOf(absl::StatusCode code);

// `status` with the body {"error": "MESSAGE"} (application/json).
HttpResponse HttpErrorResponse(int status, std::string_view message);
// HttpErrorResponse(HttpStatusOf(status.code()), status.message()).
HttpResponse HttpErrorResponse(const absl::Status& status);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_HTTP_HTTP_STATUS_H_
