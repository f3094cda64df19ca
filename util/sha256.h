// Sha256: incremental SHA-256 (FIPS 180-4) over OpenSSL's EVP interface.
//
// The model store fingerprints every NEFF it keeps, so that a file that was truncated or
// altered on disk is never handed to the runtime. NEFFs can be large, hence the incremental
// form: callers hash a file chunk by chunk instead of reading it whole.
#ifndef NEURON_SERVE_UTIL_SHA256_H_
#define NEURON_SERVE_UTIL_SHA256_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

// OpenSSL's context type, declared here so that this header does not pull in OpenSSL's.
struct evp_md_ctx_st;

namespace neuronserve {

// Move-only. A moved-from Sha256 is usable again and behaves like a freshly constructed one.
// Not thread-safe: one digest belongs to one thread at a time.
class Sha256 {
 public:
  Sha256();
  Sha256(Sha256&& other) noexcept;
  Sha256& operator=(Sha256&& other) noexcept;
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  ~Sha256();

  void Update(absl::Span<const uint8_t> data);
  void Update(absl::string_view data);

  // The digest of everything passed to Update since construction (or the last FinalHex), as 64
  // lower-case hex digits. Resets the object, so it can hash a new message afterwards.
  std::string FinalHex();

 private:
  struct ContextDeleter {
    void operator()(evp_md_ctx_st* context) const;
  };

  // Allocates and initialises the context on first use (also after a move).
  evp_md_ctx_st* Context();

  std::unique_ptr<evp_md_ctx_st, ContextDeleter> context_;
};

// One-shot digests: 64 lower-case hex digits.
std::string Sha256Hex(absl::string_view data);
std::string Sha256Hex(absl::Span<const uint8_t> data);

// Whether `text` has the form FinalHex and Sha256Hex produce: exactly 64 lower-case hex digits.
// A form check only; it says nothing of which bytes the digest is of.
bool IsSha256Hex(absl::string_view text);

// The SHA-256 of a file and its size, read in chunks (util/posix_file.h), so that a large file
// is never in memory at once. Errors are ReadFileInChunks's.
struct FileSha256 {
  uint64_t size = 0;
  std::string hex;  // 64 lower-case hex digits
};
absl::StatusOr<FileSha256> Sha256OfFile(const std::string& path);

}  // namespace neuronserve

#endif  // NEURON_SERVE_UTIL_SHA256_H_
