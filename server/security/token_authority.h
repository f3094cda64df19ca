// TokenAuthority: decides whether a call's bearer token allows the RPC it makes, from the token
// sets of --infer-token-file and --admin-token-file, and re-reads those files when they change.
//
// Rules (issue 17): with no token file configured every call is allowed (the daemon as it was
// before tokens). With either file configured, every RPC that needs a scope (rpc_scope.h) needs
// a token: no `authorization` value, one that is not "Bearer <token>", or a token in neither file
// is UNAUTHENTICATED; a token of a scope too low for the RPC (an infer token on LoadModel) is
// PERMISSION_DENIED naming the RPC, the scope it needs and the token's label. An admin token
// may do what an infer token may. Messages never hold the token.
//
// Reloading: Reload re-reads both files; a file that cannot be read or parsed keeps its previous
// tokens, and the error (naming the file and the line) is returned and logged. Watch registers
// the files on a FileWatcher (the daemon's, which SIGHUP also drives) so that a change is picked
// up without a restart. A file deleted and written anew is picked up once it is back.
//
// Thread safety: every method may be called from any thread. Authorize takes a shared_ptr copy
// of the current sets under a short lock and never waits for a re-read: a reload builds new sets
// off the lock and swaps them in. Ownership: the authority owns its sets; a FileWatcher given to
// Watch must be destroyed (or stopped) before the authority.
#ifndef NEURON_SERVE_SERVER_SECURITY_TOKEN_AUTHORITY_H_
#define NEURON_SERVE_SERVER_SECURITY_TOKEN_AUTHORITY_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/security/rpc_scope.h"
#include "server/security/token_set.h"
#include "base/mutex.h"

namespace neuronserve {

class FileWatcher;

// The answer to one call.
struct AuthDecision {
  absl::StatusCode code = absl::StatusCode::kOk;  // OK, UNAUTHENTICATED or PERMISSION_DENIED
  std::string message;                            // empty when OK
  // The label of the token presented, when it is a known one (also when its scope is too low);
  // empty otherwise. Points into the sets, which the decision keeps alive.
  std::string_view label;
  std::shared_ptr<const void> keep_alive;

  bool ok() const { return code == absl::StatusCode::kOk; }
};

class TokenAuthority {
 public:
  // Reads the files (an empty path: no tokens of that scope). A file that cannot be read or
  // parsed is an error naming it (and the line).
  static absl::StatusOr<std::unique_ptr<TokenAuthority>> Load(std::string infer_token_file,
                                                              std::string admin_token_file);

  TokenAuthority(const TokenAuthority&) = delete;
  TokenAuthority& operator=(const TokenAuthority&) = delete;

  // False when no token file is configured: Authorize allows everything.
  bool enabled() const { return !infer_file_.empty() || !admin_file_.empty(); }

  // `authorization` is the call's "authorization" metadata value (empty when absent); `rpc` is
  // the RPC's short name, for the message.
  AuthDecision Authorize(std::string_view authorization, Scope needed, std::string_view rpc) const;

  // Re-reads both files. A file that fails keeps its previous tokens; the errors are returned
  // (joined), each naming its file and line.
  absl::Status Reload();

  // Calls Reload whenever either file changes, and on watcher.ReloadAll (SIGHUP), then
  // `report` with its result (this target does not log: the daemon's callback does).
  void Watch(FileWatcher& watcher, std::function<void(const absl::Status&)> report);

 private:
  struct Sets {
    TokenSet infer;
    TokenSet admin;
  };

  TokenAuthority(std::string infer_file, std::string admin_file)
      : infer_file_(std::move(infer_file)), admin_file_(std::move(admin_file)) {}
  std::shared_ptr<const Sets> Current() const;

  const std::string infer_file_;
  const std::string admin_file_;
  // Serialises reloads (the watcher thread and tests may both call Reload), so two re-reads
  // never race to publish older contents over newer ones.
  Mutex reload_mutex_;
  mutable Mutex mutex_ ABSL_ACQUIRED_AFTER(reload_mutex_);
  std::shared_ptr<const Sets> sets_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_SECURITY_TOKEN_AUTHORITY_H_
