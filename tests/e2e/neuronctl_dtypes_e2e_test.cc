// The real neuronctl binary against the real daemon serving a model whose tensors are not all
// float32: the classifier (int64 token ids and attention mask in, float32 logits and float16
// logits_fp16 out). .npy files of int64 in (written here byte by byte) and of float32 and float16
// out, checked against a forward pass computed here from the model's weights; --random with
// integer inputs kept below --random-max; bench; model; and a file of the wrong dtype.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/float_formats.h"
#include "client/simmodel/classifier_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/simmodel/sim_model.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/neuronctl_runner.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {
namespace neuronctl_dtypes_e2e {

using ::testing::AllOf;
using ::testing::HasSubstr;

// The example model's sizes (deploy/models/classifier): vocab, sequence, hidden, classes.
constexpr uint32_t kVocab = kClassifierVocab;
constexpr uint32_t kSequence = kClassifierSequence;
constexpr uint32_t kClasses = kClassifierClasses;



// A version 1.0 .npy file as numpy.save lays it out, for `descr` and the raw element bytes.
std::string NpyBytes(const std::string& descr, const std::string& shape, const std::string& data) {
  std::string header =
      absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': ", shape, ", }");
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = "\x93NUMPY\x01";
  bytes += '\0';
  bytes += static_cast<char>(header.size());
  bytes += '\0';
  return bytes + header + data;
}

template <typename T>
std::string LittleEndianBytes(const std::vector<T>& values) {
  std::string bytes;
  for (T value : values) {
    const auto bits = static_cast<std::make_unsigned_t<T>>(value);
    for (size_t i = 0; i < sizeof(T); ++i) bytes += static_cast<char>((bits >> (8 * i)) & 0xff);
  }
  return bytes;
}


// The data of a .npy file, parsed here; checks the header's dtype and shape.
std::string NpyData(const std::string& bytes, const std::string& descr, const std::string& shape) {
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  if (bytes.size() < 10) return "";
  const size_t header_length =
      static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
  const std::string header = bytes.substr(10, header_length);
  EXPECT_THAT(header, HasSubstr("'descr': '" + descr + "'"));
  EXPECT_THAT(header, HasSubstr("'shape': " + shape));
  return bytes.substr(10 + header_length);
}

// A daemon with the classifier loaded by `neuronctl load` as "classifier".
class NeuronctlDtypesE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = StartDaemon(SimDaemonArgs(), &log_);
    ASSERT_NE(daemon_, nullptr) << log_;
    model_ = ExampleClassifier();
    const std::string path = dir_.Join("classifier.neff");
    WriteFile(path, EncodeNeff(model_));
    ProcessResult load = NeuronctlAt(address(), {"load", path});
    ASSERT_EQ(load.exit_code, 0) << load.err;
  }

  std::string address() const { return daemon_->address; }

  // Token ids (each below the vocabulary) and a mask keeping the first 11 positions.
  static std::vector<int64_t> Ids() {
    std::vector<int64_t> ids(kSequence);
    for (uint32_t i = 0; i < kSequence; ++i) ids[i] = (37 * i + 5) % kVocab;
    ids[3] = kVocab - 1;
    return ids;
  }
  static std::vector<int64_t> Mask() {
    std::vector<int64_t> mask(kSequence, 0);
    for (uint32_t i = 0; i < 11; ++i) mask[i] = 1;
    return mask;
  }

  std::string log_;
  std::unique_ptr<RunningDaemon> daemon_;
  TempDir dir_;
  simmodel::SimModel model_;
};

