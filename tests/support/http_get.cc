#include "tests/support/http_get.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace neuronserve::testing {

HttpResult HttpGet(const std::string& url) {
  // The status code goes on a last line of its own, after the body.
  const std::string command =
      absl::StrCat("curl -s --max-time 10 -w '\\n%{http_code}' '", url, "' 2>/dev/null");
  HttpResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::string output;
  char buffer[65536];
  size_t got;
  while ((got = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, got);
  pclose(pipe);
  const size_t last_newline = output.rfind('\n');
  if (last_newline == std::string::npos) return result;
  result.status = std::atoi(output.c_str() + last_newline + 1);
  result.body = output.substr(0, last_newline);
  return result;
}

}  // namespace neuronserve::testing
