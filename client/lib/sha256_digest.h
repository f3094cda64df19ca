// Incremental SHA-256 as lower-case hex: the LoadModel header carries the digest of the whole
// NEFF, and a NEFF read from a file is hashed piece by piece rather than held in memory.
//
// The client has its own (over OpenSSL, like util/sha256) so that the installable library
// does not depend on neuronserve_core, which is the daemon's and is not exported.
#ifndef NEURON_SERVE_CLIENT_LIB_SHA256_DIGEST_H_
#define NEURON_SERVE_CLIENT_LIB_SHA256_DIGEST_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/types/span.h"

// OpenSSL's context type, declared so that this header does not include OpenSSL's.
struct evp_md_ctx_st;

namespace neuronserve::client {

// Not thread-safe; one digest per message.
class Sha256Digest {
 public:
  Sha256Digest();
  ~Sha256Digest();
  Sha256Digest(const Sha256Digest&) = delete;
  Sha256Digest& operator=(const Sha256Digest&) = delete;

  void Update(absl::Span<const uint8_t> data);
  // 64 lower-case hex digits of everything passed to Update. Call once.
  std::string FinishHex();

 private:
  struct ContextDeleter {
    void operator()(evp_md_ctx_st* context) const;
  };
  std::unique_ptr<evp_md_ctx_st, ContextDeleter> context_;
};

std::string Sha256Hex(absl::Span<const uint8_t> data);

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_SHA256_DIGEST_H_
