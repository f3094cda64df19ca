// The bytes of a vector of elements, as the codec tests compare tensors: BytesOf copies the
// elements' host representation, StringOf turns bytes into the std::string a proto's bytes
// field holds. Plain functions of their arguments: thread-safe.
#ifndef NEURON_SERVE_TESTS_CLIENT_TENSOR_BYTES_H_
#define NEURON_SERVE_TESTS_CLIENT_TENSOR_BYTES_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace neuronserve::testing {

template <typename T>
std::vector<uint8_t> BytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

inline std::string StringOf(const std::vector<uint8_t>& bytes) {
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_CLIENT_TENSOR_BYTES_H_
