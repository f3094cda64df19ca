#!/usr/bin/python3
"""Triton's Python client examples that read the server's words, replayed on the wire.

Some of Triton's example scripts (github.com/triton-inference-server/client, commit
58a44caa0dce77303115302e6dbdf64626b2b093, src/python/examples/) decide whether they pass by
looking for Triton's own text in an error. tritonclient is not installed here: this test builds
the same protobuf messages each script builds (from the project's proto/, whose field numbers are
Triton's), sends them the way the script does, and checks what the script checks, its `PASS:`
condition included (the exact substring, looked for in str() of the RpcError as the script looks
in e.__str__()). Line numbers below are the script's, at that commit; the code is our own.

- grpc_explicit_int_content_client.py: model `simple` (INT32 INPUT0, INPUT1 [1,16] -> OUTPUT0
  their sum, OUTPUT1 their difference) with typed int_contents, the sums and differences checked;
  then the same request with a raw_input_contents entry added beside the contents, which must
  fail with "contents field must not be specified when using raw_input_contents for 'INPUT0' for
  model 'simple'" (Triton checks each input's contents before it counts the raw entries).
- grpc_explicit_int8_content_client.py: the same on `simple_int8` (INT8), then the request with
  model_version "wrong_specification", which must fail with "failed to get model version from
  specified version string 'wrong_specification'".

Beside the scripts, the same checks where the daemon must agree with itself: the version string
on REST and on ModelMetadata (one check serves every front end), a version that is a number but
not serving (still FAILED_PRECONDITION, "... version 7 is not found"), and the daemon serving on
after every refusal.

The models are sim NEFFs written from the simulator's documented format (integer add and sub,
computed exactly, so the scripts' sums hold). Every check prints `ok: NAME` or `FAIL: NAME: why`;
exit 0 when all passed, 1 otherwise, 2 for a bad setup. Usage (ctest passes these; see
tests/e2e/CMakeLists.txt):
  triton_examples_test.py --neuron-serve=PATH --neuronctl=PATH --nrtsim=PATH --proto-dir=DIR
"""

import json
import sys

import grpc
import numpy as np

from v2_test_support import CALL_TIMEOUT, http_call, run_daemon_test, write_add_sub_model

SIMPLE_SHAPE = [1, 16]
# The scripts' inputs (lines 73-74 of both).
INPUT0_DATA = list(range(16))
INPUT1_DATA = [1] * 16

CONTENTS_BESIDE_RAW = ("contents field must not be specified when using "
                       "raw_input_contents for 'INPUT0' for model 'simple'")
WRONG_VERSION = "wrong_specification"
WRONG_VERSION_TEXT = ("failed to get model version from specified version string "
                      "'wrong_specification'")


def script_request(pb, model_name, datatype):
    """The ModelInferRequest both scripts build (lines 68-96): model_version "", INPUT0 and
    INPUT1 of `datatype`, shape [1,16], values in contents.int_contents, and OUTPUT0 and OUTPUT1
    asked for. Built as the scripts build it, each tensor from a fresh ModelInferRequest."""
    request = pb.ModelInferRequest()
    request.model_name = model_name
    request.model_version = ""
    input0 = pb.ModelInferRequest().InferInputTensor()
    input0.name = "INPUT0"
    input0.datatype = datatype
    input0.shape.extend(SIMPLE_SHAPE)
    input0.contents.int_contents[:] = INPUT0_DATA
    input1 = pb.ModelInferRequest().InferInputTensor()
    input1.name = "INPUT1"
    input1.datatype = datatype
    input1.shape.extend(SIMPLE_SHAPE)
    input1.contents.int_contents[:] = INPUT1_DATA
    request.inputs.extend([input0, input1])
    output0 = pb.ModelInferRequest().InferRequestedOutputTensor()
    output0.name = "OUTPUT0"
    output1 = pb.ModelInferRequest().InferRequestedOutputTensor()
    output1.name = "OUTPUT1"
    request.outputs.extend([output0, output1])
    return request


def script_results(response, np_dtype):
    """What the scripts make of the answer (lines 100-110): each output's raw_output_contents
    entry, by position, read as `np_dtype` and resized to the output's shape."""
    results = []
    for index, output in enumerate(response.outputs):
        values = np.frombuffer(response.raw_output_contents[index], dtype=np_dtype)
        results.append(np.resize(values, list(output.shape)))
    return results


def script_sum_problems(results):
    """The scripts' checks of the answer (lines 112-136), as a list of what failed."""
    if len(results) != 2:
        return [f"expected two output results, got {len(results)}"]
    problems = []
    for i in range(16):
        if INPUT0_DATA[i] + INPUT1_DATA[i] != results[0][0][i]:
            problems.append(f"incorrect sum at {i}: {results[0][0][i]}")
        if INPUT0_DATA[i] - INPUT1_DATA[i] != results[1][0][i]:
            problems.append(f"incorrect difference at {i}: {results[1][0][i]}")
    return problems


