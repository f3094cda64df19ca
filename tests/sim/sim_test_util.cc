#include "tests/sim/sim_test_util.h"

#include <cstdlib>

namespace nrtsim_test {

json Float32(const std::string& name, std::vector<uint32_t> shape) {
  return json{{"name", name}, {"dtype", "float32"}, {"shape", shape}};
}

void SimTest::SetUp() {
  // Not NRTSIM_LOCK_DIR: it is this process's private lock directory
  // (tests/sim_lock_dir/private_lock_dir.cc), which keeps parallel tests apart.
  for (const char* name :
       {"NRTSIM_CORES", "NRTSIM_INSTANCE", "NRTSIM_HBM_BYTES", "NRTSIM_VERSION",
        "NRTSIM_VOID_DTYPE_TENSORS", "NEURON_RT_VISIBLE_CORES", "NEURON_RT_NUM_CORES",
        "NEURON_LOGICAL_NC_CONFIG", "NEURON_RT_EXEC_TIMEOUT", "NRTSIM_DMA_BYTES_PER_SECOND",
        "NRTSIM_FAULTS", "NRTSIM_FAULTS_FILE"}) {
    unsetenv(name);
  }
}

void SimTest::TearDown() { api().nrt_close(); }

void SimTest::SetEnv(const char* name, const std::string& value) {
  ASSERT_EQ(setenv(name, value.c_str(), 1), 0);
}

void SimTest::Init() { ASSERT_EQ(api().nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS); }

nrtsim_stats_t SimTest::Stats() const {
  nrtsim_stats_t stats{};
  EXPECT_EQ(api().nrtsim_get_stats(&stats, sizeof(stats)), NRT_SUCCESS);
  return stats;
}

NRT_STATUS SimTest::Load(const json& model, ModelPtr* out, int32_t vnc, int32_t vnc_count) {
  return LoadBytes(SimNeffFromJson(model.dump()), out, vnc, vnc_count);
}

NRT_STATUS SimTest::LoadBytes(const std::string& bytes, ModelPtr* out, int32_t vnc,
                              int32_t vnc_count) {
  nrt_model_t* model = nullptr;
  NRT_STATUS status = api().nrt_load(bytes.data(), bytes.size(), vnc, vnc_count, &model);
  out->reset(model);
  if (status != NRT_SUCCESS) {
    EXPECT_EQ(model, nullptr);
  }
  return status;
}

ModelPtr SimTest::MustLoad(const json& model, int32_t vnc) {
  ModelPtr loaded;
  EXPECT_EQ(Load(model, &loaded, vnc), NRT_SUCCESS) << model.dump();
  return loaded;
}

NRT_STATUS SimTest::Allocate(nrt_tensor_placement_t placement, int vnc, size_t size,
                             TensorPtr* out) {
  nrt_tensor_t* tensor = nullptr;
  NRT_STATUS status = api().nrt_tensor_allocate(placement, vnc, size, "test", &tensor);
  out->reset(tensor);
  return status;
}

TensorPtr SimTest::MustAllocate(nrt_tensor_placement_t placement, int vnc, size_t size) {
  TensorPtr tensor;
  EXPECT_EQ(Allocate(placement, vnc, size, &tensor), NRT_SUCCESS);
  return tensor;
}

TensorSetPtr SimTest::MustAllocateSet() {
  nrt_tensor_set_t* set = nullptr;
  EXPECT_EQ(api().nrt_allocate_tensor_set(&set), NRT_SUCCESS);
  return TensorSetPtr(set);
}

void SimTest::MustAdd(nrt_tensor_set_t* set, const std::string& name, nrt_tensor_t* tensor) {
  ASSERT_EQ(api().nrt_add_tensor_to_tensor_set(set, name.c_str(), tensor), NRT_SUCCESS);
}

void SimTest::WriteFloats(nrt_tensor_t* tensor, const std::vector<float>& values) {
  ASSERT_EQ(Api().nrt_tensor_write(tensor, values.data(), 0, values.size() * sizeof(float)),
            NRT_SUCCESS);
}

std::vector<float> SimTest::ReadFloats(const nrt_tensor_t* tensor) {
  std::vector<float> values(Api().nrt_tensor_get_size(tensor) / sizeof(float));
  EXPECT_EQ(Api().nrt_tensor_read(tensor, values.data(), 0, values.size() * sizeof(float)),
            NRT_SUCCESS);
  return values;
}

NRT_STATUS SimTest::Run(nrt_model_t* model, int vnc, const FloatMap& inputs,
                        const std::map<std::string, size_t>& output_sizes, FloatMap* outputs) {
  std::vector<TensorPtr> tensors;
  TensorSetPtr input_set = MustAllocateSet();
  TensorSetPtr output_set = MustAllocateSet();
  for (const auto& [name, values] : inputs) {
    tensors.push_back(MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, values.size() * 4));
    WriteFloats(tensors.back().get(), values);
    MustAdd(input_set.get(), name, tensors.back().get());
  }
  std::map<std::string, nrt_tensor_t*> output_tensors;
  for (const auto& [name, count] : output_sizes) {
    tensors.push_back(MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, count * 4));
    output_tensors[name] = tensors.back().get();
    MustAdd(output_set.get(), name, tensors.back().get());
  }
  NRT_STATUS status = api().nrt_execute(model, input_set.get(), output_set.get());
  if (status == NRT_SUCCESS) {
    for (const auto& [name, tensor] : output_tensors) (*outputs)[name] = ReadFloats(tensor);
  }
  return status;
}

NRT_STATUS SimTest::RunBytes(nrt_model_t* model, const ByteMap& inputs,
                             const std::map<std::string, size_t>& output_bytes, ByteMap* outputs) {
  std::vector<TensorPtr> tensors;
  TensorSetPtr input_set = MustAllocateSet();
  TensorSetPtr output_set = MustAllocateSet();
  for (const auto& [name, bytes] : inputs) {
    tensors.push_back(MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, bytes.size()));
    EXPECT_EQ(api().nrt_tensor_write(tensors.back().get(), bytes.data(), 0, bytes.size()),
              NRT_SUCCESS);
    MustAdd(input_set.get(), name, tensors.back().get());
  }
  std::map<std::string, nrt_tensor_t*> output_tensors;
  for (const auto& [name, size] : output_bytes) {
    tensors.push_back(MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, size));
    output_tensors[name] = tensors.back().get();
    MustAdd(output_set.get(), name, tensors.back().get());
  }
  NRT_STATUS status = api().nrt_execute(model, input_set.get(), output_set.get());
  if (status == NRT_SUCCESS) {
    for (const auto& [name, tensor] : output_tensors) {
      std::string bytes(output_bytes.at(name), '\0');
      EXPECT_EQ(api().nrt_tensor_read(tensor, bytes.data(), 0, bytes.size()), NRT_SUCCESS);
      (*outputs)[name] = std::move(bytes);
    }
  }
  return status;
}

}  // namespace nrtsim_test
