// Encoding and decoding of float16, bfloat16 and the fp8 formats (sim/compute/
// float_formats.h), against GCC's _Float16, the bfloat16 bit formula, hand-computed tables and a
// nearest-value search (reference_formats.h).
#include "base/float_formats.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tests/sim/compute/reference_formats.h"

namespace neuronserve::nrtsim::compute {
namespace {

using testing::Fp8Spec;

// Values at and around every interesting boundary of the narrow formats: zeros, infinities, NaNs
// of both signs, the smallest subnormals, halfway points and the overflow thresholds.
std::vector<double> EdgeValues() {
  std::vector<double> values = {
      0.0,
      -0.0,
      INFINITY,
      -INFINITY,
      NAN,
      -NAN,
      1.0,
      -1.0,
      // float16: smallest subnormal 2^-24, half of it (tie to 0), just above half, 1.5 units (tie
      // to 2), largest subnormal, largest subnormal + half unit (tie up to the smallest normal).
      std::ldexp(1.0, -24),
      std::ldexp(1.0, -25),
      std::ldexp(1.0000001, -25),
      std::ldexp(3.0, -25),
      std::ldexp(1023.0, -24),
      std::ldexp(1023.5, -24),
      std::ldexp(1022.5, -24),
      std::ldexp(1.0, -14),
      // float16 ties at 1: 1 + 2^-11 rounds down to 1 (even), 1 + 3*2^-11 rounds up to 1 + 2^-9.
      1.0 + std::ldexp(1.0, -11),
      1.0 + std::ldexp(3.0, -11),
      1.0 + std::ldexp(1.0, -11) + 1e-12,
      // float16 overflow: 65504 is the largest finite, 65520 the midpoint to 65536.
      65504.0,
      65519.99,
      65520.0,
      -65520.0,
      65536.0,
      1e6,
      -1e300,
      1e-300,
      // bfloat16 / float32 boundaries.
      std::numeric_limits<float>::max(),
      std::numeric_limits<float>::min(),
      std::numeric_limits<float>::denorm_min(),
      std::ldexp(1.0, -133),
      std::ldexp(1.0, -134),
      std::ldexp(1.5, -134),
      3.3895313892515355e38,
      3.3961775292304135e38,
      3.4e38,
      // fp8 maxima and their overflow midpoints.
      57344.0,
      61440.0,
      61439.0,
      448.0,
      464.0,
      465.0,
      480.0,
      15.5,
      15.75,
      15.7,
      16.0,
      std::ldexp(1.0, -16),
      std::ldexp(1.0, -17),
      std::ldexp(3.0, -17),
      std::ldexp(1.0, -9),
      std::ldexp(1.0, -10),
      std::ldexp(1.0, -6),
      std::ldexp(1.0, -7),
      std::ldexp(7.5, -9),
      0.1,
      -0.3,
      3.14159,
      1.0625,
      1.1875,
      1.125,
      1.375,
      1.03125,
  };
  const size_t count = values.size();
  for (size_t i = 0; i < count; ++i) values.push_back(-values[i]);
  return values;
}

// Every 4099th float32 bit pattern (a prime stride, so every exponent and many mantissas are
// visited), as doubles.
std::vector<double> Float32Sweep() {
  std::vector<double> values;
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFu; bits += 4099) {
    values.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  }
  return values;
}

// Doubles that are not float32 values, around the ranges of the small formats: catches rounding
// through float32 first (double rounding).
std::vector<double> DoubleSweep() {
  std::vector<double> values;
  for (int exponent = -30; exponent <= 20; ++exponent) {
    for (uint64_t fraction = 0; fraction < (uint64_t{1} << 52); fraction += 0x0001234567891ull) {
      values.push_back(std::ldexp(1.0 + std::ldexp(static_cast<double>(fraction), -52), exponent));
    }
  }
  return values;
}

void ExpectSameFloat(float expected, float actual, uint32_t bits) {
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(actual)) << "bits 0x" << std::hex << bits;
    EXPECT_EQ(std::signbit(expected), std::signbit(actual)) << "bits 0x" << std::hex << bits;
  } else {
    EXPECT_EQ(std::bit_cast<uint32_t>(expected), std::bit_cast<uint32_t>(actual))
        << "bits 0x" << std::hex << bits << ": expected " << expected << ", got " << actual;
  }
}

