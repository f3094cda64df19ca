#include "sim/call_faults.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "base/nrt_status_names.h"
#include "base/scoped_fd.h"
#include "sim/log.h"
#include "sim/sim_counters.h"

namespace neuronserve::nrtsim {

namespace call_faults_internal {
constinit std::atomic<bool> configured{false};
}  // namespace call_faults_internal

namespace {

// What stat() says of the rules file: enough to see that it was replaced (rename gives a new
// inode) or rewritten in place (size, modification time).
// (util's FileWatcher::FileState is the daemon's equivalent; the simulator links no Abseil, and so
// not util.)
struct FileIdentity {
  bool exists = false;
  ino_t inode = 0;
  off_t size = 0;
  int64_t mtime_seconds = 0;
  int64_t mtime_nanoseconds = 0;

  static FileIdentity Of(const struct stat& st) {
    return FileIdentity{true, st.st_ino, st.st_size, static_cast<int64_t>(st.st_mtim.tv_sec),
                        static_cast<int64_t>(st.st_mtim.tv_nsec)};
  }
  bool operator==(const FileIdentity&) const = default;
};

// A rule with the number of calls it has matched since it was installed.
struct CountedRule {
  CallFaultRule rule;
  uint64_t matched = 0;
};

std::vector<CountedRule> Counted(std::vector<CallFaultRule> rules) {
  std::vector<CountedRule> counted;
  counted.reserve(rules.size());
  for (CallFaultRule& rule : rules) counted.push_back(CountedRule{std::move(rule), 0});
  return counted;
}

class CallFaultState {
 public:
  void Install(const SimConfig& config) {
    std::vector<std::string> lines;
    {
      MutexLock lock(&mutex_);
      environment_rules_ = Counted(config.call_fault_rules);
      file_rules_.clear();
      file_ = config.call_faults_file;
      visible_cores_ = static_cast<uint32_t>(config.visible_cores.size());
      file_seen_.reset();
      if (!file_.empty()) RefreshFile(&lines);
      call_faults_internal::configured.store(!environment_rules_.empty() || !file_.empty(),
                                             std::memory_order_relaxed);
    }
    for (const std::string& line : lines) LogLine(line);
  }

  std::optional<NRT_STATUS> Decide(RuntimeCall call, std::optional<uint32_t> core) {
    std::vector<std::string> lines;
    std::optional<NRT_STATUS> decided;
    {
      MutexLock lock(&mutex_);
      if (!file_.empty()) RefreshFile(&lines);
      // Every rule counts every call it matches, whether or not an earlier rule fired, so that
      // each rule's after= and count= mean the same whatever the other rules say.
      for (std::vector<CountedRule>* rules : {&environment_rules_, &file_rules_}) {
        for (CountedRule& counted : *rules) {
          const CallFaultRule& rule = counted.rule;
          if (rule.call != call || (rule.core && rule.core != core)) continue;
          const uint64_t n = ++counted.matched;
          const bool fires = n > rule.after && (!rule.count || n - rule.after <= *rule.count);
          if (!fires || decided) continue;
          decided = rule.status;
          lines.push_back("fault: " + std::string(RuntimeCallName(call)) + " on core " +
                          (core ? std::to_string(*core) : "-") + " -> " +
                          std::string(NrtStatusName(rule.status)) + " (rule \"" + rule.text +
                          "\", call " + std::to_string(n) + ")");
        }
      }
    }
    if (decided) Counters().faults_injected.fetch_add(1);
    // Written after unlocking: a blocked stderr must not stall every other call's decision.
    for (const std::string& line : lines) LogLine(line);
    return decided;
  }

 private:
  // Re-reads the file if stat() says it is not the content in force, appending what to log.
  void RefreshFile(std::vector<std::string>* lines) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    if (file_seen_ == IdentityOfPath()) return;
    ReadFile(lines);
  }

  // A path that cannot be stat()ed (missing, or a directory on the way not searchable) is one
  // identity: nothing changes until it can be.
  FileIdentity IdentityOfPath() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    struct stat st {};
    return stat(file_.c_str(), &st) == 0 ? FileIdentity::Of(st) : FileIdentity{};
  }

  void ReadFile(std::vector<std::string>* lines) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    const std::string described = "NRTSIM_FAULTS_FILE '" + file_ + "'";
    const std::string keeping =
        "; keeping the rules in force (" + std::to_string(file_rules_.size()) + " from the file)";
    // The identity is taken from the descriptor that is read, so that a file replaced between
    // the stat() above and this open() is read again at the next call rather than never.
    ScopedFd fd(open(file_.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) {
      const int error = errno;
      if (error == ENOENT) {
        file_seen_ = FileIdentity{};
        file_rules_.clear();
        lines->push_back("faults: " + described + " does not exist: no rules from it");
        return;
      }
      // Not readable (permissions, a directory on the path): retried when stat() changes.
      file_seen_ = IdentityOfPath();
      lines->push_back("faults: " + described + " cannot be opened (" + std::strerror(error) + ")" +
                       keeping);
      return;
    }
    struct stat st {};
    if (fstat(fd.get(), &st) != 0) {
      const int error = errno;
      file_seen_ = IdentityOfPath();
      lines->push_back("faults: " + described + " cannot be examined (" + std::strerror(error) +
                       ")" + keeping);
      return;
    }
    file_seen_ = FileIdentity::Of(st);
    if (!S_ISREG(st.st_mode)) {
      lines->push_back("faults: " + described + " is not a regular file" + keeping);
      return;
    }
    std::string content;
    char buffer[4096];
    while (true) {
      const ssize_t n = read(fd.get(), buffer, sizeof buffer);
      if (n == 0) break;
      if (n < 0) {
        if (errno == EINTR) continue;
        lines->push_back("faults: " + described + " cannot be read (" + std::strerror(errno) + ")" +
                         keeping);
        return;
      }
      content.append(buffer, static_cast<size_t>(n));
    }
    std::string error;
    std::optional<std::vector<CallFaultRule>> rules =
        ParseCallFaultFile(content, visible_cores_, &error);
    if (!rules) {
      lines->push_back("faults: " + described + " " + error + keeping);
      return;
    }
    lines->push_back("faults: read " + std::to_string(rules->size()) + " rule(s) from " +
                     described);
    file_rules_ = Counted(std::move(*rules));
  }

  Mutex mutex_;
  std::vector<CountedRule> environment_rules_ ABSL_GUARDED_BY(mutex_);
  std::vector<CountedRule> file_rules_ ABSL_GUARDED_BY(mutex_);
  std::string file_ ABSL_GUARDED_BY(mutex_);  // empty: NRTSIM_FAULTS_FILE was not set
  uint32_t visible_cores_ ABSL_GUARDED_BY(mutex_) = 0;
  // The file's identity when it was last read (or found missing); nullopt: not read yet.
  std::optional<FileIdentity> file_seen_ ABSL_GUARDED_BY(mutex_);
};

CallFaultState& State() {
  // An object, not a pointer to the heap: a process that unloads the library (dlclose) must
  // not be left with an allocation nothing points to.
  static CallFaultState state;
  return state;
}

}  // namespace

void InstallCallFaults(const SimConfig& config) { State().Install(config); }

std::optional<NRT_STATUS> call_faults_internal::Decide(RuntimeCall call,
                                                       std::optional<uint32_t> core) {
  return State().Decide(call, core);
}

}  // namespace neuronserve::nrtsim
