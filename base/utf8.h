// Utf8SequenceLength: the one UTF-8 validator of the tree, for the writers of text formats that
// must stay valid whatever bytes they are handed: the JSON escaper (util/json_escape.h) and the
// Prometheus text exposition (core/metrics/text_exposition.h). Each walks its text with it and
// puts U+FFFD in place of every byte that starts no valid sequence.
//
// In base/ because it needs nothing but the standard library and both of its users link base.
//
// Thread safety: a pure function.
#ifndef NEURON_SERVE_BASE_UTF8_H_
#define NEURON_SERVE_BASE_UTF8_H_

#include <cstddef>
#include <string_view>

namespace neuronserve {

// The length (1 to 4) of the well-formed UTF-8 sequence that starts `text`, or 0 if none does,
// or `text` is empty. Well-formed as RFC 3629 defines it: no overlong forms, no surrogates
// (U+D800 to U+DFFF), nothing above U+10FFFF, and no sequence cut short by the end of `text`.
size_t Utf8SequenceLength(std::string_view text);

}  // namespace neuronserve

#endif  // NEURON_SERVE_BASE_UTF8_H_