// float16 -------------------------------------------------------------------------------------

TEST(Float16, DecodesEveryPatternLikeGccFloat16) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    ExpectSameFloat(testing::ReferenceFloat16Value(static_cast<uint16_t>(bits)),
                    DecodeFloat(kFloat16Format, bits), bits);
  }
}

// GCC's _Float16 keeps a NaN's payload where this encoder gives the canonical quiet NaN, so NaNs
// are compared by class and sign.
void ExpectFloat16Encoding(double value) {
  const uint16_t expected = testing::ReferenceFloat16Bits(value);
  const uint32_t actual = EncodeFloat(kFloat16Format, value);
  if (std::isnan(value)) {
    EXPECT_EQ(actual & 0x7E00u, 0x7E00u) << "quiet NaN expected for " << value;
    EXPECT_EQ(actual & 0x8000u, expected & 0x8000u);
    return;
  }
  EXPECT_EQ(expected, actual) << "value " << value << " (" << std::hexfloat << value << ")";
}

TEST(Float16, EncodesEdgeValuesLikeGccFloat16) {
  for (double value : EdgeValues()) ExpectFloat16Encoding(value);
}

TEST(Float16, EncodesAFloat32SweepLikeGccFloat16) {
  for (double value : Float32Sweep()) ExpectFloat16Encoding(value);
}

TEST(Float16, EncodesDoublesWithOneRoundingLikeGccFloat16) {
  for (double value : DoubleSweep()) ExpectFloat16Encoding(value);
}

TEST(Float16, HandComputedCases) {
  EXPECT_EQ(EncodeFloat(kFloat16Format, 65520.0), 0x7C00u);   // midpoint to 2^16: inf
  EXPECT_EQ(EncodeFloat(kFloat16Format, 65519.99), 0x7BFFu);  // 65504
  EXPECT_EQ(EncodeFloat(kFloat16Format, -65520.0), 0xFC00u);
  EXPECT_EQ(EncodeFloat(kFloat16Format, std::ldexp(1.0, -24)), 0x0001u);
  EXPECT_EQ(EncodeFloat(kFloat16Format, std::ldexp(1.0, -25)), 0x0000u);     // tie to even 0
  EXPECT_EQ(EncodeFloat(kFloat16Format, std::ldexp(3.0, -25)), 0x0002u);     // tie to even 2
  EXPECT_EQ(EncodeFloat(kFloat16Format, std::ldexp(1023.5, -24)), 0x0400u);  // into normals
  EXPECT_EQ(EncodeFloat(kFloat16Format, -0.0), 0x8000u);
  EXPECT_EQ(EncodeFloat(kFloat16Format, NAN), 0x7E00u);
  EXPECT_EQ(EncodeFloat(kFloat16Format, -NAN), 0xFE00u);
  EXPECT_EQ(DecodeFloat(kFloat16Format, 0x3C00), 1.0f);
  EXPECT_EQ(DecodeFloat(kFloat16Format, 0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(DecodeFloat(kFloat16Format, 0x7BFF), 65504.0f);
}

// bfloat16 ------------------------------------------------------------------------------------

TEST(BFloat16, DecodesEveryPatternAsTheTopOfAFloat32) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    ExpectSameFloat(testing::ReferenceBFloat16Value(static_cast<uint16_t>(bits)),
                    DecodeFloat(kBFloat16Format, bits), bits);
  }
}

