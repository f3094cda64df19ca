#include "base/utf8.h"

namespace neuronserve {

size_t Utf8SequenceLength(std::string_view text) {
  if (text.empty()) return 0;
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  // The lead byte fixes the length; the bounds of the second byte exclude what the lead alone
  // cannot: overlong forms (E0, F0), surrogates (ED) and code points past U+10FFFF (F4).
  size_t length = 0;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {  // C0 and C1 could only start overlong forms
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;
    if (lead == 0xED) second_max = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;
    if (lead == 0xF4) second_max = 0x8F;
  } else {
    return 0;  // a continuation byte, or a lead of a form RFC 3629 removed
  }
  if (text.size() < length) return 0;
  if (byte(1) < second_min || byte(1) > second_max) return 0;
  for (size_t k = 2; k < length; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 0;
  }
  return length;
}

}  // namespace neuronserve
