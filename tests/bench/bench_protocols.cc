// Bench's protocol runs: ModelInfer against native Infer, REST against gRPC ModelInfer, and
// REST against the bare HTTP echo server.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "tests/bench/bench.h"
#include "tests/bench/payload.h"

namespace neuronserve::bench {

std::vector<ProtocolRow> Bench::RunProtocols() {
  std::vector<ProtocolRow> rows;
  PrintProtocolHeader(flags_.infer_replicas);
  for (uint64_t size : flags_.v2_sizes) {
    IdentityModel model{absl::StrCat("bench-v2-", size), size, 0, flags_.infer_replicas};
    grpc::Status loaded = LoadIdentityModel(*daemon_stub_, model);
    const v1::InferRequest native = MakeRequest(model.name, size, TensorForm::kRaw);
    const inference::ModelInferRequest v2 = MakeV2Request(native);
    for (int concurrency : flags_.v2_concurrency) {
      ProtocolRow row{size, concurrency, {}, {}};
      if (loaded.ok()) {
        row.native.error = Probe(infer_call_, native);
        row.v2.error = Probe(v2_call_, v2);
      } else {
        row.native.error = row.v2.error = absl::StrCat(
            "LoadModel failed, code ", loaded.error_code(), ": ", loaded.error_message());
      }
      for (int round = 0; round < flags_.rounds; ++round) {
        const LoadOptions options = OptionsFor(flags_, concurrency, round, flags_.rounds);
        MeasureRound(infer_call_, native, ExpectSameSize(native), options, row.native);
        MeasureRound(v2_call_, v2, V2ExpectSameSize(v2), options, row.v2);
      }
      failed_ |= !row.native.ok() || !row.v2.ok();
      PrintProtocolRow(row);
      rows.push_back(std::move(row));
    }
    if (loaded.ok()) Unload(model.name);
  }
  return rows;
}

void Bench::RunHttp() {
  constexpr uint64_t kSize = 4096;
  PrintHttpHeader(flags_.infer_replicas);
  IdentityModel model{"bench-http", kSize, 0, flags_.infer_replicas};
  grpc::Status loaded = LoadIdentityModel(*daemon_stub_, model);
  const v1::InferRequest native = MakeRequest(model.name, kSize, TensorForm::kRaw);
  const inference::ModelInferRequest v2 = MakeV2Request(native);
  const std::string& bytes = v2.raw_input_contents(0);
  const HttpPost binary = MakeRestBinaryRequest(v2);
  const std::string& path = binary.path;
  const nlohmann::json shape = {1, kSize / 4};
  std::vector<float> values(kSize / 4);
  std::memcpy(values.data(), bytes.data(), kSize);
  const HttpPost json{
      path,
      {"Content-Type: application/json"},
      nlohmann::json{
          {"inputs",
           {{{"name", kInputName}, {"shape", shape}, {"datatype", "FP32"}, {"data", values}}}}}
          .dump()};
  // The identity's bytes must come back: after the JSON part, or as many JSON numbers.
  const HttpCheck binary_check = [&bytes](const HttpAnswer& answer) {
    return RestBinaryCompareOutput(bytes, answer);
  };
  const HttpCheck json_check = [count = values.size()](const HttpAnswer& answer) -> std::string {
    if (answer.status != 200) return absl::StrCat("HTTP ", answer.status, ": ", answer.body);
    const size_t commas = std::count(answer.body.begin(), answer.body.end(), ',');
    return commas >= count ? "" : "the JSON output has too few values";
  };
  for (int concurrency : flags_.v2_concurrency) {
    HttpRow row{kSize, concurrency, {}, {}, {}};
    if (!loaded.ok()) {
      row.grpc.error = row.rest_binary.error = row.rest_json.error = absl::StrCat(
          "LoadModel failed, code ", loaded.error_code(), ": ", loaded.error_message());
    } else if (http_address_.empty()) {
      row.rest_binary.error = row.rest_json.error = "the daemon logged no HTTP endpoint";
    } else {
      row.grpc.error = Probe(v2_call_, v2);
      HttpConnection probe(http_address_);
      row.rest_binary.error = binary_check(probe.Send(binary));
      row.rest_json.error = json_check(probe.Send(json));
    }
    for (int round = 0; round < flags_.rounds; ++round) {
      const LoadOptions options = OptionsFor(flags_, concurrency, round, flags_.rounds);
      MeasureRound(v2_call_, v2, V2ExpectSameSize(v2), options, row.grpc);
      MeasureHttpRound(http_address_, binary, binary_check, options, row.rest_binary);
      MeasureHttpRound(http_address_, json, json_check, options, row.rest_json);
    }
    failed_ |= !row.grpc.ok() || !row.rest_binary.ok() || !row.rest_json.ok();
    PrintHttpRow(row);
  }
  if (loaded.ok()) Unload(model.name);
}

void Bench::RunRestEcho() {
  PrintRestEchoHeader(flags_.infer_replicas);
  for (uint64_t size : flags_.rest_sizes) {
    IdentityModel model{absl::StrCat("bench-rest-", size), size, 0, flags_.infer_replicas};
    std::optional<grpc::Status> loaded;  // at the first cell that runs
    const inference::ModelInferRequest v2 =
        MakeV2Request(MakeRequest(model.name, size, TensorForm::kRaw));
    const std::string& bytes = v2.raw_input_contents(0);
    const HttpPost post = MakeRestBinaryRequest(v2);
    const HttpCheck check = RestBinaryExpectSameSize(size);
    for (int concurrency : flags_.rest_concurrency) {
      if (const std::string why = WhyOverBudget(size, concurrency, flags_.memory_budget);
          !why.empty()) {
        PrintRestEchoSkipped(size, concurrency, why);
        continue;
      }
      if (!loaded.has_value()) loaded = LoadIdentityModel(*daemon_stub_, model);
      RestEchoRow row{size, concurrency, {}, {}};
      row.http_echo.error = ProbeHttp(http_echo_address_, post, bytes);
      if (!loaded->ok()) {
        row.rest.error = absl::StrCat("LoadModel failed, code ", loaded->error_code(), ": ",
                                      loaded->error_message());
      } else if (http_address_.empty()) {
        row.rest.error = "the daemon logged no HTTP endpoint";
      } else {
        row.rest.error = ProbeHttp(http_address_, post, bytes);
      }
      for (int round = 0; round < flags_.rounds; ++round) {
        const LoadOptions options = OptionsFor(flags_, concurrency, round, flags_.rounds);
        MeasureHttpRound(http_echo_address_, post, check, options, row.http_echo);
        MeasureHttpRound(http_address_, post, check, options, row.rest);
      }
      failed_ |= !row.http_echo.ok() || !row.rest.ok();
      PrintRestEchoRow(row);
    }
    if (loaded.has_value() && loaded->ok()) Unload(model.name);
  }
}

std::string Bench::ProbeHttp(const std::string& address, const HttpPost& post,
                             const std::string& bytes) {
  HttpConnection connection(address);
  const HttpAnswer answer = connection.Send(post);
  if (answer.status == 0) return answer.error;
  return RestBinaryCompareOutput(bytes, answer);
}

void Bench::MeasureHttpRound(const std::string& address, const HttpPost& post,
                             const HttpCheck& check, const LoadOptions& options,
                             Measurement& measurement) {
  if (!measurement.error.empty()) return;
  LoadResult round = RunHttpLoad(address, post, check, options);
  if (measurement.result.has_value()) {
    measurement.result->Add(round);
  } else {
    measurement.result = std::move(round);
  }
}

}  // namespace neuronserve::bench