void ExpectBFloat16Encoding(float value) {
  const uint16_t expected = testing::ReferenceBFloat16Bits(value);
  const uint32_t actual = EncodeFloat(kBFloat16Format, value);
  if (std::isnan(value)) {
    EXPECT_EQ(actual & 0x7FC0u, 0x7FC0u) << "quiet NaN expected";
    EXPECT_EQ(actual & 0x8000u, expected & 0x8000u);
    return;
  }
  EXPECT_EQ(expected, actual) << "value " << value << " (" << std::hexfloat << value << ")";
}

TEST(BFloat16, EncodesEdgeValuesLikeTheBitFormula) {
  for (double value : EdgeValues()) {
    // The bit formula rounds float32s, so only float32 values are compared with it.
    if (static_cast<double>(static_cast<float>(value)) == value || std::isnan(value)) {
      ExpectBFloat16Encoding(static_cast<float>(value));
    }
  }
}

TEST(BFloat16, EncodesAFloat32SweepLikeTheBitFormula) {
  for (double value : Float32Sweep()) ExpectBFloat16Encoding(static_cast<float>(value));
}

TEST(BFloat16, HandComputedCases) {
  EXPECT_EQ(EncodeFloat(kBFloat16Format, 1.0), 0x3F80u);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: even is 1.
  EXPECT_EQ(EncodeFloat(kBFloat16Format, 1.0 + std::ldexp(1.0, -8)), 0x3F80u);
  // 1 + 3*2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: even is 1 + 2^-6.
  EXPECT_EQ(EncodeFloat(kBFloat16Format, 1.0 + std::ldexp(3.0, -8)), 0x3F82u);
  // Just above the first tie, by less than a float32 ulp: rounding through float32 would see
  // the tie and give 1; one rounding from the double gives 1 + 2^-7.
  EXPECT_EQ(EncodeFloat(kBFloat16Format, 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)),
            0x3F81u);
  // The largest finite bfloat16 is 0x7F7F = (2 - 2^-7) * 2^127; the midpoint to 2^128 overflows.
  EXPECT_EQ(EncodeFloat(kBFloat16Format, std::ldexp(2.0 - std::ldexp(1.0, -7), 127)), 0x7F7Fu);
  EXPECT_EQ(EncodeFloat(kBFloat16Format, std::ldexp(2.0 - std::ldexp(1.0, -8), 127)), 0x7F80u);
  EXPECT_EQ(EncodeFloat(kBFloat16Format, std::numeric_limits<float>::max()), 0x7F80u);
  EXPECT_EQ(EncodeFloat(kBFloat16Format, 1e300), 0x7F80u);
  EXPECT_EQ(EncodeFloat(kBFloat16Format, -INFINITY), 0xFF80u);
  // Smallest subnormal 2^-133; half of it ties to 0; 1.5 of it ties to 2 units.
  EXPECT_EQ(EncodeFloat(kBFloat16Format, std::ldexp(1.0, -133)), 0x0001u);
  EXPECT_EQ(EncodeFloat(kBFloat16Format, std::ldexp(1.0, -134)), 0x0000u);
  EXPECT_EQ(EncodeFloat(kBFloat16Format, std::ldexp(3.0, -134)), 0x0002u);
  // The largest subnormal plus half a unit rounds into the smallest normal 2^-126.
  EXPECT_EQ(EncodeFloat(kBFloat16Format, std::ldexp(127.5, -133)), 0x0080u);
  EXPECT_EQ(EncodeFloat(kBFloat16Format, NAN), 0x7FC0u);
  EXPECT_EQ(EncodeFloat(kBFloat16Format, -NAN), 0xFFC0u);
  EXPECT_TRUE(std::isnan(DecodeFloat(kBFloat16Format, 0x7F81)));  // signaling pattern
  EXPECT_EQ(DecodeFloat(kBFloat16Format, 0x0001), std::ldexp(1.0f, -133));
}

// fp8 -----------------------------------------------------------------------------------------

struct Fp8Case {
  double value;
  uint32_t bits;
};