TEST_F(NeuronctlDtypesE2ETest, InferReadsInt64NpyAndWritesFloat32AndFloat16Outputs) {
  const std::string ids = dir_.Join("ids.npy");
  const std::string mask = dir_.Join("mask.npy");
  WriteFile(ids, NpyBytes("<i8", "(1, 16)", LittleEndianBytes(Ids())));
  WriteFile(mask, NpyBytes("<i8", "(1, 16)", LittleEndianBytes(Mask())));
  const std::vector<double> expected = ClassifierReference(model_, Ids(), Mask());

  const std::string out_dir = dir_.Join("out");
  ProcessResult infer = NeuronctlAt(address(), {"infer", "classifier", "--input", "input_ids=" + ids,
                                       "--input", "attention_mask=" + mask,
                                       "--output-dir=" + out_dir});
  ASSERT_EQ(infer.exit_code, 0) << infer.err;
  EXPECT_THAT(infer.out, HasSubstr("logits float32 [1,4] -> " + out_dir + "/logits.npy"));
  EXPECT_THAT(infer.out,
              HasSubstr("logits_fp16 float16 [1,4] -> " + out_dir + "/logits_fp16.npy"));

  const std::string logits_data = NpyData(ReadFileContents(out_dir + "/logits.npy"), "<f4", "(1, 4)");
  ASSERT_EQ(logits_data.size(), kClasses * 4);
  std::vector<float> logits(kClasses);
  std::memcpy(logits.data(), logits_data.data(), logits_data.size());
  for (uint32_t c = 0; c < kClasses; ++c) EXPECT_NEAR(logits[c], expected[c], 1e-5) << c;

  // float16: the float32 logits rounded to nearest even, bit for bit.
  const std::string half_data = NpyData(ReadFileContents(out_dir + "/logits_fp16.npy"), "<f2", "(1, 4)");
  ASSERT_EQ(half_data.size(), kClasses * 2);
  for (uint32_t c = 0; c < kClasses; ++c) {
    const uint32_t bits = static_cast<uint8_t>(half_data[2 * c]) |
                          (uint32_t{static_cast<uint8_t>(half_data[2 * c + 1])} << 8);
    EXPECT_EQ(bits, neuronserve::EncodeFloat(neuronserve::kFloat16Format, logits[c]))
        << c;
    EXPECT_NEAR(neuronserve::DecodeFloat(neuronserve::kFloat16Format, bits), expected[c],
                1e-3)
        << c;
  }

  // JSON, in both tensor forms: dtypes, shapes and the same numbers.
  for (const std::string form : {"raw", "typed"}) {
    ProcessResult json = NeuronctlAt(address(), {"infer", "classifier", "--input=input_ids=" + ids,
                                        "--input=attention_mask=" + mask, "--form=" + form,
                                        "--output=json"});
    ASSERT_EQ(json.exit_code, 0) << form << ": " << json.err;
    const nlohmann::json result = JsonOutput(json);
    EXPECT_EQ(result["outputs"]["logits"]["dtype"], "float32");
    EXPECT_EQ(result["outputs"]["logits_fp16"]["dtype"], "float16");
    EXPECT_EQ(result["outputs"]["logits_fp16"]["shape"], nlohmann::json::array({1, kClasses}));
    const std::vector<float> got = result["outputs"]["logits"]["values"];
    const std::vector<float> half = result["outputs"]["logits_fp16"]["values"];
    ASSERT_EQ(got.size(), kClasses);
    ASSERT_EQ(half.size(), kClasses);
    for (uint32_t c = 0; c < kClasses; ++c) {
      EXPECT_EQ(got[c], logits[c]) << form << c;
      EXPECT_EQ(half[c], neuronserve::DecodeFloat(
                             neuronserve::kFloat16Format,
                             neuronserve::EncodeFloat(neuronserve::kFloat16Format,
                                                          logits[c])))
          << form << c;
    }
  }
}

TEST_F(NeuronctlDtypesE2ETest, AFileOfAnotherDtypeThanTheInputsIsExitOneNamingBoth) {
  const std::vector<int64_t> ids64 = Ids();
  const std::vector<int32_t> ids32(ids64.begin(), ids64.end());
  const std::string ids = dir_.Join("ids32.npy");
  const std::string mask = dir_.Join("mask.npy");
  WriteFile(ids, NpyBytes("<i4", "(1, 16)", LittleEndianBytes(ids32)));
  WriteFile(mask, NpyBytes("<i8", "(1, 16)", LittleEndianBytes(Mask())));
  ProcessResult wrong = NeuronctlAt(address(), {"infer", "classifier", "--input=input_ids=" + ids,
                                       "--input=attention_mask=" + mask});
  EXPECT_EQ(wrong.exit_code, 1) << wrong.err;
  EXPECT_THAT(wrong.err, AllOf(HasSubstr(ids), HasSubstr("'input_ids'"), HasSubstr("int64"),
                               HasSubstr("'<i8'"), HasSubstr("int32"), HasSubstr("'<i4'")));
  // A float64 file is refused before the server is asked.
  const std::string doubles = dir_.Join("doubles.npy");
  WriteFile(doubles, NpyBytes("<f8", "(1, 16)", std::string(128, '\0')));
  ProcessResult f8 = NeuronctlAt(address(), {"infer", "classifier", "--input=input_ids=" + doubles});
  EXPECT_EQ(f8.exit_code, 1);
  EXPECT_THAT(f8.err, HasSubstr(doubles + ": dtype '<f8' is not one neuronctl reads"));
}

