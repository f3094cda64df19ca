// The same glibc malloc settings for the client and both servers.
//
// Why: with glibc's defaults a process that frees a multi-MiB buffer at the top of its heap
// hands the pages back to the kernel (trim), and faults them in again, zero-filled, on the next
// request. Whether that happens on every request depends on the order of a server's
// allocations, not on how much work it does: measured here at 1 MiB, the echo server took
// several times as many page faults per request as the daemon and was the slower of the two,
// although it copies the payload fewer times.
// Keeping freed memory (a high trim threshold) and heap-allocating up to 32 MiB (glibc's
// largest mmap threshold) takes the kernel out of both paths alike. --malloc=default turns it
// off.
#ifndef NEURON_SERVE_TESTS_BENCH_MALLOC_TUNING_H_
#define NEURON_SERVE_TESTS_BENCH_MALLOC_TUNING_H_

#include <string>

namespace neuronserve::bench {

// For the servers' environment: GLIBC_TUNABLES with the settings added to `existing` (the
// bench's own GLIBC_TUNABLES, or null).
std::string TunedGlibcTunables(const char* existing);

// The same settings for this process, through mallopt (tunables are read only at start).
void TuneThisProcess();

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_MALLOC_TUNING_H_
