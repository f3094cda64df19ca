#include "util/posix_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace neuronserve {
namespace {

constexpr size_t kReadChunk = size_t{1} << 20;

// strerror_r comes in two flavours: GNU returns the text (not necessarily in `buffer`), XSI
// returns 0 and fills `buffer`.
[[maybe_unused]] std::string StrerrorResult(const char* text, const char*) { return text; }
[[maybe_unused]] std::string StrerrorResult(int rc, const char* buffer) {
  return rc == 0 ? std::string(buffer) : std::string("unknown error");
}

}  // namespace

// Not absl::ErrnoToStatus: its message table is built by Debian's uninstrumented libabsl behind a
// static guard TSAN cannot see, which makes concurrent errors look like a race.
absl::Status ErrnoError(int error, absl::string_view what, const std::string& path) {
  char buffer[256] = "";
  std::string reason = StrerrorResult(strerror_r(error, buffer, sizeof(buffer)), buffer);
  return absl::Status(absl::ErrnoToStatusCode(error),
                      absl::StrCat("cannot ", what, " ", path, ": ", reason));
}

absl::Status ReadFileInChunks(const std::string& path,
                              const std::function<void(absl::string_view)>& consume) {
  ScopedFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError(errno, "open", path);
  std::string chunk(kReadChunk, '\0');
  while (true) {
    ssize_t got = read(fd.get(), chunk.data(), chunk.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(errno, "read", path);
    }
    if (got == 0) return absl::OkStatus();
    consume(absl::string_view(chunk.data(), static_cast<size_t>(got)));
  }
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::string contents;
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && info.st_size > 0) {
    contents.reserve(static_cast<size_t>(info.st_size));
  }
  absl::Status read = ReadFileInChunks(
      path, [&](absl::string_view chunk) { contents.append(chunk.data(), chunk.size()); });
  if (!read.ok()) return read;
  return contents;
}

}  // namespace neuronserve
