// A small pseudo-random generator whose output is fixed by its seed on every machine and
// compiler, so that a model written with `--seed N` is byte-for-byte reproducible.
//
// The standard <random> distributions are implementation-defined (libstdc++ and libc++ give
// different values for the same engine state), so they cannot be used for shipped weights.
#ifndef NEURON_SERVE_CLIENT_SIMMODEL_PRNG_H_
#define NEURON_SERVE_CLIENT_SIMMODEL_PRNG_H_

#include <cstdint>

#include "sim/simmodel/sim_model.h"

namespace neuronserve::simmodel {

// SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators", 2014).
// Every seed, including 0, gives a full-period sequence.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t Next();

  // Uniform in [-limit, limit] (rounded to float32). Uses only exactly-specified IEEE operations
  // (an exact integer-to-double scaling, one multiplication, one rounding to float), so the
  // result does not depend on the compiler's floating-point contraction or library.
  float NextSymmetricFloat(double limit);

 private:
  uint64_t state_;
};

// A float32 constant of `shape` whose elements, in row-major order, are the generator's next
// NextSymmetricFloat(limit) values: how the builders draw weights, so the order of the draws is
// part of each model's documented format.
Constant RandomConstant(Shape shape, double limit, SplitMix64& rng);

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_CLIENT_SIMMODEL_PRNG_H_
