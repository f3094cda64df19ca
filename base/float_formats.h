// Encoding and decoding of the narrow floating-point element formats of Neuron tensors (float16,
// bfloat16 and the three fp8 formats), with one implementation parameterized by the number of
// exponent and mantissa bits and by how the format spells infinity and NaN. float32 and fp32r
// need none of this: they are stored as float32 bits.
//
// Encoding rounds to nearest, ties to even, with gradual underflow (subnormals), as IEEE 754
// conversions do, so results are bitwise deterministic and match what other tools (numpy,
// ml_dtypes, GCC's _Float16) produce. Decoding is exact: every value of every format here is a
// float32 value.
//
// Thread safety: pure functions of their arguments; call them from any thread.
#ifndef NEURON_SERVE_BASE_FLOAT_FORMATS_H_
#define NEURON_SERVE_BASE_FLOAT_FORMATS_H_

#include <cstdint>

namespace neuronserve {

// How a format spells the values that are not finite numbers.
enum class SpecialEncoding {
  // IEEE 754 style: the all-ones exponent holds +-inf (mantissa 0) and NaNs (mantissa != 0).
  // A finite value whose rounded magnitude exceeds the largest finite becomes +-inf.
  kIeee,
  // OCP FP8 "FN" (finite, NaN) style, used by E4M3: no infinities; the all-ones exponent holds
  // normal numbers except S.1111.111, the only NaN. Encoding SATURATES: a finite value beyond the
  // largest finite, and +-inf, become +-largest finite (the OCP spec's "saturate" conversion,
  // which is what accelerators use because an fp8 tensor has no way to say "too large").
  kFiniteWithOneNan,
};

// A binary floating-point format of 1 sign bit, `exponent_bits` biased exponent bits (bias
// 2^(exponent_bits-1) - 1) and `mantissa_bits` stored fraction bits, packed in that order into
// the low 1 + exponent_bits + mantissa_bits bits of an encoding. Valid for 2 <= exponent_bits
// <= 8 and 1 <= mantissa_bits <= 23, i.e. formats whose values are all float32 values.
struct FloatFormat {
  int exponent_bits;
  int mantissa_bits;
  SpecialEncoding specials;
};

// IEEE binary16: E5M10, bias 15, max finite 65504.
inline constexpr FloatFormat kFloat16Format{5, 10, SpecialEncoding::kIeee};
// The top 16 bits of a float32: E8M7, bias 127.
inline constexpr FloatFormat kBFloat16Format{8, 7, SpecialEncoding::kIeee};
// fp8 E5M2, IEEE-like: bias 15, max finite 57344, infinities and NaNs.
inline constexpr FloatFormat kFp8E5M2Format{5, 2, SpecialEncoding::kIeee};
// fp8 E4M3FN (OCP): bias 7, max finite 448, no infinities, only NaN S.1111.111.
inline constexpr FloatFormat kFp8E4M3Format{4, 3, SpecialEncoding::kFiniteWithOneNan};
// fp8 E3M4, IEEE-like: bias 3, max finite 15.5, infinities and NaNs.
inline constexpr FloatFormat kFp8E3M4Format{3, 4, SpecialEncoding::kIeee};

// The encoding of `value` in `format`, rounded to nearest with ties to even. NaN gives a quiet
// NaN with the sign of `value`; +-inf gives +-inf (kIeee) or +-largest finite (kFiniteWithOneNan);
// overflow is handled as SpecialEncoding describes. Bits above the format's width are zero.
uint32_t EncodeFloat(FloatFormat format, double value);

// The exact value of `bits` (the format's low bits; higher bits are ignored) as a float32. NaN
// encodings give a quiet float32 NaN with the same sign.
float DecodeFloat(FloatFormat format, uint32_t bits);

}  // namespace neuronserve

#endif  // NEURON_SERVE_BASE_FLOAT_FORMATS_H_
