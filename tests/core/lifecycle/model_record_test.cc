// The model store's record format on its own: what a record looks like, what round-trips, and the
// reason each kind of damaged record is refused with.
#include "core/lifecycle/model_record.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;

constexpr char kSha[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

ModelRecord SampleRecord() {
  ModelRecord record;
  record.name = "mlp";
  record.version = "v2";
  record.neffs = {RecordedNeff{0, "0123456789abcdef-1-2-3.neff", 18, kSha}};
  record.config_text = "name: \"mlp\"\n";
  return record;
}

// A batched model's record: two variants.
ModelRecord SampleBatchedRecord() {
  ModelRecord record = SampleRecord();
  record.neffs = {RecordedNeff{1, "0123456789abcdef-1.neff", 18, kSha},
                  RecordedNeff{8, "0123456789abcdef-2.neff", 90, kSha}};
  return record;
}

nlohmann::json SampleJson() {
  return nlohmann::json::parse(SerializeModelRecord(SampleRecord(), absl::UnixEpoch()));
}

// The message ParseModelRecord gives for `json`; "" if it parses.
std::string ParseError(const nlohmann::json& json) {
  absl::StatusOr<ModelRecord> record = ParseModelRecord(json.dump());
  if (record.ok()) return "";
  EXPECT_EQ(record.status().code(), absl::StatusCode::kDataLoss);
  return std::string(record.status().message());
}

void ExpectSame(const ModelRecord& a, const ModelRecord& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.neffs, b.neffs);
  EXPECT_EQ(a.config_text, b.config_text);
}

TEST(ModelRecordTest, SerializesFormatOneWithEveryField) {
  nlohmann::json json = SampleJson();
  EXPECT_EQ(json["format"], 1);
  EXPECT_EQ(json["name"], "mlp");
  EXPECT_EQ(json["version"], "v2");
  EXPECT_EQ(json["neff_file"], "0123456789abcdef-1-2-3.neff");
  EXPECT_EQ(json["neff_size"], 18);
  EXPECT_EQ(json["neff_sha256"], kSha);
  EXPECT_EQ(json["config_text"], "name: \"mlp\"\n");
  EXPECT_EQ(json["saved_at"], "1970-01-01T00:00:00+00:00");
  EXPECT_EQ(SerializeModelRecord(SampleRecord(), absl::UnixEpoch()).back(), '\n');
}

TEST(ModelRecordTest, RoundTrips) {
  absl::StatusOr<ModelRecord> parsed =
      ParseModelRecord(SerializeModelRecord(SampleRecord(), absl::Now()));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ExpectSame(*parsed, SampleRecord());
}

