// The W3C Trace Context `traceparent` a client sends (an HTTP header, or gRPC metadata of the
// same name), checked before the access log carries it, so that a client's trace and the
// daemon's log line of the request join, and nothing else a client writes reaches the log.
//
// Format (https://www.w3.org/TR/trace-context/, version 00):
//   VERSION "-" TRACE-ID "-" PARENT-ID "-" FLAGS
// with 2, 32, 16 and 2 lowercase hex digits; version ff is invalid, and an all-zero trace id or
// parent id is invalid. A later version may append "-" and more fields: its first 55 characters
// are read as version 00's fields, and the rest is not logged.
//
// Thread safety: a pure function.
#ifndef NEURON_SERVE_SERVER_LOGS_TRACEPARENT_H_
#define NEURON_SERVE_SERVER_LOGS_TRACEPARENT_H_

#include <string_view>

namespace neuronserve {

// The value to log: `header` itself (version 00), its first 55 characters (a later version), or
// empty when it is absent or not a valid traceparent (a client's mistake is not the log's).
std::string_view LoggableTraceparent(std::string_view header);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_LOGS_TRACEPARENT_H_