TEST_F(NeuronctlDtypesE2ETest, RandomKeepsIdsAndMaskValidAndIsSeeded) {
  auto run = [&](const std::vector<std::string>& flags) {
    std::vector<std::string> args = {"infer", "classifier", "--random", "--output=json"};
    args.insert(args.end(), flags.begin(), flags.end());
    ProcessResult result = NeuronctlAt(address(), args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return JsonOutput(result)["outputs"];
  };
  const nlohmann::json first = run({"--seed=3"});
  ASSERT_EQ(first["logits"]["values"].size(), kClasses);
  ASSERT_EQ(first["logits_fp16"]["values"].size(), kClasses);
  EXPECT_EQ(run({"--seed=3"}), first);
  // Ids of the whole vocabulary are valid too; --random-max changes the inputs.
  const nlohmann::json wide = run({"--seed=3", "--random-max=512"});
  EXPECT_NE(wide["logits"], first["logits"]);
  for (const auto& outputs : {first, wide}) {
    for (const nlohmann::json& value : outputs["logits"]["values"]) {
      // A mask keeping no position would make NaN (null in JSON); 16 coin flips rarely all
      // come up 0, and the seed fixes them.
      EXPECT_TRUE(value.is_number()) << outputs.dump();
    }
  }

  // A mix: ids from a file, the mask made up.
  const std::string ids = dir_.Join("ids.npy");
  WriteFile(ids, NpyBytes("<i8", "(1, 16)", LittleEndianBytes(Ids())));
  ProcessResult mixed = NeuronctlAt(address(), {"infer", "classifier", "--input=input_ids=" + ids,
                                       "--random", "--seed=1"});
  EXPECT_EQ(mixed.exit_code, 0) << mixed.err;
  EXPECT_THAT(mixed.out, HasSubstr("logits float32 [1,4]"));

  ProcessResult zero = NeuronctlAt(address(), {"infer", "classifier", "--random", "--random-max=0"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_THAT(zero.err, HasSubstr("--random-max: '0' is not a positive integer"));
}

TEST_F(NeuronctlDtypesE2ETest, BenchModelAndDevicesWorkOnTheClassifier) {
  ProcessResult bench = NeuronctlAt(address(), {"bench", "classifier", "--requests=20", "--warmup=0",
                                       "--format=json"});
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  const nlohmann::json report = JsonOutput(bench);
  ASSERT_EQ(report["levels"].size(), 1u);
  EXPECT_EQ(report["levels"][0]["requests"], 20);
  EXPECT_EQ(report["levels"][0]["error_count"], 0);
  EXPECT_EQ(report["random_max"], 2);
  ProcessResult typed = NeuronctlAt(address(), {"bench", "classifier", "--requests=5", "--warmup=0",
                                       "--form=typed", "--random-max=512", "--format=json"});
  ASSERT_EQ(typed.exit_code, 0) << typed.err;
  EXPECT_EQ(JsonOutput(typed)["levels"][0]["error_count"], 0);

  ProcessResult model = NeuronctlAt(address(), {"model", "classifier"});
  ASSERT_EQ(model.exit_code, 0) << model.err;
  EXPECT_THAT(model.out, HasSubstr("  input_ids  int64 [1,16]  128 B"));
  EXPECT_THAT(model.out, HasSubstr("  attention_mask  int64 [1,16]  128 B"));
  EXPECT_THAT(model.out, HasSubstr("  logits  float32 [1,4]  16 B"));
  EXPECT_THAT(model.out, HasSubstr("  logits_fp16  float16 [1,4]  8 B"));
  ProcessResult devices = NeuronctlAt(address(), {"devices"});
  ASSERT_EQ(devices.exit_code, 0) << devices.err;
  EXPECT_THAT(devices.out, HasSubstr("classifier"));
}

}  // namespace neuronctl_dtypes_e2e
}  // namespace neuronserve::testing
