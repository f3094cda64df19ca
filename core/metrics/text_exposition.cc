// Prometheus text format 0.0.4: names, escaping, numbers and sample lines.
#include "core/metrics/text_exposition.h"

#include <charconv>
#include <cmath>
#include <cstdint>

#include "base/utf8.h"

namespace neuronserve::metrics {
namespace {

bool IsLetterOrUnderscore(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

void AppendEscaped(std::string_view text, bool escape_quote, std::string* out) {
  while (!text.empty()) {
    const char c = text[0];
    if (c == '\\') {
      out->append("\\\\");
    } else if (c == '\n') {
      out->append("\\n");
    } else if (c == '"' && escape_quote) {
      out->append("\\\"");
    } else {
      const size_t length = Utf8SequenceLength(text);
      if (length == 0) {
        out->append("\xEF\xBF\xBD");  // U+FFFD for one invalid byte
        text.remove_prefix(1);
      } else {
        out->append(text.substr(0, length));
        text.remove_prefix(length);
      }
      continue;
    }
    text.remove_prefix(1);
  }
}

void AppendLabels(const std::vector<std::string>& label_names,
                  const std::vector<std::string>& label_values, std::string_view extra_name,
                  std::string_view extra_value, std::string* out) {
  if (label_names.empty() && extra_name.empty()) return;
  out->push_back('{');
  bool first = true;
  for (size_t i = 0; i < label_names.size() && i < label_values.size(); ++i) {
    if (!first) out->push_back(',');
    first = false;
    out->append(label_names[i]);
    out->append("=\"");
    AppendEscapedLabelValue(label_values[i], out);
    out->push_back('"');
  }
  if (!extra_name.empty()) {
    if (!first) out->push_back(',');
    out->append(extra_name);
    out->append("=\"");
    out->append(extra_value);  // the caller's own text, already exposition-safe
    out->push_back('"');
  }
  out->push_back('}');
}

void AppendSampleLine(std::string_view name, std::string_view suffix,
                      const std::vector<std::string>& label_names,
                      const std::vector<std::string>& label_values, std::string_view extra_name,
                      std::string_view extra_value, double value, std::string* out) {
  out->append(name);
  out->append(suffix);
  AppendLabels(label_names, label_values, extra_name, extra_value, out);
  out->push_back(' ');
  AppendValue(value, out);
  out->push_back('\n');
}

}  // namespace

bool IsValidMetricName(std::string_view name) {
  if (name.empty() || !(IsLetterOrUnderscore(name[0]) || name[0] == ':')) return false;
  for (char c : name) {
    if (!(IsLetterOrUnderscore(c) || IsDigit(c) || c == ':')) return false;
  }
  return true;
}

bool IsValidLabelName(std::string_view name) {
  if (name.empty() || !IsLetterOrUnderscore(name[0])) return false;
  for (char c : name) {
    if (!(IsLetterOrUnderscore(c) || IsDigit(c))) return false;
  }
  return true;
}

void AppendValue(double value, std::string* out) {
  if (std::isnan(value)) {
    out->append("NaN");
    return;
  }
  if (std::isinf(value)) {
    out->append(value > 0 ? "+Inf" : "-Inf");
    return;
  }
  constexpr double kTwoTo53 = 9007199254740992.0;
  char buffer[64];
  std::to_chars_result result;
  if (value == std::trunc(value) && std::fabs(value) < kTwoTo53) {
    result = std::to_chars(buffer, buffer + sizeof(buffer), static_cast<int64_t>(value));
  } else {
    result = std::to_chars(buffer, buffer + sizeof(buffer), value);  // shortest round trip
  }
  out->append(buffer, result.ptr);
}

std::string FormatValue(double value) {
  std::string text;
  AppendValue(value, &text);
  return text;
}

void AppendEscapedHelp(std::string_view help, std::string* out) {
  AppendEscaped(help, /*escape_quote=*/false, out);
}

void AppendEscapedLabelValue(std::string_view value, std::string* out) {
  AppendEscaped(value, /*escape_quote=*/true, out);
}

void AppendSample(std::string_view name, const std::vector<std::string>& label_names,
                  const std::vector<std::string>& label_values, double value, std::string* out) {
  AppendSampleLine(name, "", label_names, label_values, "", "", value, out);
}

void AppendSamples(std::string_view name, const std::vector<std::string>& label_names,
                   const std::vector<std::string>& label_values, double value, std::string* out) {
  AppendSample(name, label_names, label_values, value, out);
}

void AppendSamples(std::string_view name, const std::vector<std::string>& label_names,
                   const std::vector<std::string>& label_values,
                   const Histogram::Snapshot& snapshot, std::string* out) {
  std::string le;
  for (size_t i = 0; i < snapshot.cumulative_counts.size(); ++i) {
    le.clear();
    if (i < snapshot.upper_bounds.size()) {
      AppendValue(snapshot.upper_bounds[i], &le);
    } else {
      le = "+Inf";
    }
    AppendSampleLine(name, "_bucket", label_names, label_values, "le", le,
                     static_cast<double>(snapshot.cumulative_counts[i]), out);
  }
  AppendSampleLine(name, "_sum", label_names, label_values, "", "", snapshot.sum, out);
  AppendSampleLine(name, "_count", label_names, label_values, "", "",
                   static_cast<double>(snapshot.count), out);
}

}  // namespace neuronserve::metrics
