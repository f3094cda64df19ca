// tests/prometheus/prometheus_text_parser: what it accepts (the text format as Prometheus reads
// it) and that each malformed input fails with INVALID_ARGUMENT naming its line. The metrics
// tests rely on it to catch renders a Prometheus server would drop.
#include "tests/prometheus/prometheus_text_parser.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<PromFamily> MustParse(std::string_view text) {
  absl::StatusOr<std::vector<PromFamily>> parsed = ParsePrometheusText(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
  return parsed.ok() ? *std::move(parsed) : std::vector<PromFamily>{};
}

// INVALID_ARGUMENT whose message starts with "line <line>: " and contains `what`.
void ExpectRejected(std::string_view text, int line, std::string_view what) {
  SCOPED_TRACE(std::string(text));
  absl::StatusOr<std::vector<PromFamily>> parsed = ParsePrometheusText(text);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(parsed.status().message());
  EXPECT_THAT(message, StartsWith(absl::StrCat("line ", line, ": ")));
  EXPECT_THAT(message, HasSubstr(std::string(what)));
}

TEST(PrometheusTextParserTest, ParsesFamiliesHelpTypesLabelsAndTimestamps) {
  const std::vector<PromFamily> families = MustParse(
      "# A free comment\n"
      "# HELP requests_total Requests \\\\ answered\\nby code.\n"
      "# TYPE requests_total counter\n"
      "requests_total{model=\"a\\\"b\\\\c\\nd\",code=\"OK\"} 3 1700000000000\n"
      "requests_total{ model = \"x\" , code=\"NOT_FOUND\", } 1\n"
      "\n"
      "   \t\n"
      "# TYPE depth gauge\n"
      "depth -2.5\n"
      "depth{q=\"1\"}7\n"
      "untyped_thing{a=\"\"} 0\n");
  ASSERT_EQ(families.size(), 3u);
  EXPECT_EQ(families[0].name, "requests_total");
  EXPECT_EQ(families[0].type, "counter");
  EXPECT_EQ(families[0].help, "Requests \\ answered\nby code.");
  ASSERT_EQ(families[0].samples.size(), 2u);
  EXPECT_EQ(families[0].samples[0].labels,
            (std::map<std::string, std::string>{{"model", "a\"b\\c\nd"}, {"code", "OK"}}));
  EXPECT_EQ(families[0].samples[0].value, 3);
  EXPECT_EQ(families[0].samples[1].labels,
            (std::map<std::string, std::string>{{"model", "x"}, {"code", "NOT_FOUND"}}));
  EXPECT_EQ(families[1].type, "gauge");
  EXPECT_EQ(families[1].help, "");
  EXPECT_EQ(families[1].samples[0].value, -2.5);
  EXPECT_EQ(families[1].samples[1].value, 7);
  EXPECT_EQ(families[2].type, "untyped");
  EXPECT_EQ(families[2].samples[0].labels.at("a"), "");
}

