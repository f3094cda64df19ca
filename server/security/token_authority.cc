#include "server/security/token_authority.h"

#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "util/file_watcher.h"

namespace neuronserve {
namespace {

constexpr std::string_view kBearer = "Bearer ";

// The token of an "authorization" value, or empty when it is not "Bearer <token>". The scheme
// is case-insensitive (RFC 7235).
std::string_view BearerToken(std::string_view authorization) {
  if (authorization.size() <= kBearer.size()) return {};
  if (!absl::EqualsIgnoreCase(absl::string_view(authorization.data(), kBearer.size()),
                              absl::string_view(kBearer.data(), kBearer.size()))) {
    return {};
  }
  return authorization.substr(kBearer.size());
}

}  // namespace

absl::StatusOr<std::unique_ptr<TokenAuthority>> TokenAuthority::Load(std::string infer_token_file,
                                                                     std::string admin_token_file) {
  std::unique_ptr<TokenAuthority> authority(
      new TokenAuthority(std::move(infer_token_file), std::move(admin_token_file)));
  auto sets = std::make_shared<Sets>();
  if (!authority->infer_file_.empty()) {
    absl::StatusOr<TokenSet> infer = TokenSet::ReadFile(authority->infer_file_);
    if (!infer.ok()) return infer.status();
    sets->infer = *std::move(infer);
  }
  if (!authority->admin_file_.empty()) {
    absl::StatusOr<TokenSet> admin = TokenSet::ReadFile(authority->admin_file_);
    if (!admin.ok()) return admin.status();
    sets->admin = *std::move(admin);
  }
  MutexLock lock(&authority->mutex_);
  authority->sets_ = std::move(sets);
  return authority;
}

std::shared_ptr<const TokenAuthority::Sets> TokenAuthority::Current() const {
  MutexLock lock(&mutex_);
  return sets_;
}

AuthDecision TokenAuthority::Authorize(std::string_view authorization, Scope needed,
                                       std::string_view rpc) const {
  AuthDecision decision;
  if (!enabled() || needed == Scope::kNone) return decision;
  const std::string_view token = BearerToken(authorization);
  if (token.empty()) {
    decision.code = absl::StatusCode::kUnauthenticated;
    decision.message = absl::StrCat(std::string(rpc), " needs a bearer token with the ",
                                    std::string(ScopeName(needed)),
                                    " scope (metadata 'authorization: Bearer <token>')");
    return decision;
  }
  std::shared_ptr<const Sets> sets = Current();
  // Both sets are searched whatever the first finds, so the time taken does not tell a valid
  // infer token from an admin one.
  const std::string* admin_label = sets->admin.Match(token);
  const std::string* infer_label = sets->infer.Match(token);
  Scope held = Scope::kNone;
  const std::string* label = nullptr;
  if (admin_label != nullptr) {
    held = Scope::kAdmin;
    label = admin_label;
  } else if (infer_label != nullptr) {
    held = Scope::kInfer;
    label = infer_label;
  }
  if (label == nullptr) {
    decision.code = absl::StatusCode::kUnauthenticated;
    decision.message = absl::StrCat(std::string(rpc), ": unknown token");
    return decision;
  }
  decision.label = *label;
  decision.keep_alive = sets;
  if (!ScopeAllows(held, needed)) {
    decision.code = absl::StatusCode::kPermissionDenied;
    decision.message = absl::StrCat(std::string(rpc), " needs a token with the ",
                                    std::string(ScopeName(needed)), " scope; token '", *label,
                                    "' has the ", std::string(ScopeName(held)), " scope");
  }
  return decision;
}

absl::Status TokenAuthority::Reload() {
  MutexLock reloading(&reload_mutex_);
  std::shared_ptr<const Sets> previous = Current();
  auto sets = std::make_shared<Sets>(*previous);
  std::vector<std::string> errors;
  for (auto [path, set] :
       {std::pair{&infer_file_, &sets->infer}, std::pair{&admin_file_, &sets->admin}}) {
    if (path->empty()) continue;
    absl::StatusOr<TokenSet> read = TokenSet::ReadFile(*path);
    if (read.ok()) {
      *set = *std::move(read);
    } else {
      errors.push_back(absl::StrCat(read.status().message(), " (keeping the previous tokens)"));
    }
  }
  {
    MutexLock lock(&mutex_);
    sets_ = std::move(sets);
  }
  if (errors.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(errors, "; "));
}

void TokenAuthority::Watch(FileWatcher& watcher, std::function<void(const absl::Status&)> report) {
  std::vector<std::string> paths;
  if (!infer_file_.empty()) paths.push_back(infer_file_);
  if (!admin_file_.empty()) paths.push_back(admin_file_);
  if (paths.empty()) return;
  watcher.Watch(std::move(paths), [this, report = std::move(report)] {
    const absl::Status status = Reload();
    if (report) report(status);
  });
}

}  // namespace neuronserve
