#include "tests/e2e/infer_client.h"

#include <cstring>
#include <thread>

#include "client/simmodel/classifier_model.h"
#include "client/simmodel/mlp_model.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"

namespace neuronserve::testing {

void AddInput(v1::InferRequest& request, const std::string& name,
              const std::vector<uint32_t>& shape, const std::vector<float>& values,
              TensorForm form) {
  v1::InputTensor* input = request.add_inputs();
  input->set_name(name);
  for (uint32_t dim : shape) input->add_shape(dim);
  if (form == TensorForm::kRaw) {
    input->mutable_raw_data()->assign(reinterpret_cast<const char*>(values.data()),
                                      values.size() * sizeof(float));
  } else {
    input->mutable_float_data()->Add(values.begin(), values.end());
  }
}

std::vector<float> OutputValues(const v1::OutputTensor& output) {
  if (!output.raw_data().empty()) {
    std::vector<float> values(output.raw_data().size() / sizeof(float));
    std::memcpy(values.data(), output.raw_data().data(), values.size() * sizeof(float));
    return values;
  }
  return {output.float_data().begin(), output.float_data().end()};
}

grpc::Status Infer(v1::NeuronServing::Stub& stub, const v1::InferRequest& request,
                   v1::InferResponse* response, absl::Duration deadline) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  v1::InferResponse ignored;
  return stub.Infer(&context, request, response != nullptr ? response : &ignored);
}

std::vector<v1::InferResponse> RunStream(v1::NeuronServing::Stub& stub,
                                         const std::vector<v1::InferRequest>& requests,
                                         grpc::Status* status, absl::Duration deadline) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  auto stream = stub.InferStream(&context);
  // Write from a second thread so that responses are read while requests still go out: a
  // stream that only reads after writing everything could stall on flow control.
  std::thread writer([&] {
    for (const v1::InferRequest& request : requests) {
      if (!stream->Write(request)) break;
    }
    stream->WritesDone();
  });
  std::vector<v1::InferResponse> responses;
  v1::InferResponse response;
  while (stream->Read(&response)) responses.push_back(response);
  writer.join();
  *status = stream->Finish();
  return responses;
}

std::vector<double> MlpReference(const simmodel::SimModel& mlp, const std::vector<float>& input,
                                 size_t layers) {
  std::vector<double> activation(input.begin(), input.end());
  for (size_t layer = 0; layer < layers; ++layer) {
    const simmodel::Constant& weight = mlp.constants.at(simmodel::MlpWeightName(layer));
    const simmodel::Constant& bias = mlp.constants.at(simmodel::MlpBiasName(layer));
    const size_t rows = static_cast<size_t>(weight.shape[0]);
    const size_t columns = static_cast<size_t>(weight.shape[1]);
    std::vector<double> next(bias.data.begin(), bias.data.end());
    for (size_t k = 0; k < rows; ++k) {
      for (size_t c = 0; c < columns; ++c) next[c] += activation[k] * weight.data[k * columns + c];
    }
    if (layer + 1 < layers) {
      for (double& value : next) value = value > 0 ? value : 0;
    }
    activation = std::move(next);
  }
  return activation;
}

std::vector<double> ClassifierReference(const simmodel::SimModel& model,
                                        const std::vector<int64_t>& ids,
                                        const std::vector<int64_t>& mask) {
  const auto weight = [&](const char* name, size_t index) {
    return static_cast<double>(static_cast<float>(model.constants.at(name).data.at(index)));
  };
  std::vector<double> pooled(kClassifierHidden, 0.0);
  double kept = 0;
  for (uint32_t position = 0; position < kClassifierSequence; ++position) {
    kept += static_cast<double>(mask[position]);
    for (uint32_t h = 0; h < kClassifierHidden; ++h) {
      pooled[h] += weight(simmodel::kClassifierEmbeddings, ids[position] * kClassifierHidden + h) *
                   static_cast<double>(mask[position]);
    }
  }
  for (double& value : pooled) value /= kept;
  std::vector<double> logits(kClassifierClasses);
  for (uint32_t c = 0; c < kClassifierClasses; ++c) {
    logits[c] = weight(simmodel::kClassifierBias, c);
    for (uint32_t h = 0; h < kClassifierHidden; ++h) {
      logits[c] += pooled[h] * weight(simmodel::kClassifierWeight, h * kClassifierClasses + c);
    }
  }
  return logits;
}

}  // namespace neuronserve::testing
