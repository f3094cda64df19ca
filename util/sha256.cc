#include "util/sha256.h"

#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>

#include "util/posix_file.h"

namespace neuronserve {
namespace {

// EVP calls on SHA-256 fail only when memory allocation fails; like operator new, treat that as
// fatal rather than returning a digest nobody could trust.
[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "neuron-serve: OpenSSL %s failed for SHA-256\n", what);
  std::abort();
}

}  // namespace

void Sha256::ContextDeleter::operator()(evp_md_ctx_st* context) const { EVP_MD_CTX_free(context); }

Sha256::Sha256() = default;
Sha256::Sha256(Sha256&& other) noexcept = default;
Sha256& Sha256::operator=(Sha256&& other) noexcept = default;
Sha256::~Sha256() = default;

evp_md_ctx_st* Sha256::Context() {
  if (context_ == nullptr) {
    context_.reset(EVP_MD_CTX_new());
    if (context_ == nullptr) Die("EVP_MD_CTX_new");
    if (EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr) != 1) Die("EVP_DigestInit_ex");
  }
  return context_.get();
}

void Sha256::Update(absl::Span<const uint8_t> data) {
  evp_md_ctx_st* context = Context();
  // An empty span may carry a null data pointer; EVP accepts that, but there is nothing to do.
  if (data.empty()) return;
  if (EVP_DigestUpdate(context, data.data(), data.size()) != 1) Die("EVP_DigestUpdate");
}

void Sha256::Update(absl::string_view data) {
  Update(absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(data.data()), data.size()));
}

std::string Sha256::FinalHex() {
  evp_md_ctx_st* context = Context();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context, digest, &length) != 1) Die("EVP_DigestFinal_ex");
  // Ready for the next message.
  if (EVP_DigestInit_ex(context, EVP_sha256(), nullptr) != 1) Die("EVP_DigestInit_ex");

  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(2 * length, '\0');
  for (unsigned int i = 0; i < length; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 0xf];
  }
  return hex;
}

std::string Sha256Hex(absl::string_view data) {
  Sha256 sha;
  sha.Update(data);
  return sha.FinalHex();
}

std::string Sha256Hex(absl::Span<const uint8_t> data) {
  Sha256 sha;
  sha.Update(data);
  return sha.FinalHex();
}

bool IsSha256Hex(absl::string_view text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == absl::string_view::npos;
}

absl::StatusOr<FileSha256> Sha256OfFile(const std::string& path) {
  FileSha256 digest;
  Sha256 sha;
  absl::Status read = ReadFileInChunks(path, [&](absl::string_view chunk) {
    sha.Update(chunk);
    digest.size += chunk.size();
  });
  if (!read.ok()) return read;
  digest.hex = sha.FinalHex();
  return digest;
}

}  // namespace neuronserve