TEST(ModelRecordTest, ConfigTextThatIsNotUtf8IsKeptAsBase64) {
  ModelRecord record = SampleRecord();
  record.config_text = std::string("\xff\xfe\0binary", 9);
  std::string text = SerializeModelRecord(record, absl::UnixEpoch());
  nlohmann::json json = nlohmann::json::parse(text);
  EXPECT_FALSE(json.contains("config_text"));
  EXPECT_TRUE(json.contains("config_text_base64"));
  absl::StatusOr<ModelRecord> parsed = ParseModelRecord(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ExpectSame(*parsed, record);
}

TEST(ModelRecordTest, EachKindOfDamageIsNamed) {
  EXPECT_EQ(ParseModelRecord("{ not json").status().message(), "not valid JSON");
  EXPECT_EQ(ParseError(nlohmann::json::array()), "not a JSON object");

  auto without = [](const char* field) {
    nlohmann::json json = SampleJson();
    json.erase(field);
    return json;
  };
  auto with = [](const char* field, nlohmann::json value) {
    nlohmann::json json = SampleJson();
    json[field] = std::move(value);
    return json;
  };
  EXPECT_EQ(ParseError(without("format")), "field \"format\" is missing");
  EXPECT_EQ(ParseError(with("format", 3)),
            "field \"format\" is 3; this build reads formats 1 to 2");
  EXPECT_EQ(ParseError(with("format", 0)),
            "field \"format\" is 0; this build reads formats 1 to 2");
  EXPECT_EQ(ParseError(without("name")), "field \"name\" is missing");
  EXPECT_EQ(ParseError(with("version", 7)), "field \"version\" is not a string");
  EXPECT_THAT(ParseError(with("name", "../etc")), HasSubstr("field \"name\" "));
  EXPECT_THAT(ParseError(with("name", "../etc")), HasSubstr("invalid model name"));
  EXPECT_EQ(ParseError(with("neff_file", "../../LOCK.neff")),
            "field \"neff_file\" is not a NEFF file name");
  EXPECT_EQ(ParseError(with("neff_file", ".hidden.neff")),
            "field \"neff_file\" is not a NEFF file name");
  EXPECT_EQ(ParseError(with("neff_sha256", "ABC")),
            "field \"neff_sha256\" is not 64 lower-case hex digits");
  EXPECT_EQ(ParseError(with("neff_size", -1)),
            "field \"neff_size\" is missing or not a byte count");
  EXPECT_EQ(ParseError(without("config_text")), "field \"config_text\" is missing");
}

TEST(ModelRecordTest, ABatchedModelIsFormatTwoWithItsVariantsInOrder) {
  const std::string text = SerializeModelRecord(SampleBatchedRecord(), absl::UnixEpoch());
  nlohmann::json json = nlohmann::json::parse(text);
  EXPECT_EQ(json["format"], 2);
  EXPECT_FALSE(json.contains("neff_file"));
  ASSERT_EQ(json["variants"].size(), 2u);
  EXPECT_EQ(json["variants"][0]["batch_size"], 1);
  EXPECT_EQ(json["variants"][1]["batch_size"], 8);
  EXPECT_EQ(json["variants"][1]["neff_file"], "0123456789abcdef-2.neff");
  EXPECT_EQ(json["variants"][1]["neff_size"], 90);
  absl::StatusOr<ModelRecord> parsed = ParseModelRecord(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ExpectSame(*parsed, SampleBatchedRecord());
}

TEST(ModelRecordTest, AOneVariantBatchedModelIsStillFormatTwo) {
  // Batch size 8 is not "the model's one NEFF": only format 2 can say it.
  ModelRecord record = SampleRecord();
  record.neffs.front().batch_size = 8;
  const std::string text = SerializeModelRecord(record, absl::UnixEpoch());
  EXPECT_EQ(nlohmann::json::parse(text)["format"], 2);
  absl::StatusOr<ModelRecord> parsed = ParseModelRecord(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ExpectSame(*parsed, record);
}

TEST(ModelRecordTest, EachKindOfDamageToAVariantIsNamed) {
  auto variant_with = [](const char* field, nlohmann::json value) {
    nlohmann::json json =
        nlohmann::json::parse(SerializeModelRecord(SampleBatchedRecord(), absl::UnixEpoch()));
    json["variants"][1][field] = std::move(value);
    return json;
  };
  EXPECT_EQ(ParseError(variant_with("batch_size", 0)),
            "field \"variants[1].batch_size\" is missing or not a batch size (1 or more)");
  EXPECT_EQ(ParseError(variant_with("batch_size", 1)),
            "field \"variants[1].batch_size\" repeats 1");
  EXPECT_EQ(ParseError(variant_with("batch_size", uint64_t{1} << 32)),
            "field \"variants[1].batch_size\" is missing or not a batch size (1 or more)");
  EXPECT_EQ(ParseError(variant_with("neff_file", "../x.neff")),
            "field \"variants[1].neff_file\" is not a NEFF file name");
  EXPECT_EQ(ParseError(variant_with("neff_sha256", 5)),
            "field \"variants[1].neff_sha256\" is not a string");
  EXPECT_EQ(ParseError(variant_with("neff_size", "big")),
            "field \"variants[1].neff_size\" is missing or not a byte count");
  nlohmann::json none = SampleJson();
  none["format"] = 2;
  EXPECT_EQ(ParseError(none), "field \"variants\" is missing or not a list of variants");
  none["variants"] = nlohmann::json::array({7});
  EXPECT_EQ(ParseError(none), "field \"variants[0]\" is not an object");
}

TEST(ModelRecordTest, BadBase64IsNamed) {
  nlohmann::json json = SampleJson();
  json.erase("config_text");
  json["config_text_base64"] = "!!not base64!!";
  EXPECT_EQ(ParseError(json), "field \"config_text_base64\" is not base64");
}

TEST(ModelRecordTest, NeffFileNames) {
  EXPECT_TRUE(IsNeffFileName("0123456789abcdef-1-2-3.neff"));
  EXPECT_TRUE(IsNeffFileName("x.neff"));
  EXPECT_FALSE(IsNeffFileName(".neff"));
  EXPECT_FALSE(IsNeffFileName(".x.neff"));
  EXPECT_FALSE(IsNeffFileName("a/b.neff"));
  EXPECT_FALSE(IsNeffFileName(std::string("a\0b.neff", 8)));
  EXPECT_FALSE(IsNeffFileName("x.neff.tmp"));
}

TEST(ModelRecordTest, ReadNamesTheFileInParseErrors) {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      absl::StrCat("model_record_test_", ::testing::UnitTest::GetInstance()->random_seed(),
                   ".json");
  std::ofstream(path) << "[]";
  absl::StatusOr<ModelRecord> record = ReadModelRecord(path.string());
  EXPECT_EQ(record.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(record.status().message(),
            absl::StrCat("bad record ", path.string(), ": not a JSON object"));
  std::filesystem::remove(path);
  EXPECT_EQ(ReadModelRecord(path.string()).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace neuronserve