TEST(PrometheusTextParserTest, ParsesSpecialAndExponentValues) {
  const std::vector<PromFamily> families = MustParse(
      "v{k=\"a\"} +Inf\nv{k=\"b\"} -Inf\nv{k=\"c\"} NaN\nv{k=\"d\"} Inf\n"
      "v{k=\"e\"} 5e-05\nv{k=\"f\"} -1.5E+3\nv{k=\"g\"} .5\nv{k=\"h\"} 7.\n");
  ASSERT_EQ(families.size(), 1u);
  const auto value = [&](const std::string& k) {
    return FindSample(families, "v", {{"k", k}}).value();
  };
  EXPECT_EQ(value("a"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(value("b"), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(value("c")));
  EXPECT_EQ(value("d"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(value("e"), 0.00005);
  EXPECT_EQ(value("f"), -1500);
  EXPECT_EQ(value("g"), 0.5);
  EXPECT_EQ(value("h"), 7);
}

TEST(PrometheusTextParserTest, ParsesHistogramAndSummary) {
  const std::vector<PromFamily> families = MustParse(
      "# TYPE h histogram\n"
      "h_bucket{le=\"1\"} 1\n"
      "h_bucket{le=\"+Inf\"} 2\n"
      "h_bucket{le=\"0.5\"} 0\n"  // any order: cumulative once sorted by le
      "h_sum 3.5\n"
      "h_count 2\n"
      "# TYPE s summary\n"
      "s{quantile=\"0.5\"} 1\n"
      "s_sum 4\n"
      "s_count 3\n");
  ASSERT_EQ(families.size(), 2u);
  EXPECT_EQ(families[0].samples.size(), 5u);
  EXPECT_EQ(families[1].type, "summary");
  EXPECT_EQ(FindSample(families, "h_bucket", {{"le", "+Inf"}}).value(), 2);
}

TEST(PrometheusTextParserTest, EmptyInputHasNoFamilies) {
  EXPECT_TRUE(MustParse("").empty());
}

TEST(PrometheusTextParserTest, FindSampleNeedsExactlyTheLabels) {
  const std::vector<PromFamily> families = MustParse("x{a=\"1\",b=\"2\"} 5\n");
  EXPECT_EQ(FindSample(families, "x", {{"a", "1"}, {"b", "2"}}).value(), 5);
  absl::StatusOr<double> subset = FindSample(families, "x", {{"a", "1"}});
  EXPECT_EQ(subset.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(subset.status().message()), HasSubstr("{a=\"1\",b=\"2\"}"));
  EXPECT_EQ(FindSample(families, "y", {}).status().code(), absl::StatusCode::kNotFound);
}

TEST(PrometheusTextParserTest, RejectsMissingFinalNewline) {
  ExpectRejected("a 1\nb 2", 2, "does not end with a newline");
}

TEST(PrometheusTextParserTest, RejectsBadMetricName) {
  ExpectRejected("ok 1\n1abc 2\n", 2, "invalid metric name \"1abc\"");
  ExpectRejected("a-b 2\n", 1, "invalid metric name \"a-b\"");
  ExpectRejected("{a=\"b\"} 2\n", 1, "invalid metric name \"\"");
  ExpectRejected("# HELP 1abc text\n", 1, "invalid metric name \"1abc\" in # HELP");
  ExpectRejected("# TYPE a.b gauge\n", 1, "invalid metric name \"a.b\" in # TYPE");
}

TEST(PrometheusTextParserTest, RejectsBadLabelName) {
  ExpectRejected("x{1a=\"v\"} 1\n", 1, "invalid label name \"1a\"");
  ExpectRejected("x{a:b=\"v\"} 1\n", 1, "invalid label name \"a:b\"");
  ExpectRejected("x{,} 1\n", 1, "invalid label name \"\"");
  ExpectRejected("x{a} 1\n", 1, "expected '=' after label name \"a\"");
  ExpectRejected("x{a=v} 1\n", 1, "does not start with '\"'");
}

TEST(PrometheusTextParserTest, RejectsUnterminatedLabelValue) {
  ExpectRejected("x{a=\"v} 1\n", 1, "unterminated value of label \"a\"");
  ExpectRejected("x{a=\"v\\\"} 1\n", 1, "unterminated value of label \"a\"");
  ExpectRejected("x{a=\"v\" 1\n", 1, "expected ',' or '}' after the value of label \"a\"");
  ExpectRejected("x{a=\"v\",\n", 1, "unterminated label set");
}

TEST(PrometheusTextParserTest, RejectsBadEscapeInLabelValue) {
  ExpectRejected("x{a=\"\\t\"} 1\n", 1, "invalid escape sequence \"\\\\t\"");
  ExpectRejected("x{a=\"\\x41\"} 1\n", 1, "invalid escape sequence");
}

TEST(PrometheusTextParserTest, RejectsInvalidUtf8LabelValue) {
  ExpectRejected("x{a=\"\xff\"} 1\n", 1, "is not valid UTF-8");
  ExpectRejected("x{a=\"\xed\xa0\x80\"} 1\n", 1, "is not valid UTF-8");  // a surrogate
}

TEST(PrometheusTextParserTest, RejectsDuplicateLabelName) {
  ExpectRejected("x{a=\"1\",b=\"2\",a=\"3\"} 1\n", 1, "label \"a\" repeats");
}

TEST(PrometheusTextParserTest, RejectsUnparsableValue) {
  ExpectRejected("x 1\ny 1.2.3\n", 2, "unparsable value \"1.2.3\"");
  for (const char* value : {"abc", "0x1p3", "1_000", "+NaN", "1e", "--1", "e5", ".", "1,5"}) {
    ExpectRejected(absl::StrCat("x ", value, "\n"), 1, absl::StrCat("unparsable value \"", value));
  }
  ExpectRejected("x{a=\"b\"}\n", 1, "has no value");
  ExpectRejected("x\n", 1, "has no value");
}

TEST(PrometheusTextParserTest, RejectsUnparsableTimestamp) {
  ExpectRejected("x 1 1.5\n", 1, "unparsable timestamp \"1.5\"");
  ExpectRejected("x 1 99999999999999999999\n", 1, "unparsable timestamp");
  ExpectRejected("x 1 2 3\n", 1, "unexpected text after the timestamp");
}

TEST(PrometheusTextParserTest, RejectsTypeAfterSamples) {
  ExpectRejected("x 1\n# TYPE x gauge\n", 2, "# TYPE for \"x\" after its samples (from line 1)");
}

TEST(PrometheusTextParserTest, RejectsSecondTypeAndSecondHelp) {
  ExpectRejected("# TYPE x gauge\n# TYPE x gauge\n", 2, "second # TYPE for \"x\"");
  ExpectRejected("# HELP x a\n# HELP x b\n", 2, "second # HELP for \"x\"");
}

TEST(PrometheusTextParserTest, RejectsUnknownTypeAndBadHelpEscape) {
  ExpectRejected("# TYPE x gauges\n", 1, "unknown metric type \"gauges\"");
  ExpectRejected("# TYPE x gauge extra\n", 1, "unexpected text after the type");
  ExpectRejected("# HELP x a \\t b\n", 1, "invalid escape sequence \"\\\\t\" in # HELP");
}

TEST(PrometheusTextParserTest, RejectsHistogramSampleWithoutSuffix) {
  ExpectRejected("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh 1\n", 3,
                 "sample \"h\" of histogram \"h\" is not h_bucket, h_sum or h_count");
}

TEST(PrometheusTextParserTest, RejectsBucketWithoutLe) {
  ExpectRejected("# TYPE h histogram\nh_bucket{a=\"1\"} 1\n", 2, "has no le label");
  ExpectRejected("# TYPE h histogram\nh_bucket{le=\"x\"} 1\n", 2, "has an unparsable le");
}

TEST(PrometheusTextParserTest, RejectsBucketsThatAreNotCumulative) {
  ExpectRejected(
      "# TYPE h histogram\n"
      "h_bucket{le=\"0.1\"} 5\n"
      "h_bucket{le=\"1\"} 3\n"
      "h_bucket{le=\"+Inf\"} 5\n"
      "h_count 5\n",
      3, "is not cumulative: le=\"1\" counts 3 but le=\"0.1\" on line 2 counts 5");
}

TEST(PrometheusTextParserTest, RejectsHistogramWithoutInfBucket) {
  ExpectRejected(
      "# TYPE h histogram\n"
      "h_bucket{m=\"a\",le=\"1\"} 1\n"
      "h_sum{m=\"a\"} 1\n"
      "h_count{m=\"a\"} 1\n",
      2, "histogram \"h\"{m=\"a\"} has no le=\"+Inf\" bucket");
  // Checked when the family ends, not only at the end of the input.
  ExpectRejected("# TYPE h histogram\nh_count 1\n# TYPE g gauge\ng 1\n", 2,
                 "has no le=\"+Inf\" bucket");
}

TEST(PrometheusTextParserTest, RejectsInfBucketDifferentFromCount) {
  ExpectRejected(
      "# TYPE h histogram\n"
      "h_bucket{le=\"+Inf\"} 4\n"
      "h_sum 1\n"
      "h_count 5\n",
      4, "_count is 5 but the le=\"+Inf\" bucket on line 2 is 4");
}

TEST(PrometheusTextParserTest, RejectsNegativeCounter) {
  ExpectRejected("# TYPE c_total counter\nc_total{a=\"b\"} -1\n", 2,
                 "counter \"c_total\"{a=\"b\"} is negative");
}

TEST(PrometheusTextParserTest, RejectsDuplicateSample) {
  ExpectRejected("x{a=\"1\",b=\"2\"} 1\nx{b=\"2\",a=\"1\"} 2\n", 2,
                 "duplicate sample \"x\"{a=\"1\",b=\"2\"} (first on line 1)");
}

TEST(PrometheusTextParserTest, RejectsFamilyThatIsNotContiguous) {
  ExpectRejected("x{a=\"1\"} 1\ny 1\nx{a=\"2\"} 1\n", 3,
                 "the lines of family \"x\" are not contiguous (it already ended on line 1)");
  ExpectRejected("# HELP x h\n# HELP y h\n# TYPE x gauge\n", 3, "are not contiguous");
  ExpectRejected("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\ng 1\nh_sum 1\n", 5,
                 "the lines of family \"h\" are not contiguous");
}

}  // namespace
}  // namespace neuronserve::testing
