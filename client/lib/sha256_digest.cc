#include "client/lib/sha256_digest.h"

#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>

namespace neuronserve::client {
namespace {

// SHA-256 in EVP fails only when allocation fails; treat that like a failed operator new rather
// than send a digest nobody could trust.
[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "neuronserve client: OpenSSL %s failed for SHA-256\n", what);
  std::abort();
}

}  // namespace

void Sha256Digest::ContextDeleter::operator()(evp_md_ctx_st* context) const {
  EVP_MD_CTX_free(context);
}

Sha256Digest::Sha256Digest() : context_(EVP_MD_CTX_new()) {
  if (context_ == nullptr) Die("EVP_MD_CTX_new");
  if (EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr) != 1) Die("EVP_DigestInit_ex");
}

Sha256Digest::~Sha256Digest() = default;

void Sha256Digest::Update(absl::Span<const uint8_t> data) {
  if (data.empty()) return;  // the pointer of an empty span may be null
  if (EVP_DigestUpdate(context_.get(), data.data(), data.size()) != 1) Die("EVP_DigestUpdate");
}

std::string Sha256Digest::FinishHex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context_.get(), digest, &length) != 1) Die("EVP_DigestFinal_ex");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(2 * length, '\0');
  for (unsigned int i = 0; i < length; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 0xf];
  }
  return hex;
}

std::string Sha256Hex(absl::Span<const uint8_t> data) {
  Sha256Digest digest;
  digest.Update(data);
  return digest.FinishHex();
}

}  // namespace neuronserve::client
