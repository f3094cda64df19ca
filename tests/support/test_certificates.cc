#include "tests/support/test_certificates.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing {
namespace {

void RunOpenssl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"openssl"};
  argv.insert(argv.end(), args.begin(), args.end());
  // RunProcess execs argv[0] by path: find openssl on PATH the way a shell would.
  argv[0] = "/usr/bin/openssl";
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::istringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
      if (!dir.empty() && std::filesystem::exists(dir + "/openssl")) {
        argv[0] = dir + "/openssl";
        break;
      }
    }
  }
  const ProcessResult result = RunProcess(argv);
  if (result.exit_code != 0) {
    std::cerr << "test_certificates: openssl failed (exit " << result.exit_code << "):";
    for (const std::string& arg : argv) std::cerr << " " << arg;
    std::cerr << "\n" << result.out << result.err << "\n";
    std::abort();
  }
}

std::string Extensions(CertificateUse use) {
  switch (use) {
    case CertificateUse::kCa:
      return "basicConstraints=critical,CA:TRUE";
    case CertificateUse::kServer:
      return "extendedKeyUsage=serverAuth";
    case CertificateUse::kClient:
      return "extendedKeyUsage=clientAuth";
  }
  return "";
}

}  // namespace

std::string CertificateFiles::CertPem() const { return ReadFileContents(cert); }
std::string CertificateFiles::KeyPem() const { return ReadFileContents(key); }

CertificateFiles MakeCertificate(const std::string& dir, const CertificateOptions& options) {
  std::filesystem::create_directories(dir);
  CertificateFiles files{dir + "/" + options.name + ".pem", dir + "/" + options.name + ".key"};
  const std::string csr = dir + "/" + options.name + ".csr";
  std::vector<std::string> request = {"req",
                                      "-new",
                                      "-newkey",
                                      "ec",
                                      "-pkeyopt",
                                      "ec_paramgen_curve:P-256",
                                      "-nodes",
                                      "-keyout",
                                      files.key,
                                      "-subj",
                                      "/CN=" + options.common_name,
                                      "-addext",
                                      Extensions(options.use)};
  if (options.use == CertificateUse::kCa) {
    request.insert(request.end(), {"-addext", "keyUsage=critical,keyCertSign,cRLSign"});
  }
  if (!options.subject_alt_names.empty()) {
    std::string sans = "subjectAltName=";
    for (size_t i = 0; i < options.subject_alt_names.size(); ++i) {
      sans += (i == 0 ? "" : ",") + options.subject_alt_names[i];
    }
    request.insert(request.end(), {"-addext", sans});
  }
  // -days -1: valid from now until yesterday, the one way to an expired certificate that the
  // openssl command line of Debian 12 (3.0) offers without a CA database.
  const std::string days = options.expired ? "-1" : "30";
  if (options.issuer == nullptr) {
    request.insert(request.end(), {"-x509", "-days", days, "-out", files.cert});
    RunOpenssl(request);
    return files;
  }
  request.insert(request.end(), {"-out", csr});
  RunOpenssl(request);
  RunOpenssl({"x509", "-req", "-in", csr, "-CA", options.issuer->cert, "-CAkey",
              options.issuer->key, "-days", days, "-copy_extensions", "copyall", "-out",
              files.cert});
  std::filesystem::remove(csr);
  if (options.append_issuer) {
    const std::string leaf = ReadFileContents(files.cert);
    std::ofstream out(files.cert, std::ios::binary | std::ios::trunc);
    out << leaf << options.issuer->CertPem();
  }
  return files;
}

TestCertificates TestCertificates::Make(const std::string& dir) {
  const std::vector<std::string> server_sans = {"DNS:localhost", "IP:127.0.0.1"};
  TestCertificates set;
  set.ca = MakeCertificate(
      dir, {.name = "ca", .common_name = "neuron-serve test CA", .use = CertificateUse::kCa});
  set.server = MakeCertificate(dir, {.name = "server-1",
                                     .common_name = "server-1",
                                     .subject_alt_names = server_sans,
                                     .issuer = &set.ca});
  set.server_rotated = MakeCertificate(dir, {.name = "server-2",
                                             .common_name = "server-2",
                                             .subject_alt_names = server_sans,
                                             .issuer = &set.ca});
  set.expired_server = MakeCertificate(dir, {.name = "server-expired",
                                             .common_name = "server-expired",
                                             .subject_alt_names = server_sans,
                                             .issuer = &set.ca,
                                             .expired = true});
  set.client = MakeCertificate(
      dir, {.name = "client-a",
            .common_name = "client-a",
            .subject_alt_names = {"DNS:client-a", "URI:spiffe://neuron-serve.test/client-a"},
            .use = CertificateUse::kClient,
            .issuer = &set.ca});
  set.other_ca = MakeCertificate(
      dir, {.name = "other-ca", .common_name = "other test CA", .use = CertificateUse::kCa});
  set.other_client = MakeCertificate(dir, {.name = "client-b",
                                           .common_name = "client-b",
                                           .subject_alt_names = {"DNS:client-b"},
                                           .use = CertificateUse::kClient,
                                           .issuer = &set.other_ca});
  set.intermediate = MakeCertificate(dir, {.name = "intermediate",
                                           .common_name = "neuron-serve test intermediate",
                                           .use = CertificateUse::kCa,
                                           .issuer = &set.ca});
  set.server_via_intermediate = MakeCertificate(dir, {.name = "server-3",
                                                      .common_name = "server-3",
                                                      .subject_alt_names = server_sans,
                                                      .issuer = &set.intermediate,
                                                      .append_issuer = true});
  return set;
}

const TestCertificates& SharedTestCertificates() {
  // Never destroyed: tests may still read the files while other statics are torn down.
  static const TestCertificates* const shared = [] {
    static TempDir* const dir = new TempDir();
    return new TestCertificates(TestCertificates::Make(dir->path()));
  }();
  return *shared;
}

void InstallCertificatePair(const CertificateFiles& pair, const std::string& cert,
                            const std::string& key) {
  const auto write = [](const std::string& path, const std::string& contents) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << contents;
    out.close();
    if (!out) {
      std::cerr << "cannot write " << path << "\n";
      std::abort();
    }
  };
  write(cert + ".new", pair.CertPem());
  write(key + ".new", pair.KeyPem());
  std::filesystem::rename(key + ".new", key);
  std::filesystem::rename(cert + ".new", cert);
}

}  // namespace neuronserve::testing
