// Whether this program is compiled with a sanitizer (base/sanitizer_build.h tells), for the few
// tests that must do less or check differently there: a sanitizer's allocator ignores mallopt,
// and its quarantine holds freed memory, so a bound on RSS says nothing. Header-only.
#ifndef NEURON_SERVE_TESTS_SUPPORT_SANITIZER_BUILD_H_
#define NEURON_SERVE_TESTS_SUPPORT_SANITIZER_BUILD_H_

#include "base/sanitizer_build.h"

#if NEURON_SERVE_UNDER_SANITIZER
#define NEURON_SERVE_TEST_UNDER_SANITIZER 1
#endif

namespace neuronserve::testing {

using ::neuronserve::kUnderSanitizer;

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_SANITIZER_BUILD_H_