void ExpectFp8Table(FloatFormat format, const std::vector<Fp8Case>& cases) {
  for (const Fp8Case& c : cases) {
    EXPECT_EQ(EncodeFloat(format, c.value), c.bits)
        << "encoding " << c.value << " (" << std::hexfloat << c.value << ")";
  }
}

TEST(Fp8E5M2, HandComputedCases) {
  ExpectFp8Table(kFp8E5M2Format, {
                                     {1.0, 0x3C},
                                     {-2.0, 0xC0},
                                     {57344.0, 0x7B},  // max finite 1.75 * 2^15
                                     {61439.0, 0x7B},  // below the midpoint to 2^16
                                     {61440.0, 0x7C},  // midpoint: ties to even = inf
                                     {1e9, 0x7C},
                                     {-1e9, 0xFC},
                                     {INFINITY, 0x7C},
                                     {NAN, 0x7E},
                                     {-NAN, 0xFE},
                                     {std::ldexp(1.0, -16), 0x01},  // min subnormal
                                     {std::ldexp(1.0, -17), 0x00},  // tie to even 0
                                     {std::ldexp(1.0001, -17), 0x01},
                                     {std::ldexp(3.0, -17), 0x02},  // tie to even 2
                                     {std::ldexp(3.5, -16), 0x04},  // into min normal 2^-14
                                     {1.125, 0x3C},                 // tie between 1 and 1.25
                                     {1.375, 0x3E},                 // tie between 1.25 and 1.5
                                 });
  EXPECT_EQ(DecodeFloat(kFp8E5M2Format, 0x7B), 57344.0f);
  EXPECT_EQ(DecodeFloat(kFp8E5M2Format, 0x01), std::ldexp(1.0f, -16));
  EXPECT_EQ(DecodeFloat(kFp8E5M2Format, 0xFC), -INFINITY);
  EXPECT_TRUE(std::isnan(DecodeFloat(kFp8E5M2Format, 0x7D)));
}

TEST(Fp8E4M3, HandComputedCasesSaturate) {
  ExpectFp8Table(kFp8E4M3Format, {
                                     {1.0, 0x38},
                                     {448.0, 0x7E},  // max finite 1.75 * 2^8
                                     {-448.0, 0xFE},
                                     {464.0, 0x7E},  // midpoint to 480: even is 448
                                     {465.0, 0x7E},  // would round to 480: saturates
                                     {1e6, 0x7E},
                                     {-1e300, 0xFE},
                                     {INFINITY, 0x7E},  // no infinity: saturates
                                     {-INFINITY, 0xFE},
                                     {NAN, 0x7F},  // the only NaN
                                     {-NAN, 0xFF},
                                     {256.0, 0x78},  // the all-ones exponent is normal
                                     {std::ldexp(1.0, -9), 0x01},   // min subnormal
                                     {std::ldexp(1.0, -10), 0x00},  // tie to even 0
                                     {std::ldexp(7.0, -9), 0x07},   // max subnormal
                                     {std::ldexp(7.5, -9), 0x08},   // tie into min normal 2^-6
                                     {1.0625, 0x38},                // tie between 1 and 1.125
                                     {1.1875, 0x3A},                // tie between 1.125 and 1.25
                                 });
  EXPECT_EQ(DecodeFloat(kFp8E4M3Format, 0x7E), 448.0f);
  EXPECT_EQ(DecodeFloat(kFp8E4M3Format, 0x78), 256.0f);
  EXPECT_EQ(DecodeFloat(kFp8E4M3Format, 0x01), std::ldexp(1.0f, -9));
  EXPECT_TRUE(std::isnan(DecodeFloat(kFp8E4M3Format, 0x7F)));
  EXPECT_TRUE(std::isnan(DecodeFloat(kFp8E4M3Format, 0xFF)));
}

