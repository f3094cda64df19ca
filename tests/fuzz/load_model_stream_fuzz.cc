// libFuzzer target: the message sequence of one LoadModel stream (server/repository/model_upload.h
// ModelUpload) as the daemon takes it: the header (an upload's or a repository load's), the
// chunks, the end of the stream. --max-model-bytes is 1 MiB; the repository is a folder under
// $TMPDIR made at start, holding a model folder, a bare NEFF and symlinks that lead out of it.
//
// Input: the stream's messages, each a 2-byte little-endian length and that many bytes (the
// last one cut short by the input's end) parsed as a v1.LoadModelRequest; a piece that does not
// parse is skipped, as if never sent. The messages go to TakeMessage in order until one fails;
// when none failed, Finish. Checks, besides the sanitizers: an accepted upload header announces
// 1..max_model_bytes bytes in all (one NEFF, or a batched model's variants) with 64 hex digits
// each; the accepted chunks never add up to more than announced; every error has a message
// ("LoadModel ..." from the stream's checks); Finish of an upload is DATA_LOSS exactly when a
// size or a SHA-256 disagrees, and otherwise hands over the chunks' bytes, cut at the variants'
// sizes; a repository load hands over a NEFF of the repository, never one outside.
#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "google/protobuf/stubs/logging.h"
#include "neuronserve/v1/neuron_serving.pb.h"
#include "server/repository/model_upload.h"
#include "util/durable_file.h"
#include "util/sha256.h"

