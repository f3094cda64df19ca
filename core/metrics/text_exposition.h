// The pieces of the Prometheus text exposition format 0.0.4 that MetricsRegistry::RenderText
// writes: name checks, escaping, number formatting and sample lines.
//
// Kept apart from the registry so that each rule (what a name may contain, how a value is
// spelled) lives in one place and can be tested on its own.
#ifndef NEURON_SERVE_CORE_METRICS_TEXT_EXPOSITION_H_
#define NEURON_SERVE_CORE_METRICS_TEXT_EXPOSITION_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/metrics/histogram.h"

namespace neuronserve::metrics {

// [a-zA-Z_:][a-zA-Z0-9_:]*
bool IsValidMetricName(std::string_view name);
// [a-zA-Z_][a-zA-Z0-9_]* (the reserved "__" prefix is the registry's check).
bool IsValidLabelName(std::string_view name);

// Integral values below 2^53 in magnitude as integers ("42", "-3", "0"), other finite values
// in the shortest form that reads back to the same double ("0.005", "1e-05", "1e+300"),
// "+Inf", "-Inf" and "NaN".
void AppendValue(double value, std::string* out);
std::string FormatValue(double value);

// HELP text: \ as \\ and newline as \n. Label values: also " as \". Both replace bytes that
// are not valid UTF-8 with U+FFFD, since Prometheus rejects a whole scrape over one of them.
void AppendEscapedHelp(std::string_view help, std::string* out);
void AppendEscapedLabelValue(std::string_view value, std::string* out);

// One sample line: `name{n1="v1",...} value\n`, without braces when there are no labels.
void AppendSample(std::string_view name, const std::vector<std::string>& label_names,
                  const std::vector<std::string>& label_values, double value, std::string* out);

// The samples of one counter or gauge.
void AppendSamples(std::string_view name, const std::vector<std::string>& label_names,
                   const std::vector<std::string>& label_values, double value, std::string* out);
// The samples of one histogram: name_bucket{...,le="b"} for each bound then le="+Inf",
// name_sum and name_count.
void AppendSamples(std::string_view name, const std::vector<std::string>& label_names,
                   const std::vector<std::string>& label_values,
                   const Histogram::Snapshot& snapshot, std::string* out);

}  // namespace neuronserve::metrics

#endif  // NEURON_SERVE_CORE_METRICS_TEXT_EXPOSITION_H_
