// Bench's shared-memory run: Infer with the tensor in the request against the same tensor in
// client shared memory.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/bench/bench.h"
#include "tests/bench/payload.h"

namespace neuronserve::bench {

std::vector<SharedMemoryRow> Bench::RunSharedMemory() {
  std::vector<SharedMemoryRow> rows;
  PrintSharedMemoryHeader(flags_.infer_replicas);
  for (uint64_t size : flags_.shm_sizes) {
    IdentityModel model{absl::StrCat("bench-shm-", size), size, 0, flags_.infer_replicas};
    const grpc::Status loaded = LoadIdentityModel(*daemon_stub_, model);
    const v1::InferRequest raw = MakeRequest(model.name, size, TensorForm::kRaw);
    testing::ShmObject object(2 * size);
    const std::string in = absl::StrCat("bench-in-", size);
    const std::string out = absl::StrCat("bench-out-", size);
    std::string setup_error;
    if (!loaded.ok()) {
      setup_error = absl::StrCat("LoadModel failed, code ", loaded.error_code(), ": ",
                                 loaded.error_message());
    } else if (!object.ok()) {
      setup_error = absl::StrCat("cannot make a shared memory object of ", 2 * size, " bytes");
    } else {
      std::memcpy(object.bytes(), raw.inputs(0).raw_data().data(), size);
      setup_error = RegisterRegion(in, object.key(), 0, size);
      if (setup_error.empty()) setup_error = RegisterRegion(out, object.key(), size, size);
    }
    v1::InferRequest shared = raw;
    shared.mutable_inputs(0)->clear_raw_data();
    *shared.mutable_inputs(0)->mutable_shared_memory() = ShmRef(in, 0, size);
    v1::OutputSharedMemory* output = shared.add_output_shared_memory();
    output->set_name(std::string(kOutputName));
    *output->mutable_shared_memory() = ShmRef(out, 0, size);
    const CheckResponse in_region = [](const v1::InferResponse& response) -> std::string {
      if (response.outputs_size() != 1 || !response.outputs(0).has_shared_memory() ||
          !response.outputs(0).raw_data().empty()) {
        return "expected 1 output in shared memory and none in the response";
      }
      return "";
    };
    for (int concurrency : flags_.shm_concurrency) {
      SharedMemoryRow row{size, concurrency, {}, {}};
      row.raw.error = setup_error.empty() ? Probe(infer_call_, raw) : setup_error;
      row.shared.error = setup_error.empty() ? ProbeShared(shared, object, size) : setup_error;
      for (int round = 0; round < flags_.rounds; ++round) {
        const LoadOptions options = OptionsFor(flags_, concurrency, round, flags_.rounds);
        MeasureRound(infer_call_, raw, ExpectSameSize(raw), options, row.raw);
        MeasureRound(infer_call_, shared, in_region, options, row.shared);
      }
      failed_ |= !row.raw.ok() || !row.shared.ok();
      PrintSharedMemoryRow(row);
      rows.push_back(std::move(row));
    }
    UnregisterRegions();
    if (loaded.ok()) Unload(model.name);
  }
  return rows;
}

std::string Bench::RegisterRegion(const std::string& name, const std::string& key, uint64_t offset,
                                  uint64_t byte_size) {
  v1::RegisterSharedMemoryRequest request;
  request.set_name(name);
  request.set_key(key);
  request.set_offset(offset);
  request.set_byte_size(byte_size);
  v1::RegisterSharedMemoryResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  const grpc::Status status = daemon_stub_->RegisterSharedMemory(&context, request, &response);
  if (status.ok()) return "";
  return absl::StrCat("RegisterSharedMemory '", name, "' failed, code ", status.error_code(), ": ",
                      status.error_message());
}

void Bench::UnregisterRegions() {
  v1::UnregisterSharedMemoryRequest request;  // every region
  v1::UnregisterSharedMemoryResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  const grpc::Status status = daemon_stub_->UnregisterSharedMemory(&context, request, &response);
  if (!status.ok()) {
    std::printf("bench: UnregisterSharedMemory failed, code %d: %s\n",
                static_cast<int>(status.error_code()), status.error_message().c_str());
    failed_ = true;
  }
}

v1::SharedMemoryRef Bench::ShmRef(const std::string& region, uint64_t offset, uint64_t byte_size) {
  v1::SharedMemoryRef ref;
  ref.set_region(region);
  ref.set_offset(offset);
  ref.set_byte_size(byte_size);
  return ref;
}

std::string Bench::ProbeShared(const v1::InferRequest& request, testing::ShmObject& object,
                               uint64_t size) {
  std::memset(object.bytes() + size, 0, size);
  v1::InferResponse response;
  const grpc::Status status = CallOnce(infer_call_, request, &response, kProbeTimeout);
  if (!status.ok()) {
    return absl::StrCat("code ", status.error_code(), ": ", status.error_message());
  }
  if (std::memcmp(object.bytes(), object.bytes() + size, size) != 0) {
    return "the output region does not hold the input's bytes";
  }
  return "";
}

}  // namespace neuronserve::bench
