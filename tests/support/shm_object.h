// A POSIX shared-memory object made as a client makes one (tritonclient's helpers:
// shm_open(O_CREAT|O_EXCL, 0600), ftruncate, mmap), under a key unique to the test process, and
// unlinked when the test is done.
#ifndef NEURON_SERVE_TESTS_SUPPORT_SHM_OBJECT_H_
#define NEURON_SERVE_TESTS_SUPPORT_SHM_OBJECT_H_

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

namespace neuronserve::testing {

class ShmObject {
 public:
  // An object of `size` bytes whose byte i is `i * 7 + 1` (mod 256).
  explicit ShmObject(size_t size)
      : key_(absl::StrCat("/neuron-serve-test-", getpid(), "-", Next())), size_(size) {
    fd_ = shm_open(key_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd_ < 0 || ftruncate(fd_, static_cast<off_t>(size)) != 0) return;
    void* mapping = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (mapping == MAP_FAILED) return;
    bytes_ = static_cast<uint8_t*>(mapping);
    for (size_t i = 0; i < size; ++i) bytes_[i] = static_cast<uint8_t>(i * 7 + 1);
  }
  ~ShmObject() {
    if (bytes_ != nullptr) munmap(bytes_, size_);
    if (fd_ >= 0) close(fd_);
    shm_unlink(key_.c_str());
  }
  ShmObject(const ShmObject&) = delete;
  ShmObject& operator=(const ShmObject&) = delete;

  bool ok() const { return bytes_ != nullptr; }
  const std::string& key() const { return key_; }  // with its leading '/', as tritonclient's
  uint8_t* bytes() { return bytes_; }              // the client's own view of the object
  size_t size() const { return size_; }
  // The client shrinks its object under the daemon's mapping.
  bool Truncate(size_t size) { return ftruncate(fd_, static_cast<off_t>(size)) == 0; }

  static uint8_t Expected(size_t i) { return static_cast<uint8_t>(i * 7 + 1); }

 private:
  static int Next() {
    static std::atomic<int> next{0};
    return next++;
  }

  std::string key_;
  size_t size_;
  int fd_ = -1;
  uint8_t* bytes_ = nullptr;
};

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_SHM_OBJECT_H_
