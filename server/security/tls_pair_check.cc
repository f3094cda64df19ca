#include "server/security/tls_pair_check.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace neuronserve {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* cert) const { X509_free(cert); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

// Empties the thread's OpenSSL error queue when a check returns: gRPC calls OpenSSL on the
// same threads and reads that queue after its own failures.
struct ClearErrorsOnExit {
  ~ClearErrorsOnExit() { ERR_clear_error(); }
};

// An encrypted key must fail to parse, not make OpenSSL prompt on the terminal.
int NoPassphrase(char*, int, int, void*) { return 0; }

BioPtr ReadBio(const std::string& pem) {
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// The reason OpenSSL gave for its last error (no bytes of the input are in it).
std::string OpenSslReason() {
  const unsigned long error = ERR_peek_last_error();
  const char* reason = error == 0 ? nullptr : ERR_reason_error_string(error);
  return reason != nullptr ? reason : "unknown error";
}

// Every certificate of a PEM text, in order. `what` names the text in errors.
absl::StatusOr<std::vector<X509Ptr>> ParseCertificates(const std::string& pem,
                                                       const std::string& what) {
  BioPtr bio = ReadBio(pem);
  if (bio == nullptr) return absl::ResourceExhaustedError("cannot allocate an OpenSSL BIO");
  std::vector<X509Ptr> certificates;
  ERR_clear_error();
  while (true) {
    X509Ptr certificate(PEM_read_bio_X509(bio.get(), nullptr, NoPassphrase, nullptr));
    if (certificate == nullptr) break;
    certificates.push_back(std::move(certificate));
  }
  // The loop ends at the end of the text ("no start line"), or at a block that does not parse.
  const unsigned long error = ERR_peek_last_error();
  if (error != 0 &&
      !(ERR_GET_LIB(error) == ERR_LIB_PEM && ERR_GET_REASON(error) == PEM_R_NO_START_LINE)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": certificate ", certificates.size() + 1,
                                                   " does not parse: ", OpenSslReason()));
  }
  if (certificates.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " holds no PEM certificate"));
  }
  return certificates;
}

std::string Subject(X509* certificate) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (bio == nullptr ||
      X509_NAME_print_ex(bio.get(), X509_get_subject_name(certificate), 0, XN_FLAG_RFC2253) < 0) {
    return "?";
  }
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(length));
}

std::string Serial(X509* certificate) {
  BIGNUM* number = ASN1_INTEGER_to_BN(X509_get0_serialNumber(certificate), nullptr);
  if (number == nullptr) return "?";
  char* hex = BN_bn2hex(number);
  std::string serial = hex != nullptr ? hex : "?";
  OPENSSL_free(hex);
  BN_free(number);
  return serial;
}

absl::Time ToTime(const ASN1_TIME* time) {
  std::tm parts{};
  if (time == nullptr || ASN1_TIME_to_tm(time, &parts) != 1) return absl::InfinitePast();
  return absl::FromTimeT(timegm(&parts));
}

CertificateSummary Summarize(X509* certificate) {
  return CertificateSummary{Subject(certificate), Serial(certificate),
                            ToTime(X509_get0_notBefore(certificate)),
                            ToTime(X509_get0_notAfter(certificate))};
}

// `where` says which certificate of its file this is, for all but a lone leaf.
absl::Status CheckValidAt(X509* certificate, const std::string& where, absl::Time now) {
  const CertificateSummary summary = Summarize(certificate);
  const std::string name = absl::StrCat("certificate '", summary.subject, "'", where);
  if (summary.not_after <= now) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " expired at ", FormatCertificateTime(summary.not_after)));
  }
  if (summary.not_before > now) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " is not valid before ", FormatCertificateTime(summary.not_before)));
  }
  return absl::OkStatus();
}

}  // namespace

std::string FormatCertificateTime(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", time, absl::UTCTimeZone());
}

absl::StatusOr<CertificateSummary> CheckServerCertificate(const std::string& cert_pem,
                                                          const std::string& key_pem,
                                                          const std::string& client_ca_pem,
                                                          absl::Time now) {
  ClearErrorsOnExit clear_errors;
  absl::StatusOr<std::vector<X509Ptr>> chain = ParseCertificates(cert_pem, "the certificate file");
  if (!chain.ok()) return chain.status();
  X509* leaf = chain->front().get();

  ERR_clear_error();
  BioPtr key_bio = ReadBio(key_pem);
  if (key_bio == nullptr) return absl::ResourceExhaustedError("cannot allocate an OpenSSL BIO");
  PkeyPtr key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, NoPassphrase, nullptr));
  if (key == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the key file holds no PEM private key (or an encrypted one): ", OpenSslReason()));
  }
  if (X509_check_private_key(leaf, key.get()) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("the private key does not belong to certificate '", Subject(leaf), "'"));
  }

  for (size_t i = 0; i < chain->size(); ++i) {
    const std::string where = i == 0 ? "" : absl::StrCat(" (", i + 1, " of the chain)");
    if (absl::Status valid = CheckValidAt((*chain)[i].get(), where, now); !valid.ok()) {
      return valid;
    }
    if (i + 1 == chain->size()) break;
    // The chain as clients receive it: each certificate is signed by the next. A wrong
    // intermediate fails every client's verification just as an expired leaf does.
    X509* subject = (*chain)[i].get();
    X509* issuer = (*chain)[i + 1].get();
    EVP_PKEY* issuer_key = X509_get0_pubkey(issuer);
    if (X509_check_issued(issuer, subject) != X509_V_OK || issuer_key == nullptr ||
        X509_verify(subject, issuer_key) != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "certificate '", Subject(subject), "' (", i + 1, " of the chain) is not signed by '",
          Subject(issuer), "' (", i + 2, " of the chain), which follows it in the file"));
    }
  }

  if (!client_ca_pem.empty()) {
    absl::StatusOr<std::vector<X509Ptr>> ca =
        ParseCertificates(client_ca_pem, "the client CA file");
    if (!ca.ok()) return ca.status();
  }
  return Summarize(leaf);
}

}  // namespace neuronserve
