// Reference encodings of the narrow float formats for the compute tests, computed by methods
// unrelated to base/float_formats.cc: the compiler's _Float16 for float16 (where it has none,
// as clang 14 on x86-64, the nearest of the format's values, as for fp8), the well-known
// add-and-truncate bit formula for bfloat16, and for fp8 a search for the nearest of the format's
// 256 values, each value computed from its fields with ldexp.
//
// Thread safety: pure functions.
#ifndef NEURON_SERVE_TESTS_SIM_COMPUTE_REFERENCE_FORMATS_H_
#define NEURON_SERVE_TESTS_SIM_COMPUTE_REFERENCE_FORMATS_H_

#include <cstdint>

namespace neuronserve::nrtsim::compute::testing {

// float16 bits of `value` rounded to nearest-even, by the compiler's _Float16 conversion.
uint16_t ReferenceFloat16Bits(double value);
// The value of float16 `bits`, by the compiler's _Float16 conversion.
float ReferenceFloat16Value(uint16_t bits);

// bfloat16 bits of a float32, rounded to nearest-even on the float32 bits; a NaN keeps its sign
// and top payload bits and is made quiet.
uint16_t ReferenceBFloat16Bits(float value);
// bfloat16 bits of any double, rounded to nearest-even by scaling the value so that the kept
// bits are the integer part and rounding that with std::nearbyint (the default rounding mode is
// to nearest, ties to even): no float32 in between, so no double rounding.
uint16_t ReferenceBFloat16BitsFromDouble(double value);
// The float32 whose top half is `bits`.
float ReferenceBFloat16Value(uint16_t bits);

// The three fp8 formats, described by their fields as the specs write them.
struct Fp8Spec {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  bool has_infinity;  // false for E4M3FN, whose only NaN is S.1111.111
};
inline constexpr Fp8Spec kE5M2Spec{5, 2, 15, true};
inline constexpr Fp8Spec kE4M3Spec{4, 3, 7, false};
inline constexpr Fp8Spec kE3M4Spec{3, 4, 3, true};

// The value of an fp8 pattern: (-1)^s * 2^(e - bias) * (1 + m / 2^M), or 2^(1 - bias) * m / 2^M
// for e = 0; +-inf or NaN for the special patterns.
double ReferenceFp8Value(Fp8Spec spec, uint8_t bits);

// The pattern nearest to `value` (ties to the even pattern). With infinities, a magnitude at or
// beyond the midpoint between the largest finite and the next power of two becomes inf (IEEE);
// without, the largest finite is the nearest of anything beyond it (saturation). NaN gives the
// quiet NaN (IEEE: top mantissa bit set) with the sign of `value`.
uint8_t ReferenceFp8Bits(Fp8Spec spec, double value);

}  // namespace neuronserve::nrtsim::compute::testing

#endif  // NEURON_SERVE_TESTS_SIM_COMPUTE_REFERENCE_FORMATS_H_
