#include "tests/support/http_get.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing {
namespace {

// The last response's headers from curl -D (a 100 Continue comes before the real answer).
std::vector<std::pair<std::string, std::string>> ParseHeaders(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> headers;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (absl::StartsWith(line, "HTTP/")) {
      headers.clear();
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    headers.emplace_back(line.substr(0, colon),
                         std::string(absl::StripAsciiWhitespace(line.substr(colon + 1))));
  }
  return headers;
}

}  // namespace

std::string HttpResult::ErrorField() const {
  const nlohmann::json json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("error") || !json["error"].is_string()) {
    return "<no error: " + body.substr(0, 300) + ">";
  }
  return json["error"].get<std::string>();
}

std::string HttpResult::Header(const std::string& name) const {
  for (const auto& [key, value] : headers) {
    if (absl::EqualsIgnoreCase(key, name)) return value;
  }
  return "";
}

HttpResult HttpFetch(const HttpRequest& request) {
  TempDir scratch;
  const std::string header_file = scratch.Join("headers");
  const std::string body_file = scratch.Join("body");
  std::vector<std::string> argv = {"/usr/bin/curl",
                                   "-s",
                                   "-S",
                                   "--max-time",
                                   std::to_string(request.max_seconds),
                                   "-D",
                                   header_file,
                                   "-o",
                                   body_file,
                                   "-w",
                                   "%{http_code}"};
  if (request.verbose) argv.push_back("-v");
  if (request.method == "HEAD") {
    argv.push_back("--head");
  } else if (request.method != "GET" || !request.body_file.empty()) {
    argv.insert(argv.end(), {"-X", request.method});
  }
  for (const std::string& header : request.headers) argv.insert(argv.end(), {"-H", header});
  if (!request.body_file.empty()) {
    argv.insert(argv.end(), {"--data-binary", absl::StrCat("@", request.body_file)});
    argv.insert(argv.end(), {"-H", "Content-Type: application/octet-stream"});
    if (request.chunked) argv.insert(argv.end(), {"-H", "Transfer-Encoding: chunked"});
  }
  if (!request.cacert.empty()) argv.insert(argv.end(), {"--cacert", request.cacert});
  argv.push_back(request.url);
  const ProcessResult run = RunProcess(argv);
  HttpResult result;
  result.status = std::atoi(run.out.c_str());
  result.error = run.err;
  result.headers = ParseHeaders(ReadFileContents(header_file));
  if (request.method != "HEAD") result.body = ReadFileContents(body_file);
  return result;
}

HttpResult HttpGet(const std::string& url) { return HttpFetch({.url = url}); }

}  // namespace neuronserve::testing
