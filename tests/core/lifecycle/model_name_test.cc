#include "core/lifecycle/model_name.h"

#include <string>

#include "core/serving/model/loaded_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;

TEST(ModelNameTest, AcceptsTheAllowedCharset) {
  for (const char* name : {"m", "mlp", "resnet50", "bert-base_uncased.v2", "A-Z_0.9", "_private",
                           "a..b", "x-", "x."}) {
    EXPECT_TRUE(ValidateModelName(name).ok()) << name << ": " << ValidateModelName(name);
  }
  EXPECT_TRUE(ValidateModelName(std::string(128, 'n')).ok());
}

TEST(ModelNameTest, RejectsPathTricks) {
  for (const char* name : {".", "..", "a/b", "/etc", "../x", ".hidden", "-flag", "a\\b"}) {
    absl::Status status = ValidateModelName(name);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << name;
  }
}

TEST(ModelNameTest, MessageQuotesTheNameAndSaysWhatIsAllowed) {
  absl::Status status = ValidateModelName("a/b");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("\"a/b\""));
  EXPECT_THAT(status.message(), HasSubstr("'/' at position 1"));
  EXPECT_THAT(status.message(), HasSubstr("1 to 128 characters from A-Z a-z 0-9 '_' '.' '-'"));
  EXPECT_THAT(status.message(), HasSubstr("not starting with '.' or '-'"));

  EXPECT_THAT(ValidateModelName("..").message(), HasSubstr("starts with '.'"));
  EXPECT_THAT(ValidateModelName("-x").message(), HasSubstr("starts with '-'"));
}

TEST(ModelNameTest, RejectsEmpty) {
  absl::Status status = ValidateModelName("");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("invalid model name \"\": it is empty"));
}

TEST(ModelNameTest, RejectsTooLong) {
  absl::Status status = ValidateModelName(std::string(129, 'n'));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("129 characters long"));
  // A huge name is quoted only in part.
  std::string huge(100000, 'n');
  EXPECT_LT(ValidateModelName(huge).message().size(), 600u);
  EXPECT_THAT(ValidateModelName(huge).message(), HasSubstr("...\""));
}

TEST(ModelNameTest, RejectsUnicodeWithTheBytesEscaped) {
  absl::Status status = ValidateModelName("caf\xc3\xa9");  // "café" in UTF-8
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("\"caf\\xc3\\xa9\""));
}

TEST(ModelNameTest, RejectsControlCharactersAndAnEmbeddedNul) {
  std::string with_nul("ab\0cd", 5);
  absl::Status status = ValidateModelName(with_nul);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("\"ab\\x00cd\""));
  EXPECT_THAT(status.message(), HasSubstr("at position 2"));

  status = ValidateModelName("line\nbreak");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("\"line\\nbreak\""));
  EXPECT_EQ(status.message().find('\n'), absl::string_view::npos);

  EXPECT_FALSE(ValidateModelName("tab\there").ok());
  EXPECT_FALSE(ValidateModelName("sp ace").ok());
  EXPECT_FALSE(ValidateModelName("quote\"").ok());
}

TEST(ModelVersionTest, EmptyIsAllowed) { EXPECT_TRUE(ValidateModelVersion("").ok()); }

TEST(ModelVersionTest, SameCharsetAsNames) {
  for (const char* version : {"1", "v2", "2024.01.05", "1.0-rc1", "build_7"}) {
    EXPECT_TRUE(ValidateModelVersion(version).ok()) << version;
  }
  for (const char* version : {"1/2", "..", ".1", "-1", "v 1", "v\xc3\xa9"}) {
    absl::Status status = ValidateModelVersion(version);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << version;
    EXPECT_THAT(status.message(), HasSubstr("invalid model version"));
  }
}

TEST(ModelVersionTest, AtMost64Characters) {
  EXPECT_TRUE(ValidateModelVersion(std::string(64, '1')).ok());
  absl::Status status = ValidateModelVersion(std::string(65, '1'));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("empty or 1 to 64 characters"));
}

TEST(QuotedModelTest, NamesTheVersionOnlyWhenThereIsOne) {
  EXPECT_EQ(QuotedModel(ModelIdentity{"resnet", "", ModelSource::kUpload}), "'resnet'");
  EXPECT_EQ(QuotedModel(ModelIdentity{"resnet", "2", ModelSource::kState}), "'resnet' version '2'");
}

}  // namespace
}  // namespace neuronserve
