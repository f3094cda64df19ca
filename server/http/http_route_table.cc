#include "server/http/http_route_table.h"

#include <algorithm>

namespace neuronserve {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "/a/b/{c}" -> {"a", "b", "{c}"}; "/" -> {""}. The leading '/' is dropped; a path without one
// gives no segments at all (it matches nothing).
std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> segments;
  if (path.empty() || path.front() != '/') return segments;
  path.remove_prefix(1);
  while (true) {
    const size_t slash = path.find('/');
    segments.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return segments;
}

bool IsParameter(std::string_view segment) {
  return segment.size() >= 2 && segment.front() == '{' && segment.back() == '}';
}

// Whether `pattern` matches the decoded `segments`; when it does, `literal_at` says for each
// segment whether the pattern has a literal there (to rank overlapping patterns).
bool Matches(const std::vector<std::string_view>& pattern, const std::vector<std::string>& segments,
             std::vector<bool>& literal_at) {
  if (pattern.size() != segments.size()) return false;
  literal_at.assign(pattern.size(), false);
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (IsParameter(pattern[i])) {
      if (segments[i].empty()) return false;
    } else {
      if (pattern[i] != segments[i]) return false;
      literal_at[i] = true;
    }
  }
  return true;
}

bool MethodServes(std::string_view route_method, std::string_view method) {
  return route_method == method || (method == "HEAD" && route_method == "GET");
}

}  // namespace

bool PercentDecodeSegment(std::string_view segment, std::string& out) {
  out.clear();
  out.reserve(segment.size());
  for (size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] != '%') {
      out += segment[i];
      continue;
    }
    if (i + 2 >= segment.size()) return false;
    const int high = HexValue(segment[i + 1]);
    const int low = HexValue(segment[i + 2]);
    if (high < 0 || low < 0) return false;
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return true;
}

void HttpRouteTable::Add(Route route) {
  for (Route& existing : routes_) {
    if (existing.method == route.method && existing.pattern == route.pattern) {
      existing = std::move(route);
      return;
    }
  }
  routes_.push_back(std::move(route));
}

HttpRouteTable::Match HttpRouteTable::Find(std::string_view method, std::string_view raw_path,
                                           std::vector<std::string>& decoded_storage) const {
  Match match;
  const std::vector<std::string_view> raw_segments = SplitPath(raw_path);
  if (raw_segments.empty()) return match;
  // Split first, then decode each segment: "a%2Fb" stays one segment "a/b".
  decoded_storage.clear();
  decoded_storage.reserve(raw_segments.size());
  for (std::string_view raw : raw_segments) {
    decoded_storage.emplace_back();
    if (!PercentDecodeSegment(raw, decoded_storage.back())) {
      decoded_storage.clear();
      return match;
    }
  }

  const Route* best = nullptr;
  std::vector<bool> best_literals;
  std::vector<bool> literals;
  std::vector<std::string> methods;  // of every route whose pattern matches, for Allow
  for (const Route& route : routes_) {
    if (!Matches(SplitPath(route.pattern), decoded_storage, literals)) continue;
    methods.push_back(route.method);
    if (!MethodServes(route.method, method)) continue;
    // The literal at the first segment where two matching patterns differ wins: comparing the
    // literal flags lexicographically (true > false) says exactly that. A route for the method
    // itself beats GET answering a HEAD.
    if (best == nullptr || literals > best_literals ||
        (literals == best_literals && route.method == method && best->method != method)) {
      best = &route;
      best_literals = literals;
    }
  }
  if (best == nullptr) {
    if (methods.empty()) return match;
    if (std::find(methods.begin(), methods.end(), "GET") != methods.end()) {
      methods.push_back("HEAD");
    }
    std::sort(methods.begin(), methods.end());
    methods.erase(std::unique(methods.begin(), methods.end()), methods.end());
    for (const std::string& allowed : methods) {
      if (!match.allowed.empty()) match.allowed += ", ";
      match.allowed += allowed;
    }
    return match;
  }
  match.route = best;
  const std::vector<std::string_view> pattern = SplitPath(best->pattern);
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (IsParameter(pattern[i])) {
      match.params.emplace_back(pattern[i].substr(1, pattern[i].size() - 2), decoded_storage[i]);
    }
  }
  return match;
}

}  // namespace neuronserve
