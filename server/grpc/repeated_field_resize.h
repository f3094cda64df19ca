// ResizeForOverwrite: sizes a protobuf repeated field for values that are about to be written
// over, without filling it first. Shared by the front ends' response writers.
//
// Thread safety: as the field's (one thread at a time).
#ifndef NEURON_SERVE_SERVER_GRPC_REPEATED_FIELD_RESIZE_H_
#define NEURON_SERVE_SERVER_GRPC_REPEATED_FIELD_RESIZE_H_

#include <string>

#include "google/protobuf/repeated_field.h"

namespace neuronserve {

// Sizes `values` to `count` without zero-filling (AddNAlreadyReserved leaves the new elements
// uninitialized): the device read or the conversion that follows overwrites all of them, and
// at 16 MiB the fill is one more pass over memory on the core's worker thread.
template <typename T>
T* ResizeForOverwrite(google::protobuf::RepeatedField<T>& values, int count) {
  if (values.size() != count) {
    values.Clear();
    values.Reserve(count);
    values.AddNAlreadyReserved(count);
  }
  return values.mutable_data();
}

// A bytes field has no such way before C++23 (std::string::resize_and_overwrite): it is
// resized and filled.
inline char* ResizeForOverwrite(std::string& bytes, size_t count) {
  bytes.resize(count);
  return bytes.data();
}

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_REPEATED_FIELD_RESIZE_H_
