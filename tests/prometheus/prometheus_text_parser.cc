// A line-at-a-time parser of the Prometheus text format 0.0.4 that fails on the first line a
// Prometheus server would reject, or whose histogram or counter data would be inconsistent.
#include "tests/prometheus/prometheus_text_parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "base/utf8.h"

namespace neuronserve::testing {
namespace {

using LabelMap = std::map<std::string, std::string>;

absl::string_view AbslView(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

// "text" with control and non-ASCII bytes escaped, for messages.
std::string Quote(std::string_view text) {
  return absl::StrCat("\"", absl::CHexEscape(AbslView(text)), "\"");
}

std::string FormatLabels(const LabelMap& labels) {
  std::string text = "{";
  for (const auto& [name, value] : labels) {
    if (text.size() > 1) text += ",";
    absl::StrAppend(&text, name, "=", Quote(value));
  }
  return text + "}";
}

bool IsSpace(char c) { return c == ' ' || c == '\t'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLabelNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsLabelNameChar(char c) { return IsLabelNameStart(c) || IsDigit(c); }
bool IsMetricNameStart(char c) { return IsLabelNameStart(c) || c == ':'; }
bool IsMetricNameChar(char c) { return IsLabelNameChar(c) || c == ':'; }

// Prometheus rejects a scrape with a byte sequence that is not UTF-8; the validator is the
// exposition's own (base/utf8.h), which has its own tests.
bool IsValidUtf8(std::string_view text) {
  while (!text.empty()) {
    const size_t length = Utf8SequenceLength(text);
    if (length == 0) return false;
    text.remove_prefix(length);
  }
  return true;
}

// A sample value as Prometheus reads it (Go's strconv.ParseFloat without hex floats or
// underscores): decimal with optional exponent, [+-]Inf or Infinity, NaN (any case).
std::optional<double> ParseValue(std::string_view token) {
  std::string_view body = token;
  bool negative = false, signed_value = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    signed_value = true;
    body.remove_prefix(1);
  }
  std::string lower(body);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; });
  if (lower == "inf" || lower == "infinity") {
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  if (lower == "nan") {
    if (signed_value) return std::nullopt;
    return std::numeric_limits<double>::quiet_NaN();
  }
  // digits [. digits] [(e|E) [+-] digits], with at least one mantissa digit.
  size_t i = 0, mantissa_digits = 0;
  while (i < body.size() && IsDigit(body[i])) ++i, ++mantissa_digits;
  if (i < body.size() && body[i] == '.') {
    ++i;
    while (i < body.size() && IsDigit(body[i])) ++i, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return std::nullopt;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
    size_t exponent_digits = 0;
    while (i < body.size() && IsDigit(body[i])) ++i, ++exponent_digits;
    if (exponent_digits == 0) return std::nullopt;
  }
  if (i != body.size()) return std::nullopt;
  double value = 0.0;
  const auto [end, error] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (error != std::errc() || end != body.data() + body.size()) return std::nullopt;
  return negative ? -value : value;
}

// A timestamp: milliseconds since the epoch, [+-]?[0-9]+ within 64 bits.
bool IsValidTimestamp(std::string_view token) {
  if (!token.empty() && token[0] == '+') token.remove_prefix(1);
  const std::string_view digits = !token.empty() && token[0] == '-' ? token.substr(1) : token;
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), IsDigit)) return false;
  int64_t value = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  return error == std::errc() && end == token.data() + token.size();
}

size_t SkipSpaces(std::string_view line, size_t pos) {
  while (pos < line.size() && IsSpace(line[pos])) ++pos;
  return pos;
}

// The token at `pos`: up to the next space, tab or end of line.
std::string_view TokenAt(std::string_view line, size_t pos) {
  size_t end = pos;
  while (end < line.size() && !IsSpace(line[end])) ++end;
  return line.substr(pos, end - pos);
}

bool IsValidMetricName(std::string_view name) {
  if (name.empty() || !IsMetricNameStart(name[0])) return false;
  return std::all_of(name.begin(), name.end(), IsMetricNameChar);
}

bool IsKnownType(std::string_view type) {
  return type == "counter" || type == "gauge" || type == "histogram" || type == "summary" ||
         type == "untyped";
}

// Whether a sample named `name` belongs to `family` by its type's naming rules.
bool BelongsTo(const PromFamily& family, std::string_view name) {
  const std::string& base = family.name;
  if (family.type == "histogram") {
    return name == base + "_bucket" || name == base + "_sum" || name == base + "_count";
  }
  if (family.type == "summary") {
    return name == base || name == base + "_sum" || name == base + "_count";
  }
  return name == base;
}

