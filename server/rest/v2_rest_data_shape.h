// RestDataShape: the shape of one input's `data` array as the REST request parser
// (v2_rest_request.cc) reads it, value by value: flat, or nested as a regular array (every
// array at one depth as long as the others, values only at the deepest level). A nested array
// gives its dimensions (outermost first) for request validation to match against `shape`;
// anything irregular ("ragged") is refused where it shows.
//
// Thread safety: one parse on one thread. Ownership: a plain value.
#ifndef NEURON_SERVE_SERVER_REST_V2_REST_DATA_SHAPE_H_
#define NEURON_SERVE_SERVER_REST_V2_REST_DATA_SHAPE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace neuronserve {

class RestDataShape {
 public:
  // A new `data` array is about to open: forgets the one before.
  void Reset();
  // An array opens inside `data`, the outer one included. False: ragged (values stood at this
  // depth before).
  bool OpenArray();
  // The innermost open array closes. False: ragged (its length differs from the others at its
  // depth). When the outer array closes and `data` was nested, `nested_dims` receives its
  // dimensions (outermost first); a flat array leaves it as it was.
  bool CloseArray(std::vector<uint32_t>& nested_dims);
  // A value in the innermost open array. False: ragged (values at another depth before).
  bool Value();

 private:
  static constexpr int64_t kUnset = -1;

  // The current depth (1 = the outer array), the deepest reached, the depth of the values (0:
  // none yet), the element count of the open array at each depth, and each depth's array
  // length (the first array closed at a depth sets it).
  size_t depth_ = 0;
  size_t max_depth_ = 0;
  size_t leaf_depth_ = 0;
  std::vector<size_t> lengths_;
  std::vector<int64_t> dims_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REST_V2_REST_DATA_SHAPE_H_
