// SanitizerReport: the report a sanitizer wrote into a child's stderr, so that a test can show
// it whole when a server it started was stopped by one (a CI log that shows only the last lines
// of a long log may cut the report's head: which access, which thread, where it was freed).
//
// Thread safety: a pure function.
#ifndef NEURON_SERVE_TESTS_SUPPORT_SANITIZER_REPORT_H_
#define NEURON_SERVE_TESTS_SUPPORT_SANITIZER_REPORT_H_

#include <string>
#include <string_view>

namespace neuronserve::testing {

// `log` from the start of the line holding the first sanitizer report's opening to the end:
// `==PID==ERROR:` (AddressSanitizer, LeakSanitizer, MemorySanitizer) or `WARNING:
// ThreadSanitizer:`, whichever comes first. Empty when `log` holds none.
std::string SanitizerReport(std::string_view log);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_SANITIZER_REPORT_H_
