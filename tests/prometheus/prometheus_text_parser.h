// A strict parser of the Prometheus text exposition format 0.0.4, for tests.
//
// The daemon's /metrics output is only useful if a Prometheus server accepts all of it, and
// one bad line makes the server drop the whole scrape. Tests therefore parse every render
// with this parser, which rejects what Prometheus rejects (names, escapes, values, TYPE
// placement, duplicates) and also what would make the data wrong rather than unreadable
// (histogram buckets that are not cumulative or disagree with _count, negative counters).
#ifndef NEURON_SERVE_TESTS_SUPPORT_PROMETHEUS_TEXT_PARSER_H_
#define NEURON_SERVE_TESTS_SUPPORT_PROMETHEUS_TEXT_PARSER_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace neuronserve::testing {

struct PromSample {
  std::string name;                           // as written: x_bucket, x_sum, x_count...
  std::map<std::string, std::string> labels;  // unescaped; le included for buckets
  double value = 0.0;
};

struct PromFamily {
  std::string name;
  std::string type;  // counter, gauge, histogram, summary or untyped (no # TYPE line)
  std::string help;  // unescaped
  std::vector<PromSample> samples;  // in input order
};

// Families in input order. INVALID_ARGUMENT naming the line ("line 7: ...") and what was wrong:
// a bad metric or label name, an unterminated or badly escaped label value, a repeated label
// name in a sample, an unparsable value or timestamp, a second HELP or TYPE for a family or a
// TYPE after its samples, an unknown type, a sample of a histogram family that is not
// _bucket/_sum/_count, a bucket without le, buckets that are not cumulative or lack
// le="+Inf", a +Inf bucket that differs from _count, a negative counter, the same sample
// (name and labels) twice, lines of one family that are not contiguous, no final newline.
absl::StatusOr<std::vector<PromFamily>> ParsePrometheusText(std::string_view text);

// The value of the sample with this name and exactly these labels; NOT_FOUND otherwise.
absl::StatusOr<double> FindSample(const std::vector<PromFamily>& families,
                                  const std::string& name,
                                  const std::map<std::string, std::string>& labels);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_PROMETHEUS_TEXT_PARSER_H_
