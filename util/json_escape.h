// AppendJsonEscaped: the one JSON string escaper of the tree, for the JSON log lines (server/)
// and the HTTP server's error bodies (server/http/), which build small JSON texts by hand.
//
// Thread safety: a pure function.
#ifndef NEURON_SERVE_UTIL_JSON_ESCAPE_H_
#define NEURON_SERVE_UTIL_JSON_ESCAPE_H_

#include <string>
#include <string_view>

namespace neuronserve {

// Appends `text` to `out` as the inside of a JSON string: quotes, backslashes and control
// characters escaped; valid UTF-8 passed through; each byte that is not part of a valid UTF-8
// sequence becomes U+FFFD, so that the line stays valid JSON whatever bytes a message carries
// (the runtime's captured output is not ours to trust).
void AppendJsonEscaped(std::string_view text, std::string& out);

}  // namespace neuronserve

#endif  // NEURON_SERVE_UTIL_JSON_ESCAPE_H_
