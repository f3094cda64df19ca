// Writes the seed corpora of the protobuf fuzz targets (native_infer_request, v2_infer_request,
// load_model_stream) into FUZZ_DIR/<target>/: valid messages for the models of sim_serving.h
// and the edge cases each binder or the stream refuses. Protobuf's wire format is not written by
// hand; this program is the seeds' source, run by hand after changing one:
//
//   build-fuzz/tests/fuzz/fuzz_write_seeds tests/fuzz
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "inference/grpc_service.pb.h"
#include "neuronserve/v1/neuron_serving.pb.h"
#include "util/sha256.h"

namespace {

std::string fuzz_dir;

void WriteSeed(const std::string& target, const std::string& name, const std::string& bytes) {
  const std::string path = fuzz_dir + "/" + target + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.good()) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

std::string Bytes(size_t count, char value) { return std::string(count, value); }

std::string FloatBytes(const std::vector<float>& values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// The "dtypes" model's inputs (sim_serving.cc): name = dtype, its v2 datatype, shape and bytes.
struct DtypeInput {
  const char* dtype;
  const char* v2;
  std::vector<uint32_t> shape;
  size_t bytes;
};
const std::vector<DtypeInput>& DtypeInputs() {
  static const std::vector<DtypeInput> inputs = {
      {"float16", "FP16", {2, 2}, 8}, {"bfloat16", "BF16", {3}, 6},
      {"int64", "INT64", {1, 3}, 24}, {"int8", "INT8", {4}, 4},
      {"uint8", "UINT8", {2}, 2},     {"int16", "INT16", {2, 1}, 4},
      {"uint16", "UINT16", {2}, 4},   {"int32", "INT32", {1, 1, 2}, 8},
      {"uint32", "UINT32", {2}, 8},   {"uint64", "UINT64", {1}, 8},
      {"fp8_e4", "FP8_E4", {2}, 2},   {"float32", "FP32", {2}, 8},
  };
  return inputs;
}

// ---- native_infer_request

neuronserve::v1::InputTensor* NativeInput(neuronserve::v1::InferRequest& request,
                                          const std::string& name,
                                          const std::vector<uint32_t>& shape) {
  neuronserve::v1::InputTensor* input = request.add_inputs();
  input->set_name(name);
  input->mutable_shape()->Add(shape.begin(), shape.end());
  return input;
}

neuronserve::v1::InferRequest NativeMlp() {
  neuronserve::v1::InferRequest request;
  request.set_id("seed");
  request.set_model("mlp");
  NativeInput(request, "x", {1, 4})->set_raw_data(FloatBytes({1, -2, 3, -4}));
  return request;
}

neuronserve::v1::InferRequest NativeDtypesRaw() {
  neuronserve::v1::InferRequest request;
  request.set_model("dtypes");
  for (const DtypeInput& input : DtypeInputs()) {
    NativeInput(request, input.dtype, input.shape)->set_raw_data(Bytes(input.bytes, '\x01'));
  }
  return request;
}

void WriteNative() {
  using neuronserve::v1::InferRequest;
  const std::string target = "native_infer_request";
  WriteSeed(target, "mlp_raw", NativeMlp().SerializeAsString());

  InferRequest request = NativeMlp();
  request.mutable_inputs(0)->clear_raw_data();
  for (const float value : {0.5f, 1.5f, -2.5f, 3.0f})
    request.mutable_inputs(0)->add_float_data(value);
  request.mutable_inputs(0)->set_dtype("float32");
  request.add_outputs("y");
  request.set_response_form(neuronserve::v1::TENSOR_FORM_FLOAT);
  WriteSeed(target, "mlp_float_data", request.SerializeAsString());

  request = NativeMlp();
  request.set_version("2");
  WriteSeed(target, "mlp_other_version", request.SerializeAsString());

  request = NativeMlp();
  request.mutable_inputs(0)->set_raw_data(Bytes(15, '\0'));
  WriteSeed(target, "mlp_short_raw", request.SerializeAsString());

  request = NativeMlp();
  request.mutable_inputs(0)->add_float_data(1);
  WriteSeed(target, "mlp_two_fields", request.SerializeAsString());

  request = NativeMlp();
  request.mutable_inputs(0)->set_dtype("float16");
  request.mutable_inputs(0)->clear_shape();
  WriteSeed(target, "mlp_wrong_dtype_no_shape", request.SerializeAsString());

  request = NativeMlp();
  request.add_outputs("y");
  request.add_outputs("y");
  WriteSeed(target, "mlp_output_twice", request.SerializeAsString());

  request = NativeMlp();
  *request.add_inputs() = request.inputs(0);
  WriteSeed(target, "mlp_input_twice", request.SerializeAsString());

  request = NativeMlp();
  request.set_model("ghost");
  WriteSeed(target, "unknown_model", request.SerializeAsString());
  request.set_model("broken");
  WriteSeed(target, "failed_model", request.SerializeAsString());
  request.clear_model();
  WriteSeed(target, "no_model", request.SerializeAsString());

  request = NativeDtypesRaw();
  request.add_outputs("float16_out");
  request.add_outputs("int64_out");
  request.add_outputs("fp8_e4_out");
  request.set_response_form(neuronserve::v1::TENSOR_FORM_TYPED);
  WriteSeed(target, "dtypes_raw_typed_answer", request.SerializeAsString());

  // Every input in its typed field (fp8 has none: raw_data), the answer typed.
  request.Clear();
  request.set_model("dtypes");
  for (const DtypeInput& input : DtypeInputs()) {
    neuronserve::v1::InputTensor* tensor = NativeInput(request, input.dtype, input.shape);
    const std::string dtype = input.dtype;
    size_t count = 1;
    for (const uint32_t dimension : input.shape) count *= dimension;
    for (size_t i = 0; i < count; ++i) {
      if (dtype == "float16" || dtype == "bfloat16" || dtype == "float32") {
        tensor->add_float_data(0.25f * static_cast<float>(i));
      } else if (dtype == "int64") {
        tensor->add_int64_data(-(int64_t{1} << 40) + static_cast<int64_t>(i));
      } else if (dtype == "uint64") {
        tensor->add_uint64_data(~uint64_t{0});
      } else if (dtype == "int8" || dtype == "int16" || dtype == "int32") {
        tensor->add_int32_data(-7 + static_cast<int32_t>(i));
      } else if (dtype == "uint8" || dtype == "uint16" || dtype == "uint32") {
        tensor->add_uint32_data(200 + static_cast<uint32_t>(i));
      }
    }
    if (dtype == "fp8_e4") tensor->set_raw_data("\x38\xb8");
  }
  request.set_response_form(neuronserve::v1::TENSOR_FORM_TYPED);
  WriteSeed(target, "dtypes_typed", request.SerializeAsString());

  request.mutable_inputs(3)->set_int32_data(0, 300);  // int8
  WriteSeed(target, "dtypes_int8_out_of_range", request.SerializeAsString());

  request = NativeDtypesRaw();
  request.set_response_form(neuronserve::v1::TENSOR_FORM_FLOAT);
  WriteSeed(target, "dtypes_float_form_refused", request.SerializeAsString());
}

// ---- v2_infer_request

inference::ModelInferRequest::InferInputTensor* V2Input(inference::ModelInferRequest& request,
                                                        const std::string& name,
                                                        const std::string& datatype,
                                                        const std::vector<int64_t>& shape) {
  auto* input = request.add_inputs();
  input->set_name(name);
  input->set_datatype(datatype);
  input->mutable_shape()->Add(shape.begin(), shape.end());
  return input;
}

inference::ModelInferRequest V2Mlp() {
  inference::ModelInferRequest request;
  request.set_id("seed");
  request.set_model_name("mlp");
  V2Input(request, "x", "FP32", {1, 4});
  request.add_raw_input_contents(FloatBytes({1, -2, 3, -4}));
  return request;
}

inference::ModelInferRequest V2DtypesRaw() {
  inference::ModelInferRequest request;
  request.set_model_name("dtypes");
  for (const DtypeInput& input : DtypeInputs()) {
    V2Input(request, input.dtype, input.v2,
            std::vector<int64_t>(input.shape.begin(), input.shape.end()));
    request.add_raw_input_contents(Bytes(input.bytes, '\x02'));
  }
  return request;
}

void WriteV2() {
  using inference::ModelInferRequest;
  const std::string target = "v2_infer_request";
  WriteSeed(target, "mlp_raw", V2Mlp().SerializeAsString());

  ModelInferRequest request = V2Mlp();
  request.clear_raw_input_contents();
  for (const float value : {0.5f, 1.5f, -2.5f, 3.0f}) {
    request.mutable_inputs(0)->mutable_contents()->add_fp32_contents(value);
  }
  request.add_outputs()->set_name("y");
  (*request.mutable_parameters())["timeout"].set_int64_param(250000);
  WriteSeed(target, "mlp_typed_timeout", request.SerializeAsString());

  request = V2Mlp();
  (*request.mutable_parameters())["timeout"].set_int64_param(-1);
  WriteSeed(target, "mlp_negative_timeout", request.SerializeAsString());
  (*request.mutable_parameters())["timeout"].set_string_param("1s");
  WriteSeed(target, "mlp_string_timeout", request.SerializeAsString());

  // The binary extension's per-input parameter and another request parameter: ignored here.
  request = V2Mlp();
  (*request.mutable_inputs(0)->mutable_parameters())["binary_data_size"].set_int64_param(16);
  (*request.mutable_parameters())["priority"].set_uint64_param(3);
  auto* output = request.add_outputs();
  output->set_name("y");
  (*output->mutable_parameters())["binary_data"].set_bool_param(true);
  WriteSeed(target, "mlp_binary_data_parameters", request.SerializeAsString());

  // Shared memory (sim_serving.h's regions "fuzz" and "fuzz_offset"): the input from one
  // region, the output into the other; then the edges a client gets wrong.
  const auto name_region = [](google::protobuf::Map<std::string, inference::InferParameter>& p,
                              const std::string& region, int64_t offset, int64_t byte_size) {
    p["shared_memory_region"].set_string_param(region);
    p["shared_memory_offset"].set_int64_param(offset);
    p["shared_memory_byte_size"].set_int64_param(byte_size);
  };
  request = V2Mlp();
  request.clear_raw_input_contents();
  name_region(*request.mutable_inputs(0)->mutable_parameters(), "fuzz", 64, 16);
  output = request.add_outputs();
  output->set_name("y");
  name_region(*output->mutable_parameters(), "fuzz_offset", 3, 12);
  WriteSeed(target, "mlp_shared_memory", request.SerializeAsString());
  (*request.mutable_inputs(0)->mutable_parameters())["shared_memory_offset"].set_int64_param(65530);
  WriteSeed(target, "mlp_shared_memory_past_end", request.SerializeAsString());
  (*request.mutable_inputs(0)->mutable_parameters())["shared_memory_byte_size"].set_uint64_param(
      ~uint64_t{0});
  WriteSeed(target, "mlp_shared_memory_size_overflow", request.SerializeAsString());
  request = V2Mlp();
  request.clear_raw_input_contents();
  name_region(*request.mutable_inputs(0)->mutable_parameters(), "unregistered", 0, 16);
  WriteSeed(target, "mlp_shared_memory_unknown_region", request.SerializeAsString());
  request.mutable_inputs(0)->mutable_parameters()->erase("shared_memory_byte_size");
  WriteSeed(target, "mlp_shared_memory_no_size", request.SerializeAsString());
  request = V2DtypesRaw();  // the first input from shared memory, the others raw
  request.mutable_raw_input_contents()->erase(request.mutable_raw_input_contents()->begin());
  name_region(*request.mutable_inputs(0)->mutable_parameters(), "fuzz", 4096,
              static_cast<int64_t>(DtypeInputs()[0].bytes));
  WriteSeed(target, "dtypes_first_in_shared_memory", request.SerializeAsString());

  request = V2Mlp();
  request.set_model_version("2");
  WriteSeed(target, "mlp_other_version", request.SerializeAsString());

  request = V2Mlp();
  request.add_raw_input_contents("extra");
  WriteSeed(target, "mlp_raw_count_mismatch", request.SerializeAsString());

  request = V2Mlp();
  request.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1);
  WriteSeed(target, "mlp_raw_and_contents", request.SerializeAsString());

  request = V2Mlp();
  request.mutable_inputs(0)->set_shape(1, -4);
  WriteSeed(target, "mlp_negative_dimension", request.SerializeAsString());
  request.mutable_inputs(0)->set_shape(1, int64_t{1} << 33);
  WriteSeed(target, "mlp_huge_dimension", request.SerializeAsString());
  request.mutable_inputs(0)->clear_shape();
  WriteSeed(target, "mlp_no_shape", request.SerializeAsString());

  request = V2Mlp();
  request.mutable_inputs(0)->set_datatype("FP16");
  WriteSeed(target, "mlp_wrong_datatype", request.SerializeAsString());

  request = V2Mlp();
  request.clear_raw_input_contents();
  request.mutable_inputs(0)->mutable_contents()->add_fp64_contents(1.0);
  WriteSeed(target, "mlp_fp64_contents", request.SerializeAsString());

  request = V2Mlp();
  request.clear_raw_input_contents();
  for (int i = 0; i < 4; ++i)
    request.mutable_inputs(0)->mutable_contents()->add_bool_contents(true);
  WriteSeed(target, "mlp_bool_contents", request.SerializeAsString());

  request = V2Mlp();
  request.set_model_name("ghost");
  WriteSeed(target, "unknown_model", request.SerializeAsString());
  request.set_model_name("broken");
  WriteSeed(target, "failed_model", request.SerializeAsString());
  request.clear_model_name();
  WriteSeed(target, "no_model", request.SerializeAsString());

  request = V2DtypesRaw();
  WriteSeed(target, "dtypes_raw", request.SerializeAsString());
  request.add_outputs()->set_name("int64_out");
  request.add_outputs()->set_name("bfloat16_out");
  WriteSeed(target, "dtypes_raw_some_outputs", request.SerializeAsString());

  // int8 as BOOL, raw.
  request = V2DtypesRaw();
  request.mutable_inputs(3)->set_datatype("BOOL");
  WriteSeed(target, "dtypes_int8_as_bool", request.SerializeAsString());

  // Typed contents: FP16 cannot travel typed, so the request is refused naming it.
  request.Clear();
  request.set_model_name("dtypes");
  for (const DtypeInput& input : DtypeInputs()) {
    auto* tensor = V2Input(request, input.dtype, input.v2,
                           std::vector<int64_t>(input.shape.begin(), input.shape.end()));
    const std::string dtype = input.dtype;
    size_t count = 1;
    for (const uint32_t dimension : input.shape) count *= dimension;
    auto* contents = tensor->mutable_contents();
    for (size_t i = 0; i < count; ++i) {
      if (dtype == "float32") contents->add_fp32_contents(1.5f);
      if (dtype == "int64") contents->add_int64_contents(-3);
      if (dtype == "uint64") contents->add_uint64_contents(3);
      if (dtype == "int8" || dtype == "int16" || dtype == "int32") contents->add_int_contents(-3);
      if (dtype == "uint8" || dtype == "uint16" || dtype == "uint32")
        contents->add_uint_contents(3);
      if (dtype == "float16" || dtype == "bfloat16") contents->add_fp32_contents(0.5f);
    }
  }
  WriteSeed(target, "dtypes_typed_fp16_refused", request.SerializeAsString());
  request.mutable_inputs(3)->set_datatype("BOOL");
  request.mutable_inputs(3)->mutable_contents()->Clear();
  for (int i = 0; i < 4; ++i)
    request.mutable_inputs(3)->mutable_contents()->add_bool_contents(i % 2);
  WriteSeed(target, "dtypes_typed_bool", request.SerializeAsString());
}

// ---- load_model_stream: each message a 2-byte little-endian length and its bytes.

std::string Frame(const std::vector<neuronserve::v1::LoadModelRequest>& messages) {
  std::string stream;
  for (const auto& message : messages) {
    const std::string bytes = message.SerializeAsString();
    stream.push_back(static_cast<char>(bytes.size() & 0xff));
    stream.push_back(static_cast<char>(bytes.size() >> 8));
    stream += bytes;
  }
  return stream;
}

neuronserve::v1::LoadModelRequest Header(const std::string& name, uint64_t size,
                                         const std::string& sha256) {
  neuronserve::v1::LoadModelRequest request;
  auto* header = request.mutable_header();
  header->mutable_config()->set_name(name);
  header->set_total_size(size);
  header->set_sha256(sha256);
  return request;
}

neuronserve::v1::LoadModelRequest RepositoryHeader(const std::string& path) {
  neuronserve::v1::LoadModelRequest request;
  request.mutable_header()->set_repository_path(path);
  return request;
}

neuronserve::v1::LoadModelRequest Chunk(const std::string& bytes) {
  neuronserve::v1::LoadModelRequest request;
  request.set_chunk(bytes);
  return request;
}

std::string Sha256Hex(const std::string& bytes) {
  neuronserve::Sha256 digest;
  digest.Update(bytes);
  return digest.FinalHex();
}

void WriteLoadModelStream() {
  const std::string target = "load_model_stream";
  const std::string neff = "NRTSIM1\n{\"inputs\": []}";
  const std::string sha = Sha256Hex(neff);
  std::string upper = sha;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const auto first = Chunk(neff.substr(0, 10));
  const auto rest = Chunk(neff.substr(10));

  WriteSeed(target, "upload", Frame({Header("up", neff.size(), sha), first, rest}));
  auto header = Header("up", neff.size(), upper);
  header.mutable_header()->mutable_config()->set_version("3");
  header.mutable_header()->mutable_config()->set_replicas(2);
  WriteSeed(target, "upload_upper_case_sha", Frame({header, first, Chunk(""), rest}));
  WriteSeed(target, "upload_wrong_sha",
            Frame({Header("up", neff.size(), Sha256Hex("other")), first, rest}));
  WriteSeed(target, "upload_short", Frame({Header("up", neff.size(), sha), first}));
  WriteSeed(target, "upload_too_many_bytes",
            Frame({Header("up", neff.size(), sha), first, rest, Chunk("x")}));
  WriteSeed(target, "upload_zero_size", Frame({Header("up", 0, sha)}));
  WriteSeed(target, "upload_over_max", Frame({Header("up", (1 << 20) + 1, sha)}));
  WriteSeed(target, "upload_bad_sha_digits", Frame({Header("up", neff.size(), "xyz")}));
  WriteSeed(target, "upload_no_name", Frame({Header("", neff.size(), sha)}));
  WriteSeed(target, "chunk_first", Frame({first}));
  WriteSeed(target, "second_header",
            Frame({Header("up", neff.size(), sha), Header("up", neff.size(), sha)}));
  WriteSeed(target, "empty_stream", "");

  // A batched model: two variants' bytes back to back, the chunks crossing the boundary.
  const std::string second = "NRTSIM1\n{\"inputs\": [], \"outputs\": []}";
  neuronserve::v1::LoadModelRequest batched;
  batched.mutable_header()->mutable_config()->set_name("batched");
  for (const auto& [rows, bytes] : {std::pair{1u, neff}, std::pair{4u, second}}) {
    auto* variant = batched.mutable_header()->add_variants();
    variant->set_batch_size(rows);
    variant->set_size(bytes.size());
    variant->set_sha256(Sha256Hex(bytes));
  }
  const std::string both = neff + second;
  WriteSeed(target, "upload_variants",
            Frame({batched, Chunk(both.substr(0, neff.size() + 5)),
                   Chunk(both.substr(neff.size() + 5))}));
  auto same_batch = batched;
  same_batch.mutable_header()->mutable_variants(1)->set_batch_size(1);
  WriteSeed(target, "upload_variants_same_batch", Frame({same_batch, Chunk(both)}));
  WriteSeed(target, "upload_variants_short", Frame({batched, Chunk(both.substr(0, 30))}));

  WriteSeed(target, "repository_folder", Frame({RepositoryHeader("mlp")}));
  auto renamed = RepositoryHeader("mlp/");
  renamed.mutable_header()->mutable_config()->set_name("renamed");
  WriteSeed(target, "repository_folder_renamed", Frame({renamed}));
  WriteSeed(target, "repository_bare_neff", Frame({RepositoryHeader("bare.neff")}));
  WriteSeed(target, "repository_symlink_out", Frame({RepositoryHeader("escape.neff")}));
  WriteSeed(target, "repository_symlink_dir_out", Frame({RepositoryHeader("up/outside.neff")}));
  WriteSeed(target, "repository_dot_dot", Frame({RepositoryHeader("../outside.neff")}));
  WriteSeed(target, "repository_absolute", Frame({RepositoryHeader("/etc/hostname")}));
  WriteSeed(target, "repository_missing", Frame({RepositoryHeader("ghost")}));
  WriteSeed(target, "repository_with_chunk", Frame({RepositoryHeader("mlp"), first}));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FUZZ_DIR (tests/fuzz)\n", argv[0]);
    return 2;
  }
  fuzz_dir = argv[1];
  WriteNative();
  WriteV2();
  WriteLoadModelStream();
  return 0;
}
