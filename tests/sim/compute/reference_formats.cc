#include "tests/sim/compute/reference_formats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace neuronserve::nrtsim::compute::testing {

#if defined(__FLT16_MAX__)  // the compiler has _Float16 (GCC 12, clang 15 and later on x86-64)

uint16_t ReferenceFloat16Bits(double value) {
  const _Float16 half = static_cast<_Float16>(value);
  uint16_t bits;
  std::memcpy(&bits, &half, sizeof bits);
  return bits;
}

float ReferenceFloat16Value(uint16_t bits) {
  _Float16 half;
  std::memcpy(&half, &bits, sizeof half);
  return static_cast<float>(half);
}

#else  // clang 14 (CI's AddressSanitizer build) has no _Float16 on x86-64

// The method of the fp8 references below: the format's values computed from their fields with
// ldexp, and the nearest one taken (ties to the even pattern). The non-negative patterns'
// values grow with their bits, so a binary search finds the two around a value. Pattern 0x7C00
// (infinity) stands at 65536, where an unbounded exponent would put it, so values from halfway
// above the largest finite (65520) round to infinity, as IEEE rounding does.
namespace {

double Float16MagnitudeValue(uint16_t bits) {  // bits <= 0x7C00, no sign
  const int exponent = bits >> 10;
  const int mantissa = bits & 0x3FF;
  if (exponent == 0) return std::ldexp(mantissa, -24);
  return std::ldexp(1024 + mantissa, exponent - 25);
}

}  // namespace

uint16_t ReferenceFloat16Bits(double value) {
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) return static_cast<uint16_t>(sign | 0x7E00);
  const double magnitude = std::fabs(value);
  if (magnitude >= Float16MagnitudeValue(0x7C00)) return static_cast<uint16_t>(sign | 0x7C00);
  // The lowest pattern whose value is at least the magnitude.
  uint16_t low = 0;
  uint16_t high = 0x7C00;
  while (low < high) {
    const uint16_t middle = static_cast<uint16_t>((low + high) / 2);
    if (Float16MagnitudeValue(middle) < magnitude) {
      low = static_cast<uint16_t>(middle + 1);
    } else {
      high = middle;
    }
  }
  if (low == 0) return sign;
  const double above = Float16MagnitudeValue(low) - magnitude;
  const double below = magnitude - Float16MagnitudeValue(low - 1);
  const bool take_below = below < above || (below == above && ((low - 1) & 1) == 0);
  return static_cast<uint16_t>(sign | (take_below ? low - 1 : low));
}

float ReferenceFloat16Value(uint16_t bits) {
  const double sign = (bits & 0x8000) != 0 ? -1.0 : 1.0;
  const uint16_t magnitude = bits & 0x7FFF;
  if (magnitude > 0x7C00) return static_cast<float>(std::copysign(NAN, sign));
  if (magnitude == 0x7C00) return static_cast<float>(sign * INFINITY);
  return static_cast<float>(sign * Float16MagnitudeValue(magnitude));
}

#endif

uint16_t ReferenceBFloat16Bits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x0040);
  // Adding 0x7FFF rounds the low half up when it is above one half; adding the kept half's lowest
  // bit as well makes an exact half round up only when that bit is odd.
  bits += 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t ReferenceBFloat16BitsFromDouble(double value) {
  if (std::isnan(value) || std::isinf(value))
    return ReferenceBFloat16Bits(static_cast<float>(value));
  int exponent = 0;
  std::frexp(value, &exponent);  // |value| = m * 2^exponent, m in [0.5, 1)
  // 8 significant bits for normals (value in [2^(exponent-1), 2^exponent)); below the smallest
  // normal 2^-126 the last kept bit is fixed at 2^-133.
  const int last_bit_exponent = std::max(exponent - 8, -133);
  const double rounded =
      std::ldexp(std::nearbyint(std::ldexp(value, -last_bit_exponent)), last_bit_exponent);
  const double largest_finite = std::ldexp(255.0, 120);  // (2 - 2^-7) * 2^127
  if (std::fabs(rounded) > largest_finite) return std::signbit(value) ? 0xFF80 : 0x7F80;
  // rounded is now a bfloat16 value, so also an exact float32.
  return static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(rounded)) >> 16);
}

float ReferenceBFloat16Value(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

double ReferenceFp8Value(Fp8Spec spec, uint8_t bits) {
  const int sign_shift = spec.exponent_bits + spec.mantissa_bits;
  const double sign = (bits >> sign_shift) & 1 ? -1.0 : 1.0;
  const int exponent = (bits >> spec.mantissa_bits) & ((1 << spec.exponent_bits) - 1);
  const int mantissa = bits & ((1 << spec.mantissa_bits) - 1);
  const int exponent_max = (1 << spec.exponent_bits) - 1;
  const int mantissa_max = (1 << spec.mantissa_bits) - 1;
  if (spec.has_infinity && exponent == exponent_max) {
    return mantissa == 0 ? sign * INFINITY : std::copysign(NAN, sign);
  }
  if (!spec.has_infinity && exponent == exponent_max && mantissa == mantissa_max) {
    return std::copysign(NAN, sign);
  }
  const double fraction = std::ldexp(mantissa, -spec.mantissa_bits);
  if (exponent == 0) return sign * std::ldexp(fraction, 1 - spec.bias);
  return sign * std::ldexp(1.0 + fraction, exponent - spec.bias);
}

uint8_t ReferenceFp8Bits(Fp8Spec spec, double value) {
  const int sign_shift = spec.exponent_bits + spec.mantissa_bits;
  const uint8_t sign = std::signbit(value) ? static_cast<uint8_t>(1u << sign_shift) : 0;
  const int infinity_bits = ((1 << spec.exponent_bits) - 1) << spec.mantissa_bits;
  if (std::isnan(value)) {
    const int nan_bits = spec.has_infinity ? infinity_bits | (1 << (spec.mantissa_bits - 1))
                                           : infinity_bits | ((1 << spec.mantissa_bits) - 1);
    return static_cast<uint8_t>(sign | nan_bits);
  }
  const double magnitude = std::fabs(value);
  if (std::isinf(value)) {
    // Without infinities, the largest finite is the pattern below the all-ones NaN.
    const int largest_finite_bits = (1 << sign_shift) - 2;
    return static_cast<uint8_t>(sign | (spec.has_infinity ? infinity_bits : largest_finite_bits));
  }
  // Candidates: every non-negative finite pattern, and, with infinities, infinity standing at the
  // next power of two above the largest finite (where an unbounded exponent would put it).
  int best_bits = 0;
  double best_distance = INFINITY;
  for (int bits = 0; bits < (1 << sign_shift); ++bits) {
    double candidate = ReferenceFp8Value(spec, static_cast<uint8_t>(bits));
    if (std::isnan(candidate)) continue;
    if (std::isinf(candidate)) {
      const int largest_exponent = (1 << spec.exponent_bits) - 2 - spec.bias;
      candidate = std::ldexp(1.0, largest_exponent + 1);
    }
    const double distance = std::fabs(candidate - magnitude);
    const bool better = distance < best_distance || (distance == best_distance && (bits & 1) == 0);
    if (better) {
      best_distance = distance;
      best_bits = bits;
    }
  }
  return static_cast<uint8_t>(sign | best_bits);
}

}  // namespace neuronserve::nrtsim::compute::testing
