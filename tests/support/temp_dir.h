// TempDir: a fresh directory for one test, removed with everything in it on destruction.
#ifndef NEURON_SERVE_TESTS_SUPPORT_TEMP_DIR_H_
#define NEURON_SERVE_TESTS_SUPPORT_TEMP_DIR_H_

#include <string>

namespace neuronserve::testing {

class TempDir {
 public:
  // Under $TMPDIR (or /tmp); path() is empty if it could not be made.
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // path() + "/" + relative.
  std::string Join(const std::string& relative) const;
  // Writes `contents` to Join(relative), creating the folders on the way; returns that path.
  // Aborts naming the path when it cannot (this library does not link gtest, and a test that
  // writes a file depends on it).
  std::string Write(const std::string& relative, const std::string& contents) const;

 private:
  std::string path_;
};

// The whole contents of the file at `path`; empty when it cannot be read (tests that poll for a
// file read it again until it has what they wait for).
std::string ReadFileContents(const std::string& path);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_TEMP_DIR_H_
