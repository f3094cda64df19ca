#include "sim/core_locks.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "sim/text_parse.h"

namespace neuronserve::nrtsim {
namespace {

std::string SystemError(const std::string& what, const std::string& path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

std::string LockFilePath(const std::string& directory, uint32_t physical_core) {
  return directory + "/nc" + std::to_string(physical_core) + ".lock";
}

// The pid the holder wrote, or 0 if there is none (yet).
pid_t ReadHolder(int fd) {
  char buffer[32] = {};
  ssize_t n = pread(fd, buffer, sizeof(buffer) - 1, 0);
  if (n <= 0) return 0;
  std::string_view text(buffer, static_cast<size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.remove_suffix(1);
  std::optional<uint64_t> pid = ParseUnsigned(text);
  return pid && *pid <= static_cast<uint64_t>(INT32_MAX) ? static_cast<pid_t>(*pid) : 0;
}

bool WritePid(int fd) {
  std::string text = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) != 0) return false;
  return pwrite(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size());
}

}  // namespace

CoreLockResult CoreLocks::Acquire(const std::string& directory,
                                  const std::vector<uint32_t>& physical_cores) {
  CoreLockResult result;
  if (mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) {
    result.error = SystemError("cannot create the lock directory", directory);
    return result;
  }
  std::unique_ptr<CoreLocks> locks(new CoreLocks());
  for (uint32_t core : physical_cores) {
    const std::string path = LockFilePath(directory, core);
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      result.error = SystemError("cannot open the lock file", path);
      return result;  // `locks` releases what was taken
    }
    int locked = 0;
    do {
      locked = flock(fd, LOCK_EX | LOCK_NB);
    } while (locked != 0 && errno == EINTR);
    if (locked != 0) {
      if (errno != EWOULDBLOCK) {
        result.error = SystemError("cannot lock", path);
        close(fd);
        return result;
      }
      result.busy.push_back(BusyCore{core, ReadHolder(fd)});
      close(fd);
      continue;  // look at the other cores too, to name every holder
    }
    locks->fds_.push_back(fd);
    if (!WritePid(fd)) {
      result.error = SystemError("cannot write the pid into", path);
      return result;
    }
  }
  if (result.busy.empty()) result.locks = std::move(locks);
  return result;
}

CoreLocks::~CoreLocks() {
  for (int fd : fds_) close(fd);
}

}  // namespace neuronserve::nrtsim
