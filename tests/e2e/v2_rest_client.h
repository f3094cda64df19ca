// What the V2RestE2ETest files share: curl against the daemon's REST endpoint (Rest), an
// answer split into its JSON and the binary part after it (Triton's binary extension), the
// MLP's request in JSON, and a daemon started with --http-listen (START_HTTP_DAEMON).
//
// Thread safety: a Rest is used by one test thread. Ownership: a Rest owns the temp folder its
// request bodies are written to.
#ifndef NEURON_SERVE_TESTS_E2E_V2_REST_CLIENT_H_
#define NEURON_SERVE_TESTS_E2E_V2_REST_CLIENT_H_

#include <cmath>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/http_get.h"
#include "tests/support/temp_dir.h"
#include "tests/support/zlib_compress.h"

namespace neuronserve::testing::v2_rest_e2e_test {

using Json = nlohmann::json;
using ::neuronserve::testing::ZlibCompress;
using ::testing::HasSubstr;
using ::testing::Not;

inline constexpr char kHeaderLength[] = "Inference-Header-Content-Length";
inline constexpr int kRestMlpIn = 8;
inline constexpr int kRestMlpOut = 4;

// curl against the daemon's HTTP endpoint; bodies go through files of its own folder.
class Rest {
 public:
  explicit Rest(std::string address) : base_("http://" + std::move(address)) {}

  HttpResult Get(const std::string& path, std::vector<std::string> headers = {}) const {
    return HttpFetch({.url = base_ + path, .headers = std::move(headers)});
  }
  HttpResult Post(const std::string& path, const std::string& body,
                  std::vector<std::string> headers = {}) {
    HttpRequest request{.url = base_ + path, .method = "POST", .headers = std::move(headers)};
    if (!body.empty()) {
      request.body_file = dir_.Write(absl::StrCat("body", ++bodies_), body);
    } else {
      request.headers.push_back("Content-Length: 0");
    }
    return HttpFetch(request);
  }
  // A binary-extension request: the JSON, then `binary` after it.
  HttpResult PostBinary(const std::string& path, const std::string& json, const std::string& binary,
                        std::vector<std::string> headers = {}) {
    headers.push_back(absl::StrCat(kHeaderLength, ": ", json.size()));
    return Post(path, json + binary, std::move(headers));
  }

 private:
  std::string base_;
  TempDir dir_;
  int bodies_ = 0;
};

// The JSON part of an answer (all of it, or up to Inference-Header-Content-Length) and the
// binary part after it.
struct Answer {
  Json json;
  std::string binary;
};
inline Answer Split(const HttpResult& result) {
  Answer answer;
  std::string json = result.body;
  if (const std::string length = result.Header(kHeaderLength); !length.empty()) {
    const size_t n = std::stoul(length);
    answer.binary = result.body.substr(n);
    json = result.body.substr(0, n);
  }
  answer.json = Json::parse(json, nullptr, false);
  return answer;
}

inline std::string MlpJson(const std::vector<float>& x, bool nested, const std::string& id) {
  Json data = Json::array();
  for (float v : x) data.push_back(v);
  if (nested) data = Json::array({data});
  return Json{{"id", id},
              {"inputs",
               {{{"name", "input"}, {"shape", {1, kRestMlpIn}}, {"datatype", "FP32"}, {"data", data}}}}}
      .dump();
}

inline void ExpectNear(const Json& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_TRUE(got.is_array()) << what << ": " << got.dump();
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i].get<double>(), want[i], 1e-5 + 1e-5 * std::abs(want[i])) << what;
  }
}

inline std::unique_ptr<RunningDaemon> StartWithHttp(std::vector<std::string> flags,
                                                    std::string* http, std::string* log) {
  flags.push_back("--http-listen=127.0.0.1:0");
  std::unique_ptr<RunningDaemon> daemon = StartDaemon(SimDaemonArgs(flags), log);
  if (daemon == nullptr) return nullptr;
  const std::optional<std::string> address =
      WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+) \\(");
  if (!address.has_value()) return nullptr;
  *http = *address;
  return daemon;
}

#define START_HTTP_DAEMON(var, rest, flags)                                             \
  std::string var##_log, var##_http;                                                    \
  std::unique_ptr<RunningDaemon> var = StartWithHttp((flags), &var##_http, &var##_log); \
  ASSERT_NE(var, nullptr) << var##_log;                                                 \
  Rest rest(var##_http)

}  // namespace neuronserve::testing::v2_rest_e2e_test

#endif  // NEURON_SERVE_TESTS_E2E_V2_REST_CLIENT_H_
