#include "tests/bench/daemon_models.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "client/simmodel/identity_model.h"
#include "client/simmodel/sim_neff.h"
#include "grpcpp/client_context.h"
#include "tests/bench/payload.h"
#include "util/sha256.h"

namespace neuronserve::bench {
namespace {

// Loading is quick on the simulator; this only keeps a stuck daemon from hanging the bench.
constexpr auto kRpcTimeout = std::chrono::seconds(60);
constexpr size_t kChunkBytes = size_t{1} << 20;

grpc::Status FromAbsl(const absl::Status& status) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string(status.message()));
}

}  // namespace

grpc::Status LoadIdentityModel(v1::NeuronServing::Stub& stub, const IdentityModel& model) {
  // One NEFF of one row, or one per variant.
  std::vector<IdentityModel::Variant> variants = model.variants;
  if (variants.empty()) variants.push_back({1, model.latency_us});
  std::vector<std::string> neffs;
  for (const IdentityModel::Variant& variant : variants) {
    simmodel::IdentityOptions options;
    options.shape = {variant.batch_size, static_cast<int64_t>(model.tensor_bytes / 4)};
    options.input_name = kInputName;
    options.output_name = kOutputName;
    absl::StatusOr<simmodel::SimModel> built = simmodel::BuildIdentityModel(options);
    if (!built.ok()) return FromAbsl(built.status());
    built->latency_us = variant.latency_us;
    absl::StatusOr<std::string> neff = simmodel::EncodeSimNeff(*built);
    if (!neff.ok()) return FromAbsl(neff.status());
    neffs.push_back(*std::move(neff));
  }

  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
  v1::LoadModelResponse response;
  std::unique_ptr<grpc::ClientWriter<v1::LoadModelRequest>> writer =
      stub.LoadModel(&context, &response);
  v1::LoadModelRequest header;
  v1::LoadModelHeader* fields = header.mutable_header();
  fields->mutable_config()->set_name(model.name);
  if (!model.version.empty()) fields->mutable_config()->set_version(model.version);
  if (model.shared_core.has_value()) {
    fields->mutable_config()->add_start_cores(*model.shared_core);
    fields->mutable_config()->set_shared(true);
  } else {
    fields->mutable_config()->set_replicas(static_cast<uint32_t>(model.replicas));
  }
  if (model.pipeline_depth != 0) fields->mutable_config()->set_pipeline_depth(model.pipeline_depth);
  if (model.max_queue_delay_us != 0) {
    fields->mutable_config()->mutable_dynamic_batching()->set_max_queue_delay_microseconds(
        model.max_queue_delay_us);
  }
  if (model.variants.empty()) {
    fields->set_total_size(neffs.front().size());
    fields->set_sha256(Sha256Hex(neffs.front()));
  } else {
    for (size_t i = 0; i < neffs.size(); ++i) {
      v1::VariantUpload* variant = fields->add_variants();
      variant->set_batch_size(variants[i].batch_size);
      variant->set_size(neffs[i].size());
      variant->set_sha256(Sha256Hex(neffs[i]));
    }
  }
  // A failed Write means the server already finished the call; Finish says why.
  bool open = writer->Write(header);
  for (const std::string& neff : neffs) {
    for (size_t offset = 0; open && offset < neff.size(); offset += kChunkBytes) {
      v1::LoadModelRequest chunk;
      chunk.set_chunk(neff.substr(offset, kChunkBytes));
      open = writer->Write(chunk);
    }
  }
  writer->WritesDone();
  return writer->Finish();
}

grpc::Status UnloadModel(v1::NeuronServing::Stub& stub, const std::string& name) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
  v1::UnloadModelRequest request;
  request.set_name(name);
  v1::UnloadModelResponse response;
  return stub.UnloadModel(&context, request, &response);
}

}  // namespace neuronserve::bench
