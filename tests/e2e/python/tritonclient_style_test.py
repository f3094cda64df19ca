#!/usr/bin/python3
"""The daemon as Triton's Python client library (tritonclient) sees it, over gRPC and REST.

tritonclient itself is not installed: this test does on the wire what its documented calls do,
and reads the answers the way it reads them, as established from its public source
(github.com/triton-inference-server/client, commit 58a44caa0dce77303115302e6dbdf64626b2b093,
src/python/library/tritonclient/): the code below is our own, written from those facts.

- Requests. gRPC InferInput.set_data_from_numpy (grpc/_infer_input.py) always sends the array's
  bytes in raw_input_contents (BF16: the upper two bytes of each float32, truncating); clients
  that build ModelInferRequest themselves (KServe's) send typed `contents` instead, so both are
  sent. HTTP (http/_infer_input.py, http/_utils.py _get_inference_request): binary_data=True
  (the default) puts the bytes after the JSON with parameters.binary_data_size and the header
  Inference-Header-Content-Length; binary_data=False sends `data` as the flattened array's
  .item() values (BF16 is refused there). With no requested outputs the request says
  parameters.binary_data_output = true; a requested output carries parameters.binary_data.
- Answers. gRPC InferResult.as_numpy (grpc/_infer_result.py) reads raw_output_contents only
  (np.frombuffer with triton_to_np_dtype of the output's datatype; BF16 via
  deserialize_bf16_tensor into float32), else bytes_contents, else an empty array, then
  reshapes to the output's shape: an answer in typed `contents` would not decode. HTTP
  InferResult (http/_infer_result.py) splits the body at Inference-Header-Content-Length, and
  as_numpy reads each output's binary_data_size bytes in order, or np.array(data, dtype).
- Model information. get_model_metadata and get_model_config: gRPC ModelMetadataRequest /
  ModelConfigRequest{name, version} (as_json: MessageToJson with preserving_proto_field_name,
  so 64-bit integers are strings and proto3 defaults are left out); HTTP GET v2/models/NAME
  [/versions/V] and .../config, the JSON body as it is. What clients then read is what
  src/python/examples/image_client.py parse_model reads: max_batch_size, the metadata's and the
  config's inputs and outputs, a batch dimension in the metadata shape exactly when
  max_batch_size > 0.

Models: the shipped examples (deploy/models: mlp and classifier, copied as they are), a batched
MLP (variants of 1 and 4 rows, max_batch_size 8, dynamic_batching, 2 replicas) and identity
models, whose answers must equal their inputs exactly.

Every check prints `ok: NAME` or `FAIL: NAME: why`; exit 0 when all passed, 1 otherwise, 2 for
a bad setup. Usage (ctest passes these; see tests/e2e/CMakeLists.txt):
  tritonclient_style_test.py --neuron-serve=PATH --neuronctl=PATH --nrtsim=PATH
      --proto-dir=DIR --models-dir=DIR
"""

import sys

from v2_test_support import (copy_shipped_models, run_daemon_test, write_batched_mlp, write_model)
from tritonclient_style_support import (IDENTITY_SHAPE, IDENTITIES, BATCHED_MAX, BATCHED_IN,
                                        BATCHED_OUT)
from tritonclient_inference_checks import InferenceChecks
from tritonclient_model_info_checks import ModelInformationChecks


# ---------------------------------------------------------------------------------------------
# The checks.


class TritonClientStyleTest(InferenceChecks, ModelInformationChecks):

    def __init__(self, pb, stub, http_address, checks, repository):
        self.pb = pb
        self.stub = stub
        self.http = http_address
        self.checks = checks
        self.repository = repository


def build_repository(neuronctl, models_dir, repository):
    copy_shipped_models(models_dir, repository)
    # A batched MLP: one network compiled for 1 and for 4 rows.
    write_batched_mlp(neuronctl, repository, "mlpb",
                      ["--mlp", f"{BATCHED_IN},16,{BATCHED_OUT}", "--softmax", "--seed", "11"],
                      f"replicas: 2\nmax_batch_size: {BATCHED_MAX}\n"
                      "dynamic_batching { preferred_batch_size: 4 "
                      "max_queue_delay_microseconds: 100 }\n")
    shape = ",".join(str(d) for d in IDENTITY_SHAPE)
    for model, _ in IDENTITIES:
        write_model(neuronctl, repository, model,
                    ["--identity", shape, "--dtype", model[len("id_"):]])


def run_checks(checks, pb, pb_grpc, channel, daemon, repository):
    test = TritonClientStyleTest(pb, pb_grpc.GRPCInferenceServiceStub(channel),
                                 daemon.http_address, checks, repository)
    test.check_grpc_identity()
    test.check_grpc_models()
    test.check_http_identity()
    test.check_http_models()
    test.check_grpc_model_information()
    test.check_http_model_information()


if __name__ == "__main__":
    sys.exit(run_daemon_test(__doc__.split("\n", 1)[0], "tritonclient-style-",
                             lambda args, repository: build_repository(
                                 args.neuronctl, args.models_dir, repository),
                             run_checks, models_dir=True, http=True))
