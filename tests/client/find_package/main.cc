// The smallest program against the installed client library: connects to the target given as
// argv[1] (nothing listens there), asks for health and expects the library's UNAVAILABLE naming
// the target. Exit 0 when it behaved so.
#include <cstdio>
#include <string>

#include "client/lib/client.h"

int main(int argc, char** argv) {
  const std::string target = argc > 1 ? argv[1] : "127.0.0.1:1";
  neuronserve::client::ConnectOptions options;
  options.target = target;
  options.timeout = absl::Seconds(5);
  auto client = neuronserve::client::Client::Connect(options);
  if (!client.ok()) {
    std::fprintf(stderr, "Connect: %s\n", std::string(client.status().message()).c_str());
    return 1;
  }
  auto health = (*client)->CheckHealth("");
  const std::string message(health.status().message());
  std::printf("CheckHealth(\"\") against %s: %s\n", target.c_str(),
              health.ok() ? "answered" : message.c_str());
  const bool as_expected = !health.ok() && absl::IsUnavailable(health.status()) &&
                           message.find(target) != std::string::npos;
  return as_expected ? 0 : 1;
}
