// Whether this program is compiled with a sanitizer (AddressSanitizer, ThreadSanitizer or
// MemorySanitizer; gcc's and clang's ways of saying so), for the few tests that must do less or
// check differently there: a sanitizer's allocator ignores mallopt, and its quarantine holds
// freed memory, so a bound on RSS says nothing. Header-only, no dependencies.
#ifndef NEURON_SERVE_TESTS_SUPPORT_SANITIZER_BUILD_H_
#define NEURON_SERVE_TESTS_SUPPORT_SANITIZER_BUILD_H_

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define NEURON_SERVE_TEST_UNDER_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NEURON_SERVE_TEST_UNDER_SANITIZER 1
#endif

namespace neuronserve::testing {

#ifdef NEURON_SERVE_TEST_UNDER_SANITIZER
inline constexpr bool kUnderSanitizer = true;
#else
inline constexpr bool kUnderSanitizer = false;
#endif

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_SANITIZER_BUILD_H_