class TritonExamplesTest:
    def __init__(self, pb, stub, http_address, checks):
        self.pb = pb
        self.stub = stub
        self.http = http_address
        self.c = checks

    def sync_infer(self, name, request, np_dtype):
        """The scripts' first call (line 98) and their checks of its answer."""
        def body():
            response = self.stub.ModelInfer(request, timeout=CALL_TIMEOUT)
            problems = script_sum_problems(script_results(response, np_dtype))
            self.c.expect(name, not problems, "; ".join(problems))
        self.c.run(name, body)

    def expect_script_pass(self, name, call, code, text):
        """call() must raise an RpcError whose str() holds `text` (the script's PASS condition:
        `text in e.__str__()`), with status `code`."""
        try:
            call()
        except grpc.RpcError as error:
            shown = str(error)
            self.c.expect(name, error.code() == code and text in shown,
                          f"code {error.code().name} (expected {code.name}); the script looks "
                          f"for {text!r} in {shown!r}")
            return
        self.c.fail(name, "the call succeeded: the script prints no PASS line")

    def check_explicit_int(self):
        """grpc_explicit_int_content_client.py."""
        request = script_request(self.pb, "simple", "INT32")
        self.sync_infer("explicit int: int_contents of INT32 add and subtract (lines 98-136)",
                        request, np.int32)
        # Lines 138-140: one raw entry (the first 8 values as numpy's default integers) beside
        # INPUT0's contents, now its last 8 values; INPUT1 keeps its contents.
        request.raw_input_contents.extend([np.array(INPUT0_DATA[0:8]).tobytes()])
        request.inputs[0].contents.int_contents[:] = INPUT0_DATA[8:]
        self.expect_script_pass(
            "explicit int: contents beside raw_input_contents prints PASS: explicit int "
            "(lines 142-149)",
            lambda: self.stub.ModelInfer(request, timeout=CALL_TIMEOUT),
            grpc.StatusCode.INVALID_ARGUMENT, CONTENTS_BESIDE_RAW)
        # Triton checks the inputs in order, each before the entries are counted: with INPUT0
        # in raw_input_contents alone, INPUT1's contents are the ones named.
        second = script_request(self.pb, "simple", "INT32")
        second.inputs[0].ClearField("contents")
        second.raw_input_contents.extend([np.array(INPUT0_DATA, dtype="<i4").tobytes()])
        self.expect_script_pass(
            "explicit int: contents of the second input beside raw_input_contents name it",
            lambda: self.stub.ModelInfer(second, timeout=CALL_TIMEOUT),
            grpc.StatusCode.INVALID_ARGUMENT,
            "contents field must not be specified when using raw_input_contents for 'INPUT1' "
            "for model 'simple'")
        self.sync_infer("explicit int: the daemon serves on after the refusals",
                        script_request(self.pb, "simple", "INT32"), np.int32)

    def check_explicit_int8(self):
        """grpc_explicit_int8_content_client.py."""
        request = script_request(self.pb, "simple_int8", "INT8")
        self.sync_infer("explicit int8: int_contents of INT8 add and subtract (lines 98-136)",
                        request, np.int8)
        # Line 139: the same request for a version string that is no version.
        request.model_version = WRONG_VERSION
        self.expect_script_pass(
            "explicit int8: model_version 'wrong_specification' prints PASS: explicit int8 "
            "(lines 140-147)",
            lambda: self.stub.ModelInfer(request, timeout=CALL_TIMEOUT),
            grpc.StatusCode.INVALID_ARGUMENT, WRONG_VERSION_TEXT)
        # The one version check of every front end: metadata says the same.
        metadata = self.pb.ModelMetadataRequest(name="simple_int8", version=WRONG_VERSION)
        self.expect_script_pass(
            "explicit int8: ModelMetadata of version 'wrong_specification' in the same words",
            lambda: self.stub.ModelMetadata(metadata, timeout=CALL_TIMEOUT),
            grpc.StatusCode.INVALID_ARGUMENT, WRONG_VERSION_TEXT)
        # A number is a version that may exist: not serving is FAILED_PRECONDITION, as before.
        request.model_version = "7"
        self.expect_script_pass(
            "explicit int8: model_version '7' is a version that is not serving",
            lambda: self.stub.ModelInfer(request, timeout=CALL_TIMEOUT),
            grpc.StatusCode.FAILED_PRECONDITION,
            "Request for unknown model: 'simple_int8' version 7 is not found")
        self.sync_infer("explicit int8: the daemon serves on after the refusals",
                        script_request(self.pb, "simple_int8", "INT8"), np.int8)

    def check_rest_version_string(self):
        """The version string on REST: 400 with Triton's text, in the JSON error."""
        body = json.dumps({"inputs": [
            {"name": "INPUT0", "datatype": "INT8", "shape": SIMPLE_SHAPE, "data": INPUT0_DATA},
            {"name": "INPUT1", "datatype": "INT8", "shape": SIMPLE_SHAPE, "data": INPUT1_DATA},
        ]})
        for what, method, path, payload in (
                ("infer", "POST", f"/v2/models/simple_int8/versions/{WRONG_VERSION}/infer", body),
                ("metadata", "GET", f"/v2/models/simple_int8/versions/{WRONG_VERSION}", None)):
            name = f"REST {what} of version 'wrong_specification': 400 in Triton's words"

            def refused(name=name, method=method, path=path, payload=payload):
                answer = http_call(self.http, method, path, body=payload,
                                   headers={"Content-Type": "application/json"})
                error = answer.json().get("error", "") if answer.body else ""
                self.c.expect(name, answer.status == 400 and WRONG_VERSION_TEXT in error,
                              f"HTTP {answer.status}, body {answer.body[:300]!r}")
            self.c.run(name, refused)


def build_repository(repository):
    write_add_sub_model(repository, "simple", "int32", SIMPLE_SHAPE)
    write_add_sub_model(repository, "simple_int8", "int8", SIMPLE_SHAPE)


def run_checks(checks, pb, pb_grpc, channel, daemon, _repository):
    test = TritonExamplesTest(pb, pb_grpc.GRPCInferenceServiceStub(channel),
                              daemon.http_address, checks)
    test.check_explicit_int()
    test.check_explicit_int8()
    test.check_rest_version_string()


if __name__ == "__main__":
    sys.exit(run_daemon_test(__doc__.split("\n", 1)[0], "triton-examples-",
                             lambda args, repository: build_repository(repository),
                             run_checks, http=True))
