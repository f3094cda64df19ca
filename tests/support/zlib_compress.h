// Compressing test bodies as a client does before sending them with Content-Encoding: gzip
// (RFC 1952) or deflate (zlib's format, RFC 1950), with zlib itself.
#ifndef NEURON_SERVE_TESTS_SUPPORT_ZLIB_COMPRESS_H_
#define NEURON_SERVE_TESTS_SUPPORT_ZLIB_COMPRESS_H_

#include <zlib.h>

#include <string>
#include <string_view>

namespace neuronserve::testing {

// `data` compressed whole as gzip (`gzip` true) or zlib/deflate; empty if zlib fails.
inline std::string ZlibCompress(std::string_view data, bool gzip) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, gzip ? 15 + 16 : 15, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return {};
  }
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return result == Z_STREAM_END ? out : std::string();
}

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_ZLIB_COMPRESS_H_