namespace {

constexpr uint64_t kMaxModelBytes = 1 << 20;
// The repository's two NEFFs and the one outside it: only their bytes matter here (Finish
// reads a NEFF, the loader would parse it).
constexpr char kFolderNeff[] = "the NEFF of the repository's model folder";
constexpr char kBareNeff[] = "a NEFF file at the repository's top";
constexpr char kOutsideNeff[] = "a NEFF outside the repository";

void Require(bool condition) {
  if (!condition) std::abort();
}

// The folder layout: <dir>/outside.neff and <dir>/repository/ with mlp/ (config.pbtxt and
// model.neff), bare.neff, and the symlinks escape.neff (-> ../outside.neff) and up (-> ..).
// <dir> is one fixed folder under $TMPDIR (or /tmp), made or remade by every process: libFuzzer
// ends without running static destructors, so a folder per process would be left behind each
// time. Files are written atomically, so processes running at once see whole files.
std::string MakeRepositoryFolders() {
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                          "/neuron-serve-fuzz-load-model-stream";
  const std::string root = dir + "/repository";
  Require(neuronserve::MakeDirs(root + "/mlp").ok());
  Require(neuronserve::WriteFileAtomically(dir + "/outside.neff", kOutsideNeff).ok());
  Require(neuronserve::WriteFileAtomically(root + "/mlp/model.neff", kFolderNeff).ok());
  Require(
      neuronserve::WriteFileAtomically(root + "/mlp/config.pbtxt", "name: \"mlp\"\nreplicas: 1\n")
          .ok());
  Require(neuronserve::WriteFileAtomically(root + "/bare.neff", kBareNeff).ok());
  for (const auto& [target, link] :
       {std::pair<const char*, std::string>{"../outside.neff", root + "/escape.neff"},
        std::pair<const char*, std::string>{"..", root + "/up"}}) {
    Require(symlink(target, link.c_str()) == 0 || errno == EEXIST);
  }
  return root;
}

const neuronserve::ModelRepository& TheRepository() {
  static const neuronserve::ModelRepository* const repository = [] {
    absl::StatusOr<neuronserve::ModelRepository> opened =
        neuronserve::ModelRepository::Open(MakeRepositoryFolders());
    Require(opened.ok());
    return new neuronserve::ModelRepository(*std::move(opened));
  }();
  return *repository;
}

// What an upload's header announces: its one NEFF, or each variant's.
struct NeffPart {
  uint64_t size = 0;
  std::string sha256;
};

std::vector<NeffPart> Announced(const neuronserve::v1::LoadModelHeader& header) {
  if (header.variants().empty()) return {NeffPart{header.total_size(), header.sha256()}};
  std::vector<NeffPart> parts;
  for (const auto& variant : header.variants()) parts.push_back({variant.size(), variant.sha256()});
  return parts;
}

// Saturating: a header whose sizes overflow is refused, and must read as too large here too.
uint64_t AnnouncedBytes(const neuronserve::v1::LoadModelHeader& header) {
  uint64_t total = 0;
  for (const NeffPart& part : Announced(header)) {
    total = part.size > UINT64_MAX - total ? UINT64_MAX : total + part.size;
  }
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  // Protobuf logs every string field of invalid UTF-8 it parses to stderr; the fuzzer's output
  // is for findings.
  google::protobuf::SetLogHandler(nullptr);
  (void)TheRepository();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace neuronserve;
  ModelUpload upload(&TheRepository(), kMaxModelBytes);
  bool have_header = false;
  v1::LoadModelHeader header;
  std::string held;  // the chunks accepted so far, in order
  size_t at = 0;
  while (at + 2 <= size) {
    const size_t length = data[at] | (static_cast<size_t>(data[at + 1]) << 8);
    at += 2;
    const size_t piece = std::min(length, size - at);
    v1::LoadModelRequest message;
    const bool parsed = message.ParseFromArray(data + at, static_cast<int>(piece));
    at += piece;
    if (!parsed) continue;
    const absl::Status taken = upload.TakeMessage(message);
    if (!taken.ok()) {
      Require(absl::StartsWith(taken.message(), "LoadModel"));
      return 0;
    }
    if (!have_header) {
      Require(message.has_header());
      have_header = true;
      header = message.header();
      if (header.repository_path().empty()) {
        Require(!header.config().name().empty());
        for (const NeffPart& part : Announced(header)) {
          Require(part.size > 0);
          Require(IsSha256Hex(absl::AsciiStrToLower(part.sha256)));
        }
        Require(AnnouncedBytes(header) > 0 && AnnouncedBytes(header) <= kMaxModelBytes);
      }
      continue;
    }
    Require(!message.has_header() && header.repository_path().empty());
    held.append(message.chunk());
    Require(held.size() <= AnnouncedBytes(header));
  }

  absl::StatusOr<LoadSpec> spec = upload.Finish();
  if (!have_header) {
    Require(spec.status().code() == absl::StatusCode::kInvalidArgument);
    return 0;
  }
  if (!header.repository_path().empty()) {
    if (!spec.ok()) {
      Require(!spec.status().message().empty());
      return 0;
    }
    Require(spec->neff != nullptr);
    Require(*spec->neff == kFolderNeff || *spec->neff == kBareNeff);
    return 0;
  }
  // Every NEFF whole and of its digest (a wrong digest already failed its last chunk).
  bool intact = held.size() == AnnouncedBytes(header);
  std::vector<std::string> parts;
  size_t offset = 0;
  for (const NeffPart& part : Announced(header)) {
    if (!intact) break;
    parts.push_back(held.substr(offset, part.size));
    offset += part.size;
    Sha256 digest;
    digest.Update(parts.back());
    intact = digest.FinalHex() == absl::AsciiStrToLower(part.sha256);
  }
  if (!intact) {
    Require(spec.status().code() == absl::StatusCode::kDataLoss);
    Require(absl::StartsWith(spec.status().message(), "LoadModel"));
    return 0;
  }
  Require(spec.ok());
  Require(spec->identity.name == header.config().name());
  if (header.variants().empty()) {
    Require(spec->neff != nullptr && *spec->neff == held);
    return 0;
  }
  Require(spec->variants.size() == parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    Require(spec->variants[i].batch_size == header.variants(static_cast<int>(i)).batch_size());
    Require(*spec->variants[i].neff == parts[i]);
  }
  return 0;
}
