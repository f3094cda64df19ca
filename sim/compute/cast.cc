#include "sim/compute/cast.h"

#include <cmath>
#include <cstring>

#include "sim/compute/element_access.h"

namespace neuronserve::nrtsim::compute {
namespace {

// 2^exponent as a double, exact for the exponents used here (<= 64).
double PowerOfTwo(int exponent) { return std::ldexp(1.0, exponent); }

}  // namespace

uint64_t SaturatingFloatToIntegerBits(double value, DataType target) {
  if (std::isnan(value)) return 0;
  const int width = static_cast<int>(DataTypeSize(target)) * 8;
  // Truncation first: a value in (min - 1, min] or [max, max + 1) truncates into the range.
  const double truncated = std::trunc(value);
  if (ComputeKindOf(target) == ComputeKind::kSigned) {
    // The bounds -2^(w-1) and 2^(w-1) are exact doubles even for w = 64, where max is not.
    const double limit = PowerOfTwo(width - 1);
    const uint64_t max_bits = (uint64_t{1} << (width - 1)) - 1;
    if (truncated >= limit) return max_bits;
    if (truncated < -limit) return ~max_bits;  // min, sign-extended to 64 bits
    return static_cast<uint64_t>(static_cast<int64_t>(truncated));
  }
  if (truncated < 0) return 0;  // also -0.0 and anything in (-1, 0)
  if (truncated >= PowerOfTwo(width))
    return width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  return static_cast<uint64_t>(truncated);
}

void CastElement(DataType from, const std::byte* in, DataType to, std::byte* out) {
  // float32 and fp32r are both float32 bits: copying keeps even a NaN's payload.
  const bool both_float32_bits = (from == DataType::kFloat32 || from == DataType::kFp32R) &&
                                 (to == DataType::kFloat32 || to == DataType::kFp32R);
  if (from == to || both_float32_bits) {
    std::memcpy(out, in, DataTypeSize(from));
    return;
  }
  const ComputeKind from_kind = ComputeKindOf(from);
  const bool to_float = ComputeKindOf(to) == ComputeKind::kFloat;
  if (from_kind == ComputeKind::kFloat) {
    // float -> double is exact, so StoreFloat rounds once, from the exact value.
    const double value = LoadFloat(from, in);
    if (to_float) {
      StoreFloat(to, value, out);
    } else {
      StoreIntegerBits(to, SaturatingFloatToIntegerBits(value, to), out);
    }
    return;
  }
  if (to_float) {
    const double value = from_kind == ComputeKind::kSigned
                             ? static_cast<double>(LoadSigned(from, in))
                             : static_cast<double>(LoadUnsigned(from, in));
    StoreFloat(to, value, out);
    return;
  }
  StoreIntegerBits(to, LoadIntegerBits(from, in), out);
}

void Cast(ConstTensor in, MutTensor out) {
  const size_t count = ElementCount(*in.shape);
  if (DataTypeSize(in.dtype) == 4 && DataTypeSize(out.dtype) == 4 &&
      ComputeKindOf(in.dtype) == ComputeKind::kFloat &&
      ComputeKindOf(out.dtype) == ComputeKind::kFloat) {
    // float32 <-> fp32r, as CastElement: the same bits.
    std::memcpy(out.bytes.data(), in.bytes.data(), count * 4);
    return;
  }
  if (in.dtype == out.dtype) {
    std::memcpy(out.bytes.data(), in.bytes.data(), count * DataTypeSize(in.dtype));
    return;
  }
  const size_t in_size = DataTypeSize(in.dtype);
  const size_t out_size = DataTypeSize(out.dtype);
  for (size_t i = 0; i < count; ++i) {
    CastElement(in.dtype, in.bytes.data() + i * in_size, out.dtype,
                out.bytes.data() + i * out_size);
  }
}

}  // namespace neuronserve::nrtsim::compute
