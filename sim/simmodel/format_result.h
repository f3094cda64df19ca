// The result of reading, checking or writing a sim model: a value, or a sentence saying what is
// wrong. The sim model library is used inside libnrtsim.so, which depends on nothing but the C++
// standard library and nlohmann-json, so it cannot return absl::Status; client/simmodel turns
// these into absl::Status for the tools.
#ifndef NEURON_SERVE_SIM_SIMMODEL_FORMAT_RESULT_H_
#define NEURON_SERVE_SIM_SIMMODEL_FORMAT_RESULT_H_

#include <string>
#include <utility>
#include <variant>

namespace neuronserve::simmodel {

// Why a model was refused, e.g. "op 2 (matmul): inner dimensions differ: [4,8] x [7,3]".
struct FormatError {
  std::string message;
};

template <typename T>
class FormatResult {
 public:
  FormatResult(T value) : state_(std::move(value)) {}  // NOLINT: implicit like StatusOr
  FormatResult(FormatError error) : state_(std::move(error)) {}  // NOLINT

  bool ok() const { return std::holds_alternative<T>(state_); }
  // Only when !ok().
  const std::string& error() const { return std::get<FormatError>(state_).message; }
  // Only when ok().
  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }

 private:
  std::variant<T, FormatError> state_;
};

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_SIM_SIMMODEL_FORMAT_RESULT_H_
