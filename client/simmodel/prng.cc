#include "client/simmodel/prng.h"

#include <utility>

namespace neuronserve::simmodel {

uint64_t SplitMix64::Next() {
  state_ += 0x9E3779B97F4A7C15ULL;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

float SplitMix64::NextSymmetricFloat(double limit) {
  // The top 25 bits give an integer k in [0, 2^25); (k - 2^24) / 2^24 is exactly representable
  // in a double and lies in [-1, 1).
  constexpr int64_t kHalfRange = int64_t{1} << 24;
  const int64_t k = static_cast<int64_t>(Next() >> 39);
  const double unit = static_cast<double>(k - kHalfRange) / static_cast<double>(kHalfRange);
  return static_cast<float>(unit * limit);
}

Constant RandomConstant(Shape shape, double limit, SplitMix64& rng) {
  Constant constant{std::move(shape), {}};
  // The builders bound the size.
  const uint64_t count = CheckedElementCount(constant.shape).value_or(0);
  constant.data.reserve(count);
  for (uint64_t i = 0; i < count; ++i) constant.data.push_back(rng.NextSymmetricFloat(limit));
  return constant;
}

}  // namespace neuronserve::simmodel
