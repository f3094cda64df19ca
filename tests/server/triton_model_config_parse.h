// What the TritonModelConfigProtoTest files share: parsing a config.pbtxt as Triton's
// inference.ModelConfig (proto/inference/model_config.proto), with the parser's errors collected
// rather than logged.
//
// Thread safety: free functions.
#ifndef NEURON_SERVE_TESTS_SERVER_TRITON_MODEL_CONFIG_PARSE_H_
#define NEURON_SERVE_TESTS_SERVER_TRITON_MODEL_CONFIG_PARSE_H_

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "inference/model_config.pb.h"

namespace neuronserve::triton_model_config_proto_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Collects the text format parser's errors instead of letting it log them.
class ParseErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    errors.push_back(std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message);
  }
  std::vector<std::string> errors;
};

// Parses `text` as an inference::ModelConfig; the parser's errors go to `errors` if given.
inline bool ParseTritonConfig(const std::string& text, inference::ModelConfig* config,
                              ParseErrors* errors = nullptr) {
  google::protobuf::TextFormat::Parser parser;
  if (errors != nullptr) parser.RecordErrorsTo(errors);
  return parser.ParseFromString(text, config);
}

inline inference::ModelConfig ParseOrFail(const std::string& text) {
  inference::ModelConfig config;
  ParseErrors errors;
  EXPECT_TRUE(ParseTritonConfig(text, &config, &errors))
      << ::testing::PrintToString(errors.errors) << "\n"
      << text;
  return config;
}

}  // namespace neuronserve::triton_model_config_proto_test

#endif  // NEURON_SERVE_TESTS_SERVER_TRITON_MODEL_CONFIG_PARSE_H_