class Parser {
 public:
  absl::StatusOr<std::vector<PromFamily>> Parse(std::string_view text) {
    if (!text.empty() && text.back() != '\n') {
      line_ = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
      return Error("the input does not end with a newline");
    }
    size_t start = 0;
    while (start < text.size()) {
      const size_t end = text.find('\n', start);
      ++line_;
      if (absl::Status status = ParseLine(text.substr(start, end - start)); !status.ok()) {
        return status;
      }
      start = end + 1;
    }
    if (current_.has_value()) {
      if (absl::Status status = FinishFamily(*current_); !status.ok()) return status;
    }
    return std::move(families_);
  }

 private:
  // What the parser knows about a family beyond what it returns.
  struct FamilyState {
    size_t first_line = 0;
    size_t last_line = 0;
    size_t help_line = 0;  // 0: none yet
    size_t type_line = 0;
    size_t first_sample_line = 0;
    bool closed = false;               // another family's lines came after this one's
    std::vector<size_t> sample_lines;  // parallel to PromFamily::samples
    std::map<std::pair<std::string, LabelMap>, size_t> sample_by_key;  // -> line
  };

  absl::Status Error(const std::string& what) const { return ErrorAt(line_, what); }
  static absl::Status ErrorAt(size_t line, const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("line ", line, ": ", what));
  }

  absl::Status ParseLine(std::string_view line) {
    const size_t start = SkipSpaces(line, 0);
    if (start == line.size()) return absl::OkStatus();  // blank lines are allowed
    line.remove_prefix(start);
    if (line[0] == '#') return ParseComment(line.substr(1));
    return ParseSample(line);
  }

  // After '#': "# HELP name text", "# TYPE name type", or any other comment.
  absl::Status ParseComment(std::string_view rest) {
    if (rest.empty() || !IsSpace(rest[0])) return absl::OkStatus();
    size_t pos = SkipSpaces(rest, 0);
    const std::string_view keyword = TokenAt(rest, pos);
    if (keyword != "HELP" && keyword != "TYPE") return absl::OkStatus();
    pos += keyword.size();
    if (pos == rest.size()) return absl::OkStatus();  // "# HELP" alone is a comment
    const bool is_help = keyword == "HELP";
    pos = SkipSpaces(rest, pos);
    const std::string_view name = TokenAt(rest, pos);
    if (!IsValidMetricName(name)) {
      return Error(absl::StrCat("invalid metric name ", Quote(name), " in # ", AbslView(keyword)));
    }
    pos = SkipSpaces(rest, pos + name.size());
    absl::StatusOr<size_t> index = EnterFamily(std::string(name));
    if (!index.ok()) return index.status();
    PromFamily& family = families_[*index];
    FamilyState& state = states_[*index];
    if (is_help) {
      if (state.help_line != 0) {
        return Error(absl::StrCat("second # HELP for ", Quote(name), " (the first is on line ",
                                  state.help_line, ")"));
      }
      absl::StatusOr<std::string> help = UnescapeHelp(rest.substr(pos));
      if (!help.ok()) return help.status();
      family.help = *std::move(help);
      state.help_line = line_;
      return absl::OkStatus();
    }
    const std::string_view type = TokenAt(rest, pos);
    if (!IsKnownType(type)) {
      return Error(absl::StrCat("unknown metric type ", Quote(type), " for ", Quote(name),
                                " (counter, gauge, histogram, summary or untyped)"));
    }
    if (SkipSpaces(rest, pos + type.size()) != rest.size()) {
      return Error(absl::StrCat("unexpected text after the type in # TYPE ", Quote(name)));
    }
    if (state.type_line != 0) {
      return Error(absl::StrCat("second # TYPE for ", Quote(name), " (the first is on line ",
                                state.type_line, ")"));
    }
    if (!family.samples.empty()) {
      return Error(absl::StrCat("# TYPE for ", Quote(name), " after its samples (from line ",
                                state.first_sample_line, ")"));
    }
    family.type = std::string(type);
    state.type_line = line_;
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> UnescapeHelp(std::string_view text) const {
    std::string help;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '\\') {
        help.push_back(text[i]);
        continue;
      }
      if (i + 1 == text.size()) return Error("# HELP text ends in a lone backslash");
      const char escaped = text[++i];
      if (escaped == '\\') {
        help.push_back('\\');
      } else if (escaped == 'n') {
        help.push_back('\n');
      } else {
        return Error(absl::StrCat("invalid escape sequence ",
                                  Quote(std::string_view(&text[i - 1], 2)),
                                  " in # HELP text (only \\\\ and \\n)"));
      }
    }
    if (!IsValidUtf8(help)) return Error("# HELP text is not valid UTF-8");
    return help;
  }

  // `name{label="value",...} value [timestamp]`
  absl::Status ParseSample(std::string_view line) {
    size_t pos = 0;
    while (pos < line.size() && IsMetricNameChar(line[pos])) ++pos;
    std::string name(line.substr(0, pos));
    if (pos < line.size() && !IsSpace(line[pos]) && line[pos] != '{') {
      size_t end = pos;
      while (end < line.size() && !IsSpace(line[end]) && line[end] != '{') ++end;
      return Error(absl::StrCat("invalid metric name ", Quote(line.substr(0, end))));
    }
    if (!IsValidMetricName(name)) {
      return Error(absl::StrCat("invalid metric name ", Quote(name)));
    }
    LabelMap labels;
    pos = SkipSpaces(line, pos);
    if (pos < line.size() && line[pos] == '{') {
      if (absl::Status status = ParseLabels(line, &pos, name, &labels); !status.ok()) {
        return status;
      }
      pos = SkipSpaces(line, pos);  // a value may follow '}' directly, as Prometheus reads it
    }
    if (pos == line.size()) return Error(absl::StrCat("sample ", Quote(name), " has no value"));
    const std::string_view value_token = TokenAt(line, pos);
    const std::optional<double> value = ParseValue(value_token);
    if (!value.has_value()) {
      return Error(absl::StrCat("unparsable value ", Quote(value_token), " for ", Quote(name)));
    }
    pos = SkipSpaces(line, pos + value_token.size());
    if (pos < line.size()) {
      const std::string_view timestamp = TokenAt(line, pos);
      if (!IsValidTimestamp(timestamp)) {
        return Error(absl::StrCat("unparsable timestamp ", Quote(timestamp), " for ", Quote(name),
                                  " (milliseconds, an integer)"));
      }
      if (SkipSpaces(line, pos + timestamp.size()) != line.size()) {
        return Error(absl::StrCat("unexpected text after the timestamp of ", Quote(name)));
      }
    }
    return AddSample(std::move(name), std::move(labels), *value);
  }

  // From the '{' at *pos to just past the matching '}'.
  absl::Status ParseLabels(std::string_view line, size_t* pos, const std::string& metric,
                           LabelMap* labels) const {
    size_t i = *pos + 1;
    while (true) {
      i = SkipSpaces(line, i);
      if (i == line.size()) return Error(absl::StrCat("unterminated label set of ", Quote(metric)));
      if (line[i] == '}') {
        *pos = i + 1;
        return absl::OkStatus();
      }
      size_t end = i;
      while (end < line.size() && !IsSpace(line[end]) && line[end] != '=' && line[end] != ',' &&
             line[end] != '}' && line[end] != '"') {
        ++end;
      }
      const std::string label(line.substr(i, end - i));
      if (label.empty() || !IsLabelNameStart(label[0]) ||
          !std::all_of(label.begin(), label.end(), IsLabelNameChar)) {
        return Error(absl::StrCat("invalid label name ", Quote(label), " in ", Quote(metric)));
      }
      i = SkipSpaces(line, end);
      if (i == line.size() || line[i] != '=') {
        return Error(
            absl::StrCat("expected '=' after label name ", Quote(label), " in ", Quote(metric)));
      }
      i = SkipSpaces(line, i + 1);
      if (i == line.size() || line[i] != '"') {
        return Error(absl::StrCat("the value of label ", Quote(label), " in ", Quote(metric),
                                  " does not start with '\"'"));
      }
      ++i;
      std::string value;
      bool terminated = false;
      while (i < line.size()) {
        const char c = line[i];
        if (c == '"') {
          terminated = true;
          ++i;
          break;
        }
        if (c != '\\') {
          value.push_back(c);
          ++i;
          continue;
        }
        if (i + 1 == line.size()) break;  // unterminated
        const char escaped = line[i + 1];
        if (escaped == '\\' || escaped == '"') {
          value.push_back(escaped);
        } else if (escaped == 'n') {
          value.push_back('\n');
        } else {
          return Error(absl::StrCat("invalid escape sequence ", Quote(line.substr(i, 2)),
                                    " in the value of label ", Quote(label), " in ", Quote(metric),
                                    " (only \\\\, \\\" and \\n)"));
        }
        i += 2;
      }
      if (!terminated) {
        return Error(
            absl::StrCat("unterminated value of label ", Quote(label), " in ", Quote(metric)));
      }
      if (!IsValidUtf8(value)) {
        return Error(absl::StrCat("the value of label ", Quote(label), " in ", Quote(metric),
                                  " is not valid UTF-8"));
      }
      if (!labels->emplace(label, std::move(value)).second) {
        return Error(absl::StrCat("label ", Quote(label), " repeats in ", Quote(metric)));
      }
      i = SkipSpaces(line, i);
      if (i < line.size() && line[i] == ',') {
        ++i;
      } else if (i == line.size() || line[i] != '}') {
        return Error(absl::StrCat("expected ',' or '}' after the value of label ", Quote(label),
                                  " in ", Quote(metric)));
      }
    }
  }

  // The family a sample named `name` belongs to: the current family if the name fits it, a
  // family of that exact name, a histogram or summary whose _bucket/_sum/_count it is, or a
  // new untyped family.
  std::string FamilyNameOf(const std::string& name) const {
    if (current_.has_value() && BelongsTo(families_[*current_], name)) {
      return families_[*current_].name;
    }
    if (by_name_.count(name) > 0) return name;
    for (std::string_view suffix : {"_bucket", "_sum", "_count"}) {
      if (!std::string_view(name).ends_with(suffix)) continue;
      const auto base = by_name_.find(name.substr(0, name.size() - suffix.size()));
      if (base != by_name_.end() && BelongsTo(families_[base->second], name)) {
        return base->first;
      }
    }
    return name;
  }

  // Makes `name` the current family (creating it if new), finishing the previous one.
  absl::StatusOr<size_t> EnterFamily(const std::string& name) {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) {
      it = by_name_.emplace(name, families_.size()).first;
      families_.push_back(PromFamily{name, "untyped", "", {}});
      states_.push_back(FamilyState{});
      states_.back().first_line = line_;
    }
    const size_t index = it->second;
    if (current_.has_value() && *current_ != index) {
      if (absl::Status status = FinishFamily(*current_); !status.ok()) return status;
      states_[*current_].closed = true;
    }
    if (states_[index].closed) {
      return Error(absl::StrCat("the lines of family ", Quote(name),
                                " are not contiguous (it already ended on line ",
                                states_[index].last_line, ")"));
    }
    current_ = index;
    states_[index].last_line = line_;
    return index;
  }

  absl::Status AddSample(std::string name, LabelMap labels, double value) {
    absl::StatusOr<size_t> index = EnterFamily(FamilyNameOf(name));
    if (!index.ok()) return index.status();
    PromFamily& family = families_[*index];
    FamilyState& state = states_[*index];
    const std::string where = absl::StrCat(Quote(name), FormatLabels(labels));
    if (family.type == "histogram" || family.type == "summary") {
      if (!BelongsTo(family, name)) {
        return Error(absl::StrCat("sample ", Quote(name), " of ", family.type, " ",
                                  Quote(family.name), " is not ", family.name,
                                  family.type == "histogram" ? "_bucket, " : " (quantile), ",
                                  family.name, "_sum or ", family.name, "_count"));
      }
    }
    if (family.type == "histogram") {
      const bool is_bucket = name == family.name + "_bucket";
      const auto le = labels.find("le");
      if (is_bucket && le == labels.end()) {
        return Error(absl::StrCat("histogram bucket ", where, " has no le label"));
      }
      if (!is_bucket && le != labels.end()) {
        return Error(absl::StrCat("histogram sample ", where, " has an le label"));
      }
      if (is_bucket && !ParseValue(le->second).has_value()) {
        return Error(absl::StrCat("histogram bucket ", where, " has an unparsable le"));
      }
      if (name != family.name + "_sum" && value < 0) {
        return Error(absl::StrCat("histogram count ", where, " is negative"));
      }
    }
    if (family.type == "counter" && value < 0) {
      return Error(absl::StrCat("counter ", where, " is negative"));
    }
    auto [existing, inserted] = state.sample_by_key.emplace(std::make_pair(name, labels), line_);
    if (!inserted) {
      return Error(
          absl::StrCat("duplicate sample ", where, " (first on line ", existing->second, ")"));
    }
    if (family.samples.empty()) state.first_sample_line = line_;
    family.samples.push_back(PromSample{std::move(name), std::move(labels), value});
    state.sample_lines.push_back(line_);
    return absl::OkStatus();
  }

  // Histogram checks once all of a family's samples are in: per label set, buckets cumulative
  // through le="+Inf", and _count equal to the +Inf bucket.
  absl::Status FinishFamily(size_t index) const {
    const PromFamily& family = families_[index];
    const FamilyState& state = states_[index];
    if (family.type != "histogram") return absl::OkStatus();
    struct Bucket {
      double le;
      size_t sample;
    };
    struct Series {
      std::vector<Bucket> buckets;
      std::optional<size_t> count_sample;
      size_t first_sample = 0;
    };
    std::map<LabelMap, Series> series;
    for (size_t i = 0; i < family.samples.size(); ++i) {
      const PromSample& sample = family.samples[i];
      LabelMap labels = sample.labels;
      const auto le = labels.find("le");
      std::optional<double> bound;
      if (le != labels.end()) {
        bound = ParseValue(le->second);
        labels.erase(le);
      }
      auto [it, inserted] = series.try_emplace(std::move(labels));
      if (inserted) it->second.first_sample = i;
      if (sample.name == family.name + "_bucket") {
        it->second.buckets.push_back(Bucket{*bound, i});
      } else if (sample.name == family.name + "_count") {
        it->second.count_sample = i;
      }
    }
    for (auto& [labels, one] : series) {
      const std::string where = absl::StrCat(Quote(family.name), FormatLabels(labels));
      std::stable_sort(one.buckets.begin(), one.buckets.end(),
                       [](const Bucket& a, const Bucket& b) { return a.le < b.le; });
      for (size_t k = 1; k < one.buckets.size(); ++k) {
        const PromSample& lower = family.samples[one.buckets[k - 1].sample];
        const PromSample& upper = family.samples[one.buckets[k].sample];
        const size_t lower_line = state.sample_lines[one.buckets[k - 1].sample];
        const size_t upper_line = state.sample_lines[one.buckets[k].sample];
        if (one.buckets[k - 1].le == one.buckets[k].le) {
          return ErrorAt(upper_line, absl::StrCat("histogram ", where, " has two buckets le=",
                                                  Quote(upper.labels.at("le")),
                                                  " (the other on line ", lower_line, ")"));
        }
        if (upper.value < lower.value) {
          return ErrorAt(upper_line,
                         absl::StrCat("histogram ", where, " is not cumulative: le=",
                                      Quote(upper.labels.at("le")), " counts ", upper.value,
                                      " but le=", Quote(lower.labels.at("le")), " on line ",
                                      lower_line, " counts ", lower.value));
        }
      }
      if (one.buckets.empty() || one.buckets.back().le != std::numeric_limits<double>::infinity()) {
        return ErrorAt(state.sample_lines[one.first_sample],
                       absl::StrCat("histogram ", where, " has no le=\"+Inf\" bucket"));
      }
      const size_t inf_sample = one.buckets.back().sample;
      if (one.count_sample.has_value() &&
          family.samples[*one.count_sample].value != family.samples[inf_sample].value) {
        return ErrorAt(
            state.sample_lines[*one.count_sample],
            absl::StrCat("histogram ", where, ": _count is ",
                         family.samples[*one.count_sample].value,
                         " but the le=\"+Inf\" bucket on line ", state.sample_lines[inf_sample],
                         " is ", family.samples[inf_sample].value));
      }
    }
    return absl::OkStatus();
  }

  size_t line_ = 0;  // of the line being parsed, from 1
  std::vector<PromFamily> families_;
  std::vector<FamilyState> states_;  // parallel to families_
  std::map<std::string, size_t> by_name_;
  std::optional<size_t> current_;  // the family of the last HELP, TYPE or sample line
};

}  // namespace

absl::StatusOr<std::vector<PromFamily>> ParsePrometheusText(std::string_view text) {
  return Parser().Parse(text);
}

absl::StatusOr<double> FindSample(const std::vector<PromFamily>& families, const std::string& name,
                                  const std::map<std::string, std::string>& labels) {
  std::vector<std::string> others;
  for (const PromFamily& family : families) {
    for (const PromSample& sample : family.samples) {
      if (sample.name != name) continue;
      if (sample.labels == labels) return sample.value;
      if (others.size() < 8) others.push_back(FormatLabels(sample.labels));
    }
  }
  std::string message = absl::StrCat("no sample ", Quote(name), FormatLabels(labels));
  if (!others.empty()) {
    absl::StrAppend(&message, "; samples of that name have ", absl::StrJoin(others, ", "));
  }
  return absl::NotFoundError(message);
}

}  // namespace neuronserve::testing
