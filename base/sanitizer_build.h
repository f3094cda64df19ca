// Whether this program is compiled with a sanitizer (AddressSanitizer, ThreadSanitizer or
// MemorySanitizer; gcc's and clang's ways of saying so). A sanitizer brings its own allocator:
// mallopt and mallinfo2 do not describe it, and its quarantine holds freed memory on purpose.
// The product asks (util/malloc_tuning.cc) and so do the tests (tests/support/sanitizer_build.h).
// Header-only, no dependencies.
#ifndef NEURON_SERVE_BASE_SANITIZER_BUILD_H_
#define NEURON_SERVE_BASE_SANITIZER_BUILD_H_

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define NEURON_SERVE_UNDER_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#undef NEURON_SERVE_UNDER_SANITIZER
#define NEURON_SERVE_UNDER_SANITIZER 1
#endif
#ifndef NEURON_SERVE_UNDER_SANITIZER
#define NEURON_SERVE_UNDER_SANITIZER 0
#endif

namespace neuronserve {

inline constexpr bool kUnderSanitizer = NEURON_SERVE_UNDER_SANITIZER != 0;

}  // namespace neuronserve

#endif  // NEURON_SERVE_BASE_SANITIZER_BUILD_H_
