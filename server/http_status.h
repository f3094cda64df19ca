// HttpStatusOf: the HTTP status the REST front end answers for each status code, the same code
// the gRPC front end would give (KServe v2 REST and Triton answer errors so). gRPC-free.
//
// Thread safety: a pure function.
#ifndef NEURON_SERVE_SERVER_HTTP_STATUS_H_
#define NEURON_SERVE_SERVER_HTTP_STATUS_H_

#include "absl/status/status.h"

namespace neuronserve {

// OK 200; INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE 400; UNAUTHENTICATED 401;
// PERMISSION_DENIED 403; NOT_FOUND 404; ALREADY_EXISTS, ABORTED 409; RESOURCE_EXHAUSTED 429;
// CANCELLED 499 (nginx's "client closed request": no standard status says it); UNIMPLEMENTED 501;
// UNAVAILABLE 503; DEADLINE_EXCEEDED 504; every other code 500.
int HttpStatusOf(absl::StatusCode code);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_HTTP_STATUS_H_
