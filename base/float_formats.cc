#include "base/float_formats.h"

#include <algorithm>
#include <bit>

namespace neuronserve {
namespace {

constexpr uint32_t kFloat32QuietNan = 0x7FC00000u;

int BiasOf(FloatFormat format) { return (1 << (format.exponent_bits - 1)) - 1; }

uint32_t ExponentAllOnes(FloatFormat format) {
  return ((1u << format.exponent_bits) - 1) << format.mantissa_bits;
}

uint32_t MantissaAllOnes(FloatFormat format) { return (1u << format.mantissa_bits) - 1; }

// The magnitude bits of the largest finite value.
uint32_t LargestFinite(FloatFormat format) {
  if (format.specials == SpecialEncoding::kIeee) return ExponentAllOnes(format) - 1;
  // FN: the all-ones exponent is normal except for the all-ones mantissa, which is NaN.
  return ExponentAllOnes(format) | (MantissaAllOnes(format) - 1);
}

// The magnitude bits that a value too large to be finite turns into.
uint32_t OverflowResult(FloatFormat format) {
  return format.specials == SpecialEncoding::kIeee ? ExponentAllOnes(format)
                                                   : LargestFinite(format);
}

uint32_t QuietNan(FloatFormat format) {
  if (format.specials == SpecialEncoding::kIeee) {
    return ExponentAllOnes(format) | (1u << (format.mantissa_bits - 1));
  }
  return ExponentAllOnes(format) | MantissaAllOnes(format);
}

}  // namespace

uint32_t EncodeFloat(FloatFormat format, double value) {
  const int mantissa_bits = format.mantissa_bits;
  const uint64_t double_bits = std::bit_cast<uint64_t>(value);
  const uint32_t sign = static_cast<uint32_t>(double_bits >> 63)
                        << (format.exponent_bits + mantissa_bits);
  const int double_exponent_field = static_cast<int>((double_bits >> 52) & 0x7FF);
  const uint64_t double_fraction = double_bits & ((uint64_t{1} << 52) - 1);

  if (double_exponent_field == 0x7FF) {
    return sign | (double_fraction != 0 ? QuietNan(format) : OverflowResult(format));
  }
  // Zero, or a double subnormal (below 2^-1022): far below half the smallest subnormal of any
  // format here (2^-133 for bfloat16), so it rounds to zero.
  if (double_exponent_field == 0) return sign;

  // |value| = significand * 2^(exponent - 52), with significand in [2^52, 2^53).
  const uint64_t significand = (uint64_t{1} << 52) | double_fraction;
  const int exponent = double_exponent_field - 1023;
  // The weight of the last mantissa bit at this magnitude: below the smallest normal exponent
  // the format is subnormal, and the weight stays that of the smallest normal binade.
  const int min_normal_exponent = 1 - BiasOf(format);
  const int unit_exponent = std::max(exponent, min_normal_exponent) - mantissa_bits;
  // |value| in units of 2^unit_exponent is significand >> shift; shift >= 52 - 23.
  const int shift = 52 + unit_exponent - exponent;
  uint64_t units = 0;
  if (shift < 64) {
    units = significand >> shift;
    const uint64_t remainder = significand & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (remainder > half || (remainder == half && (units & 1) != 0)) ++units;
  }
  // Otherwise |value| < 2^53 / 2^64 units: well below half a unit, so zero.

  // For a normal result units is in [2^M, 2^(M+1)], its top bit standing for the implicit 1, so
  // adding it to (biased exponent - 1) << M gives the encoding; a carry out of the mantissa on
  // rounding moves into the exponent by itself. For a subnormal result (biased exponent - 1) is
  // 0 and units is the mantissa, and rounding up to 2^M gives exactly the smallest normal.
  const uint64_t biased_exponent_minus_one =
      static_cast<uint64_t>(unit_exponent + mantissa_bits + BiasOf(format) - 1);
  const uint64_t magnitude = (biased_exponent_minus_one << mantissa_bits) + units;
  if (magnitude > LargestFinite(format)) return sign | OverflowResult(format);
  return sign | static_cast<uint32_t>(magnitude);
}

float DecodeFloat(FloatFormat format, uint32_t bits) {
  const int mantissa_bits = format.mantissa_bits;
  const uint32_t float_sign = ((bits >> (format.exponent_bits + mantissa_bits)) & 1u) << 31;
  const uint32_t exponent_field = (bits >> mantissa_bits) & ((1u << format.exponent_bits) - 1);
  const uint32_t mantissa = bits & MantissaAllOnes(format);
  const uint32_t exponent_all_ones = (1u << format.exponent_bits) - 1;

  if (exponent_field == exponent_all_ones) {
    if (format.specials == SpecialEncoding::kIeee) {
      if (mantissa == 0) return std::bit_cast<float>(float_sign | 0x7F800000u);
      return std::bit_cast<float>(float_sign | kFloat32QuietNan);
    }
    if (mantissa == MantissaAllOnes(format)) {
      return std::bit_cast<float>(float_sign | kFloat32QuietNan);
    }
    // FN: any other mantissa is a normal number, handled below.
  }
  const int fraction_shift = 23 - mantissa_bits;
  if (format.exponent_bits == 8) {
    // Same exponent field as float32 (bfloat16): the encoding is the top bits of a float32,
    // subnormals included. Infinities and NaNs were handled above.
    return std::bit_cast<float>(float_sign | (exponent_field << 23) | (mantissa << fraction_shift));
  }
  const int bias = BiasOf(format);
  if (exponent_field == 0) {
    if (mantissa == 0) return std::bit_cast<float>(float_sign);
    // mantissa * 2^(1 - bias - M). With fewer than 8 exponent bits this is a normal float32:
    // the leading one of the mantissa becomes the implicit bit.
    const int leading_bit = std::bit_width(mantissa) - 1;
    const uint32_t float_exponent =
        static_cast<uint32_t>(1 - bias - mantissa_bits + leading_bit + 127);
    const uint32_t fraction = (mantissa - (1u << leading_bit)) << (23 - leading_bit);
    return std::bit_cast<float>(float_sign | (float_exponent << 23) | fraction);
  }
  const uint32_t float_exponent =
      static_cast<uint32_t>(static_cast<int>(exponent_field) - bias + 127);
  return std::bit_cast<float>(float_sign | (float_exponent << 23) | (mantissa << fraction_shift));
}

}  // namespace neuronserve
