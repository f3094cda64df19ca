#!/usr/bin/python3
"""The Open Inference Protocol (inference.GRPCInferenceService) from a second gRPC implementation.

Proves the wire format with Python's grpcio against the real daemon: the stubs are generated at
test time from the project's proto/inference/grpc_service.proto with grpc_tools.protoc (Debian's
python3-grpc-tools), the daemon runs on the simulated runtime (libnrtsim.so) on loopback with
models written by `neuronctl sim-model`, and every RPC of the service is called: every datatype
round trip on identity models, the MLP and the classifier against references computed here from
the constants in their sim NEFFs, and each error with its gRPC code.

Every check prints one line, `ok: NAME` or `FAIL: NAME: what was expected and what came`; a
check that fails does not stop the others (an RPC that raises is one failed check). Exit 0 when
every check passed, 1 otherwise, 2 for a bad command line or a daemon that did not start.

Usage (ctest passes these; see tests/e2e/CMakeLists.txt):
  v2_client_test.py --neuron-serve=PATH --neuronctl=PATH --nrtsim=PATH --proto-dir=DIR
"""

import os
import sys

from v2_test_support import (CALL_TIMEOUT, run_daemon_test, write_model)
from v2_client_values import (DTYPES, IDENTITY_SHAPE)
from v2_client_inference_checks import InferenceChecks
from v2_client_service_checks import ServiceChecks


# ---------------------------------------------------------------------------------------------
# The checks.


class V2ClientTest(ServiceChecks, InferenceChecks):

    def __init__(self, pb, stub, checks, repository):
        self.pb = pb
        self.stub = stub
        self.checks = checks
        self.repository = repository

    def raw_request(self, model, tensors, request_id="", outputs=()):
        """tensors: (name, datatype, shape, bytes) each; values in raw_input_contents."""
        request = self.pb.ModelInferRequest(model_name=model, id=request_id)
        for name, datatype, shape, data in tensors:
            request.inputs.add(name=name, datatype=datatype, shape=shape)
            request.raw_input_contents.append(data)
        for output in outputs:
            request.outputs.add(name=output)
        return request

    def infer(self, request):
        return self.stub.ModelInfer(request, timeout=CALL_TIMEOUT)


def build_repository(args, repository):
    write_model(args.neuronctl, repository, "mlp", ["--mlp", "16,32,8", "--softmax", "--seed", "1"])
    write_model(args.neuronctl, repository, "classifier",
                ["--classifier", "512,16,32,4", "--seed", "1"])
    shape = ",".join(str(d) for d in IDENTITY_SHAPE)
    for dtype in [*DTYPES, "fp8_e4"]:
        write_model(args.neuronctl, repository, f"id_{dtype}",
                    ["--identity", shape, "--dtype", dtype])
    write_model(args.neuronctl, repository, "stats", ["--identity", shape])
    # In the repository, not loaded at start: RepositoryModelLoad loads it.
    write_model(args.neuronctl, repository, "spare", ["--identity", "1,4"])
    return sorted(name for name in os.listdir(repository) if name != "spare")


def run_checks(checks, pb, pb_grpc, channel, daemon, repository):
    del daemon  # gRPC only
    test = V2ClientTest(pb, pb_grpc.GRPCInferenceServiceStub(channel), checks, repository)
    test.check_server()
    test.check_model_ready()
    test.check_model_metadata()
    test.check_datatypes()
    test.check_mlp()
    test.check_classifier()
    test.check_errors()
    test.check_stream()
    test.check_statistics()
    test.check_repository()
    test.check_shared_memory()


if __name__ == "__main__":
    sys.exit(run_daemon_test(__doc__.split("\n", 1)[0], "v2-python-client-", build_repository,
                             run_checks, extra_args=["--allow-client-shared-memory"]))
