// Sample tensors of every dtype for the end-to-end tests of both front ends: the 15 dtypes,
// six values each holds exactly, their little-endian element bytes, and identity models of each
// loaded through the native API (named "id_<dtype>").
#ifndef NEURON_SERVE_TESTS_E2E_DTYPE_SAMPLES_H_
#define NEURON_SERVE_TESTS_E2E_DTYPE_SAMPLES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"

namespace neuronserve::testing {

// Every dtype a NeuronCore tensor may have.
extern const DataType kEveryDtype[15];

// Six values `dtype` holds exactly, its extremes among them.
std::vector<double> SampleValues(DataType dtype);

// The little-endian element bytes of `values` in `dtype` (fp8s: fixed patterns, none NaN).
std::string ElementBytes(DataType dtype, const std::vector<double>& values);

// "id_<dtype>", the name LoadIdentity gives the identity model of `dtype`.
std::string ModelNameFor(DataType dtype);

// Loads y = x over `dtype` and `shape` (input "input", output "output") as ModelNameFor(dtype),
// shared on its cores; a test failure when the daemon refuses it.
void LoadIdentity(v1::NeuronServing::Stub& stub, DataType dtype, std::vector<int64_t> shape);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_E2E_DTYPE_SAMPLES_H_