TEST(Fp8E3M4, HandComputedCases) {
  ExpectFp8Table(kFp8E3M4Format, {
                                     {1.0, 0x30},
                                     {15.5, 0x6F},  // max finite (1 + 15/16) * 2^3
                                     {15.7, 0x6F},
                                     {15.75, 0x70},  // midpoint to 16: ties to even = inf
                                     {100.0, 0x70},
                                     {-INFINITY, 0xF0},
                                     {NAN, 0x78},
                                     {std::ldexp(1.0, -6), 0x01},   // min subnormal
                                     {std::ldexp(1.0, -7), 0x00},   // tie to even 0
                                     {std::ldexp(15.5, -6), 0x10},  // tie into min normal 2^-2
                                     {1.03125, 0x30},               // tie between 1 and 1.0625
                                     {1.09375, 0x32},               // tie between 1.0625, 1.125
                                 });
  EXPECT_EQ(DecodeFloat(kFp8E3M4Format, 0x6F), 15.5f);
  EXPECT_EQ(DecodeFloat(kFp8E3M4Format, 0x10), 0.25f);
  EXPECT_EQ(DecodeFloat(kFp8E3M4Format, 0x70), INFINITY);
  EXPECT_TRUE(std::isnan(DecodeFloat(kFp8E3M4Format, 0x79)));
}

struct Fp8Pair {
  FloatFormat format;
  Fp8Spec spec;
};
const Fp8Pair kFp8Pairs[] = {{kFp8E5M2Format, testing::kE5M2Spec},
                             {kFp8E4M3Format, testing::kE4M3Spec},
                             {kFp8E3M4Format, testing::kE3M4Spec}};

TEST(Fp8, DecodesEveryPatternLikeTheFieldFormula) {
  for (const Fp8Pair& pair : kFp8Pairs) {
    for (uint32_t bits = 0; bits < 256; ++bits) {
      ExpectSameFloat(static_cast<float>(testing::ReferenceFp8Value(pair.spec, bits)),
                      DecodeFloat(pair.format, bits), bits);
    }
  }
}

TEST(Fp8, EveryPatternRoundTrips) {
  for (const Fp8Pair& pair : kFp8Pairs) {
    for (uint32_t bits = 0; bits < 256; ++bits) {
      const float value = DecodeFloat(pair.format, bits);
      const uint32_t again = EncodeFloat(pair.format, value);
      if (std::isnan(value)) {
        EXPECT_TRUE(std::isnan(DecodeFloat(pair.format, again))) << "bits 0x" << std::hex << bits;
      } else {
        EXPECT_EQ(again, bits) << "value " << value;
      }
    }
  }
}

TEST(Fp8, EncodesLikeTheNearestValueSearch) {
  for (const Fp8Pair& pair : kFp8Pairs) {
    std::vector<double> values = EdgeValues();
    // Every finite value, every midpoint between neighbours (including the midpoint above the
    // largest finite, where overflow starts) and the doubles just either side of each midpoint.
    for (uint32_t bits = 0; bits < 128; ++bits) {
      const double value = testing::ReferenceFp8Value(pair.spec, bits);
      if (std::isnan(value) || std::isinf(value)) continue;
      double next = testing::ReferenceFp8Value(pair.spec, bits + 1);
      if (std::isnan(next) || std::isinf(next))
        next = 2 * value - testing::ReferenceFp8Value(pair.spec, bits - 1);
      const double midpoint = (value + next) / 2;
      for (double v : {value, midpoint, std::nextafter(midpoint, 0.0),
                       std::nextafter(midpoint, INFINITY), next}) {
        values.push_back(v);
        values.push_back(-v);
      }
    }
    // A coarse sweep through and beyond the ranges.
    for (int i = -600 * 64; i <= 600 * 64; i += 3) values.push_back(std::ldexp(i, -6));
    for (double value : values) {
      EXPECT_EQ(EncodeFloat(pair.format, value), testing::ReferenceFp8Bits(pair.spec, value))
          << "value " << value << " (" << std::hexfloat << value << ") E"
          << pair.format.exponent_bits << "M" << pair.format.mantissa_bits;
    }
  }
}

}  // namespace
}  // namespace neuronserve::nrtsim::compute
