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

import json
import os
import sys

import grpc
import numpy as np
from google.protobuf import json_format

from v2_test_support import (CALL_TIMEOUT, classifier_reference, close, copy_shipped_models,
                             http_call, mlp_reference, read_sim_neff, run_daemon_test,
                             write_batched_mlp, write_model)

IDENTITY_SHAPE = [2, 3]
# Identity models: (model, v2 datatype).
IDENTITIES = [("id_float32", "FP32"), ("id_float16", "FP16"), ("id_bfloat16", "BF16"),
              ("id_int64", "INT64"), ("id_int32", "INT32"), ("id_uint8", "UINT8")]
BATCHED_MAX = 8
BATCHED_IN, BATCHED_OUT = 8, 4

# What get_model_metadata / get_model_config must tell: model -> (max_batch_size, inputs,
# outputs as (name, datatype, metadata shape), instance count, dynamic_batching present).
EXPECTED_MODELS = {
    "mlp": (0, [("input", "FP32", [1, 16])], [("output", "FP32", [1, 8])], 1, False),
    "classifier": (0, [("input_ids", "INT64", [1, 16]), ("attention_mask", "INT64", [1, 16])],
                   [("logits", "FP32", [1, 4]), ("logits_fp16", "FP16", [1, 4])], 1, False),
    "mlpb": (BATCHED_MAX, [("input", "FP32", [-1, BATCHED_IN])],
             [("output", "FP32", [-1, BATCHED_OUT])], 2, True),
}


# ---------------------------------------------------------------------------------------------
# tritonclient's datatypes and codecs (facts from tritonclient/utils/__init__.py; our code).


def triton_to_np_dtype(datatype):
    """The numpy dtype tritonclient decodes a v2 datatype into. BF16 has no numpy dtype: it is
    decoded into float32."""
    return {
        "BOOL": np.bool_, "INT8": np.int8, "INT16": np.int16, "INT32": np.int32,
        "INT64": np.int64, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32,
        "UINT64": np.uint64, "FP16": np.float16, "FP32": np.float32, "BF16": np.float32,
        "FP64": np.float64, "BYTES": np.object_,
    }.get(datatype)


def bf16_encode(values):
    """serialize_bf16_tensor's bytes: of each float32 the high half (truncated, not rounded)."""
    bits = np.ascontiguousarray(values, dtype="<f4").reshape(-1).view("<u4")
    return (bits >> 16).astype("<u2").tobytes()


def bf16_decode(data):
    """deserialize_bf16_tensor: each 2 bytes become the high half of a float32 (low half 0)."""
    halves = np.frombuffer(data, dtype="<u2").astype("<u4")
    return (halves << 16).view("<f4").astype(np.float32)


def bf16_truncate(values):
    """What a float32 array is after a BF16 round trip through tritonclient."""
    return bf16_decode(bf16_encode(values))


def numpy_bytes(datatype, array):
    """The bytes tritonclient's set_data_from_numpy sends for `array` (raw on gRPC, binary on
    HTTP)."""
    return bf16_encode(array) if datatype == "BF16" else array.tobytes()


def grpc_as_numpy(response, name):
    """InferResult.as_numpy of tritonclient.grpc on a ModelInferResponse."""
    for index, output in enumerate(response.outputs):
        if output.name != name:
            continue
        if index < len(response.raw_output_contents):
            data = response.raw_output_contents[index]
            if output.datatype == "BF16":
                array = bf16_decode(data)
            else:
                array = np.frombuffer(data, dtype=triton_to_np_dtype(output.datatype))
        elif len(output.contents.bytes_contents) != 0:
            array = np.array(list(output.contents.bytes_contents), dtype=np.object_)
        else:
            array = np.empty(0)
        return array.reshape(list(output.shape))
    return None


class HttpResult:
    """tritonclient.http's InferResult over one answer: the JSON header, and the binary outputs
    after it when Inference-Header-Content-Length says where the JSON ends."""

    def __init__(self, answer):
        length = answer.headers.get("inference-header-content-length")
        if length is None:
            self.result = json.loads(answer.body)
            self.buffer = b""
        else:
            self.result = json.loads(answer.body[:int(length)])
            self.buffer = answer.body[int(length):]
        self.offsets = {}
        offset = 0
        for output in self.result.get("outputs", []):
            size = (output.get("parameters") or {}).get("binary_data_size")
            if size is not None:
                self.offsets[output["name"]] = offset
                offset += size

    def as_numpy(self, name):
        for output in self.result.get("outputs") or []:
            if output["name"] != name:
                continue
            datatype = output["datatype"]
            size = (output.get("parameters") or {}).get("binary_data_size")
            if size is None:
                array = np.array(output["data"], dtype=triton_to_np_dtype(datatype))
            elif size == 0:
                array = np.empty(0)
            else:
                start = self.offsets[name]
                data = self.buffer[start:start + size]
                if datatype == "BF16":
                    array = bf16_decode(data)
                else:
                    array = np.frombuffer(data, dtype=triton_to_np_dtype(datatype))
            return array.reshape(output["shape"])
        return None


def http_infer_request(inputs, outputs=None, request_id=""):
    """The body and headers tritonclient.http's infer() sends. inputs: (name, datatype, array,
    binary) each; outputs: (name, binary) each, or None for none requested."""
    request = {}
    parameters = {}
    if request_id:
        request["id"] = request_id
    tensors = []
    blobs = []
    for name, datatype, array, binary in inputs:
        tensor = {"name": name, "shape": list(array.shape), "datatype": datatype}
        if binary:
            data = numpy_bytes(datatype, array)
            tensor["parameters"] = {"binary_data_size": len(data)}
            blobs.append(data)
        else:
            tensor["data"] = [value.item() for value in array.flatten()]
        tensors.append(tensor)
    request["inputs"] = tensors
    if outputs:
        request["outputs"] = [{"name": name, "parameters": {"binary_data": binary}}
                              for name, binary in outputs]
    else:
        parameters["binary_data_output"] = True
    if parameters:
        request["parameters"] = parameters
    header = json.dumps(request).encode()
    headers = {}
    if blobs:
        headers["Inference-Header-Content-Length"] = str(len(header))
    return header + b"".join(blobs), headers


def exactly(got, want):
    """Same dtype, shape and values (NaN-free inputs, so array_equal is exact)."""
    return (isinstance(got, np.ndarray) and got.dtype == want.dtype and
            got.shape == want.shape and np.array_equal(got, want))


def describe(array):
    if not isinstance(array, np.ndarray):
        return repr(array)
    return f"{array.dtype}{list(array.shape)} {array.tolist()}"


def identity_values(datatype):
    """A [2,3] array of the datatype, with its extremes."""
    if datatype == "FP32":
        rng = np.random.default_rng(5)
        values = rng.uniform(-1000.0, 1000.0, 6).astype(np.float32)
        values[0], values[1] = np.float32(3.0e38), np.float32(-1.0e-30)
        return values.reshape(IDENTITY_SHAPE)
    if datatype == "FP16":
        return np.array([0.0, -1.5, 65504.0, 0.000061035156, -2049.0, 0.333251953125],
                        dtype=np.float16).reshape(IDENTITY_SHAPE)
    if datatype == "BF16":
        # float32 values with bits below the BF16 half, so truncation shows.
        return np.array([1.0, -1.0000001, 3.14159265, 1.0e30, -2.5e-5, 65504.123],
                        dtype=np.float32).reshape(IDENTITY_SHAPE)
    dtype = triton_to_np_dtype(datatype)
    info = np.iinfo(dtype)
    return np.array([info.min, info.max, 0, 1, info.min + 1, info.max - 1],
                    dtype=dtype).reshape(IDENTITY_SHAPE)


def identity_expected(datatype, values):
    return bf16_truncate(values).reshape(values.shape) if datatype == "BF16" else values


# ---------------------------------------------------------------------------------------------
# The checks.


class TritonClientStyleTest:

    def __init__(self, pb, stub, http_address, checks, repository):
        self.pb = pb
        self.stub = stub
        self.http = http_address
        self.checks = checks
        self.repository = repository

    # -- requests -----------------------------------------------------------------------------

    def grpc_raw_request(self, model, inputs, request_id=""):
        """As tritonclient.grpc builds it: inputs (name, datatype, array), bytes raw."""
        request = self.pb.ModelInferRequest(model_name=model, id=request_id)
        for name, datatype, array in inputs:
            request.inputs.add(name=name, datatype=datatype, shape=list(array.shape))
            request.raw_input_contents.append(numpy_bytes(datatype, array))
        return request

    def grpc_typed_request(self, model, inputs, request_id=""):
        """As a KServe client builds it: inputs (name, datatype, array, contents field)."""
        request = self.pb.ModelInferRequest(model_name=model, id=request_id)
        for name, datatype, array, field in inputs:
            tensor = request.inputs.add(name=name, datatype=datatype, shape=list(array.shape))
            getattr(tensor.contents, field).extend(value.item() for value in array.flatten())
        return request

    def grpc_infer(self, request):
        return self.stub.ModelInfer(request, timeout=CALL_TIMEOUT)

    def http_infer(self, model, inputs, outputs=None, request_id=""):
        body, headers = http_infer_request(inputs, outputs, request_id)
        answer = http_call(self.http, "POST", f"/v2/models/{model}/infer", body, headers)
        if answer.status != 200:
            raise RuntimeError(f"HTTP {answer.status}: {answer.body[:500]!r}")
        return answer

    def raw_answer_problems(self, response, names):
        """What keeps tritonclient.grpc from reading `response`: raw_output_contents must hold
        one entry per output, and no output may carry typed contents."""
        problems = []
        if [o.name for o in response.outputs] != names:
            problems.append(f"outputs {[o.name for o in response.outputs]}, expected {names}")
        if len(response.raw_output_contents) != len(response.outputs):
            problems.append(f"{len(response.raw_output_contents)} raw_output_contents for "
                            f"{len(response.outputs)} outputs")
        typed = [o.name for o in response.outputs if o.HasField("contents")]
        if typed:
            problems.append(f"outputs with typed contents: {typed}")
        if response.model_version != "1":
            problems.append(f"model_version {response.model_version!r}, expected \"1\"")
        return problems

    # -- gRPC inference -----------------------------------------------------------------------

    def check_grpc_identity(self):
        c = self.checks
        for model, datatype in IDENTITIES:
            values = identity_values(datatype)
            want = identity_expected(datatype, values)

            def raw(model=model, datatype=datatype, values=values, want=want):
                name = f"gRPC {datatype}: set_data_from_numpy (raw) -> as_numpy ({model})"
                response = self.grpc_infer(self.grpc_raw_request(
                    model, [("input", datatype, values)], request_id=f"raw-{datatype}"))
                got = grpc_as_numpy(response, "output")
                problems = self.raw_answer_problems(response, ["output"])
                c.expect(name, not problems and exactly(got, want) and
                         response.id == f"raw-{datatype}",
                         f"{problems}; as_numpy gave {describe(got)}, expected {describe(want)}"
                         f" (id {response.id!r})")
            c.run(f"gRPC {datatype}: set_data_from_numpy (raw) -> as_numpy ({model})", raw)

        typed_cases = [("id_float32", "FP32", "fp32_contents"),
                       ("id_int64", "INT64", "int64_contents"),
                       ("id_int32", "INT32", "int_contents"),
                       ("id_uint8", "UINT8", "uint_contents")]
        for model, datatype, field in typed_cases:
            values = identity_values(datatype)

            def typed(model=model, datatype=datatype, field=field, values=values):
                name = f"gRPC {datatype}: typed {field} -> raw answer -> as_numpy ({model})"
                response = self.grpc_infer(self.grpc_typed_request(
                    model, [("input", datatype, values, field)]))
                got = grpc_as_numpy(response, "output")
                problems = self.raw_answer_problems(response, ["output"])
                c.expect(name, not problems and exactly(got, values),
                         f"{problems}; as_numpy gave {describe(got)}, expected "
                         f"{describe(values)}")
            c.run(f"gRPC {datatype}: typed {field} -> raw answer -> as_numpy ({model})", typed)

    def check_grpc_models(self):
        c = self.checks
        mlp = read_sim_neff(os.path.join(self.repository, "mlp", "model.neff"))
        x = np.random.default_rng(7).uniform(-1.0, 1.0, (1, 16)).astype(np.float32)
        want = mlp_reference(mlp, x.flatten().tolist())
        for form in ("typed fp32_contents", "raw"):

            def body(form=form):
                name = f"gRPC shipped mlp, {form}: as_numpy against the reference"
                if form == "raw":
                    request = self.grpc_raw_request("mlp", [("input", "FP32", x)])
                else:
                    request = self.grpc_typed_request("mlp",
                                                      [("input", "FP32", x, "fp32_contents")])
                response = self.grpc_infer(request)
                got = grpc_as_numpy(response, "output")
                problems = self.raw_answer_problems(response, ["output"])
                c.expect(name, not problems and isinstance(got, np.ndarray) and
                         got.dtype == np.float32 and got.shape == (1, 8) and
                         close(got.flatten().tolist(), want) and abs(float(got.sum()) - 1) < 1e-5,
                         f"{problems}; got {describe(got)}, reference {want}")
            c.run(f"gRPC shipped mlp, {form}: as_numpy against the reference", body)

        classifier = read_sim_neff(os.path.join(self.repository, "classifier", "model.neff"))
        rng = np.random.default_rng(11)
        ids = rng.integers(0, 512, (1, 16), dtype=np.int64)
        mask = np.array([[1] * 12 + [0] * 4], dtype=np.int64)
        logits = classifier_reference(classifier, ids.flatten().tolist(), mask.flatten().tolist())
        logits16 = np.array(logits, dtype=np.float32).astype(np.float16).reshape(1, 4)

        def classify():
            name = "gRPC shipped classifier, typed int64_contents: FP32 and FP16 as_numpy"
            response = self.grpc_infer(self.grpc_typed_request(
                "classifier", [("input_ids", "INT64", ids, "int64_contents"),
                               ("attention_mask", "INT64", mask, "int64_contents")]))
            got = grpc_as_numpy(response, "logits")
            got16 = grpc_as_numpy(response, "logits_fp16")
            problems = self.raw_answer_problems(response, ["logits", "logits_fp16"])
            c.expect(name, not problems and isinstance(got, np.ndarray) and
                     got.dtype == np.float32 and got.shape == (1, 4) and
                     close(got.flatten().tolist(), logits) and isinstance(got16, np.ndarray) and
                     got16.dtype == np.float16 and got16.shape == (1, 4) and
                     np.allclose(got16.astype(np.float32), logits16.astype(np.float32),
                                 rtol=1e-3, atol=1e-3),
                     f"{problems}; logits {describe(got)}, logits_fp16 {describe(got16)}; "
                     f"reference {logits}, {logits16.tolist()}")
        c.run("gRPC shipped classifier, typed int64_contents: FP32 and FP16 as_numpy", classify)

        batched = read_sim_neff(os.path.join(self.repository, "mlpb", "b1.neff"))
        rows = np.random.default_rng(3).uniform(-2.0, 2.0, (3, BATCHED_IN)).astype(np.float32)
        want_rows = [mlp_reference(batched, row.tolist()) for row in rows]

        def batch():
            name = "gRPC batched mlpb, 3 rows raw: as_numpy [3,4] against the reference"
            response = self.grpc_infer(self.grpc_raw_request("mlpb", [("input", "FP32", rows)]))
            got = grpc_as_numpy(response, "output")
            problems = self.raw_answer_problems(response, ["output"])
            c.expect(name, not problems and isinstance(got, np.ndarray) and
                     got.shape == (3, BATCHED_OUT) and
                     all(close(got[i].tolist(), want_rows[i]) for i in range(3)),
                     f"{problems}; got {describe(got)}, reference {want_rows}")
        c.run("gRPC batched mlpb, 3 rows raw: as_numpy [3,4] against the reference", batch)

    # -- REST inference -----------------------------------------------------------------------

    def check_http_identity(self):
        c = self.checks
        for model, datatype in IDENTITIES:
            values = identity_values(datatype)
            want = identity_expected(datatype, values)

            def binary(model=model, datatype=datatype, values=values, want=want):
                name = f"REST {datatype}: binary input, binary_data_output -> as_numpy ({model})"
                answer = self.http_infer(model, [("input", datatype, values, True)],
                                         request_id=f"bin-{datatype}")
                result = HttpResult(answer)
                got = result.as_numpy("output")
                header = answer.headers.get("inference-header-content-length")
                c.expect(name, header is not None and exactly(got, want) and
                         result.result.get("id") == f"bin-{datatype}" and
                         result.result.get("model_version") == "1",
                         f"Inference-Header-Content-Length {header!r}; as_numpy gave "
                         f"{describe(got)}, expected {describe(want)}; header JSON "
                         f"{result.result}")
            c.run(f"REST {datatype}: binary input, binary_data_output -> as_numpy ({model})",
                  binary)

            # tritonclient refuses JSON BF16 inputs; the BF16 output may still be JSON.
            input_binary = datatype == "BF16"
            json_name = (f"REST {datatype}: {'binary' if input_binary else 'JSON'} input, "
                         f"JSON output (binary_data false) -> as_numpy ({model})")

            def as_json(model=model, datatype=datatype, values=values, want=want,
                        input_binary=input_binary, name=json_name):
                answer = self.http_infer(model, [("input", datatype, values, input_binary)],
                                         outputs=[("output", False)])
                result = HttpResult(answer)
                got = result.as_numpy("output")
                outputs = result.result.get("outputs") or [{}]
                c.expect(name, "data" in outputs[0] and exactly(got, want),
                         f"as_numpy gave {describe(got)}, expected {describe(want)}; answer "
                         f"{answer.body[:400]!r}")
            c.run(json_name, as_json)

    def check_http_models(self):
        c = self.checks
        mlp = read_sim_neff(os.path.join(self.repository, "mlp", "model.neff"))
        x = np.random.default_rng(8).uniform(-1.0, 1.0, (1, 16)).astype(np.float32)
        want = mlp_reference(mlp, x.flatten().tolist())
        for binary in (False, True):
            mlp_name = (f"REST shipped mlp, {'binary' if binary else 'JSON'} in and out: "
                        "as_numpy against the reference")

            def body(binary=binary, name=mlp_name):
                result = HttpResult(self.http_infer("mlp", [("input", "FP32", x, binary)],
                                                    outputs=[("output", binary)]))
                got = result.as_numpy("output")
                c.expect(name, isinstance(got, np.ndarray) and got.dtype == np.float32 and
                         got.shape == (1, 8) and close(got.flatten().tolist(), want),
                         f"got {describe(got)}, reference {want}")
            c.run(mlp_name, body)

        classifier = read_sim_neff(os.path.join(self.repository, "classifier", "model.neff"))
        ids = np.random.default_rng(12).integers(0, 512, (1, 16), dtype=np.int64)
        mask = np.array([[1] * 9 + [0] * 7], dtype=np.int64)
        logits = classifier_reference(classifier, ids.flatten().tolist(), mask.flatten().tolist())

        def classify():
            name = "REST shipped classifier, JSON int64 in, default outputs: FP32 and FP16"
            result = HttpResult(self.http_infer("classifier",
                                                [("input_ids", "INT64", ids, False),
                                                 ("attention_mask", "INT64", mask, False)]))
            got = result.as_numpy("logits")
            got16 = result.as_numpy("logits_fp16")
            c.expect(name, isinstance(got, np.ndarray) and got.dtype == np.float32 and
                     got.shape == (1, 4) and close(got.flatten().tolist(), logits) and
                     isinstance(got16, np.ndarray) and got16.dtype == np.float16 and
                     got16.shape == (1, 4) and
                     close(got16.astype(np.float64).flatten().tolist(), logits, 1e-3, 1e-3),
                     f"logits {describe(got)}, logits_fp16 {describe(got16)}; reference {logits}")
        c.run("REST shipped classifier, JSON int64 in, default outputs: FP32 and FP16", classify)

        batched = read_sim_neff(os.path.join(self.repository, "mlpb", "b1.neff"))
        rows = np.random.default_rng(4).uniform(-2.0, 2.0, (5, BATCHED_IN)).astype(np.float32)
        want_rows = [mlp_reference(batched, row.tolist()) for row in rows]

        def batch():
            name = "REST batched mlpb, 5 rows binary: as_numpy [5,4] against the reference"
            got = HttpResult(self.http_infer("mlpb", [("input", "FP32", rows, True)])) \
                .as_numpy("output")
            c.expect(name, isinstance(got, np.ndarray) and got.shape == (5, BATCHED_OUT) and
                     all(close(got[i].tolist(), want_rows[i]) for i in range(5)),
                     f"got {describe(got)}, reference {want_rows}")
        c.run("REST batched mlpb, 5 rows binary: as_numpy [5,4] against the reference", batch)

    # -- get_model_metadata and get_model_config ----------------------------------------------

    @staticmethod
    def agreement_problems(model, metadata_tensors, config_tensors, max_batch_size):
        """image_client.py's reading: a config tensor per metadata tensor by name, the same
        datatype (TYPE_ + the v2 name), and config dims = the metadata shape without its first
        dimension (-1) when max_batch_size > 0, else the whole shape.
        metadata_tensors: (name, datatype, shape); config_tensors: (name, data_type, dims)."""
        problems = []
        config = {name: (data_type, dims) for name, data_type, dims in config_tensors}
        if len(config) != len(metadata_tensors):
            problems.append(f"{model}: {len(config_tensors)} config tensors, "
                            f"{len(metadata_tensors)} in the metadata")
        for name, datatype, shape in metadata_tensors:
            if name not in config:
                problems.append(f"{model}: {name} is not in the config")
                continue
            data_type, dims = config[name]
            if data_type != f"TYPE_{datatype}":
                problems.append(f"{model}: {name} data_type {data_type}, metadata {datatype}")
            want_dims = shape[1:] if max_batch_size > 0 else shape
            if dims != want_dims:
                problems.append(f"{model}: {name} dims {dims}, metadata shape {shape} "
                                f"(max_batch_size {max_batch_size})")
            if max_batch_size > 0 and (len(shape) != len(dims) + 1 or shape[0] != -1):
                problems.append(f"{model}: {name} metadata shape {shape} lacks the batch "
                                "dimension -1")
        return problems

    def check_grpc_model_information(self):
        c = self.checks
        # Generated next to grpc_service_pb2 by generate_stubs.
        from inference import model_config_pb2  # pylint: disable=import-outside-toplevel
        data_type_name = model_config_pb2.DataType.Name
        kind_model = model_config_pb2.ModelInstanceGroup.KIND_MODEL
        for model, (mbs, inputs, outputs, count, dynamic) in EXPECTED_MODELS.items():

            def body(model=model, mbs=mbs, inputs=inputs, outputs=outputs, count=count,
                     dynamic=dynamic):
                name = f"gRPC get_model_metadata and get_model_config {model}"
                metadata = self.stub.ModelMetadata(
                    self.pb.ModelMetadataRequest(name=model, version=""), timeout=CALL_TIMEOUT)
                response = self.stub.ModelConfig(self.pb.ModelConfigRequest(name=model,
                                                                            version=""),
                                                 timeout=CALL_TIMEOUT)
                config = response.config
                meta_in = [(t.name, t.datatype, list(t.shape)) for t in metadata.inputs]
                meta_out = [(t.name, t.datatype, list(t.shape)) for t in metadata.outputs]
                problems = []
                if metadata.name != model or list(metadata.versions) != ["1"]:
                    problems.append(f"metadata name {metadata.name!r} versions "
                                    f"{list(metadata.versions)}, expected {model!r} ['1']")
                if meta_in != inputs or meta_out != outputs:
                    problems.append(f"metadata inputs {meta_in} outputs {meta_out}, expected "
                                    f"{inputs} {outputs}")
                if config.name != model or config.max_batch_size != mbs:
                    problems.append(f"config name {config.name!r} max_batch_size "
                                    f"{config.max_batch_size}, expected {model!r} {mbs}")
                if config.HasField("dynamic_batching") != dynamic:
                    problems.append(f"dynamic_batching present: "
                                    f"{config.HasField('dynamic_batching')}, expected {dynamic}")
                groups = [(g.kind, g.count) for g in config.instance_group]
                if groups != [(kind_model, count)]:
                    problems.append(f"instance_group (kind, count) {groups}, expected "
                                    f"[(KIND_MODEL, {count})]")
                cfg_in = [(t.name, data_type_name(t.data_type), list(t.dims))
                          for t in config.input]
                cfg_out = [(t.name, data_type_name(t.data_type), list(t.dims))
                           for t in config.output]
                problems += self.agreement_problems(model, meta_in, cfg_in, config.max_batch_size)
                problems += self.agreement_problems(model, meta_out, cfg_out,
                                                    config.max_batch_size)
                # as_json=True: MessageToJson(preserving_proto_field_name=True); int64 dims are
                # strings there, and a proto3 default (max_batch_size 0) is left out.
                as_json = json.loads(json_format.MessageToJson(
                    response, preserving_proto_field_name=True))["config"]
                json_dims = {t["name"]: [int(d) for d in t.get("dims", [])]
                             for t in as_json.get("input", []) + as_json.get("output", [])}
                if (as_json.get("name") != model or as_json.get("max_batch_size", 0) != mbs or
                        json_dims != {n: d for n, _, d in cfg_in + cfg_out} or
                        ("dynamic_batching" in as_json) != dynamic):
                    problems.append(f"as_json {as_json}")
                c.expect(name, not problems, "; ".join(problems))
            c.run(f"gRPC get_model_metadata and get_model_config {model}", body)

            def by_version(model=model):
                name = f"gRPC get_model_config {model} version \"1\" is the serving one"
                one = self.stub.ModelConfig(self.pb.ModelConfigRequest(name=model, version="1"),
                                            timeout=CALL_TIMEOUT)
                default = self.stub.ModelConfig(self.pb.ModelConfigRequest(name=model),
                                                timeout=CALL_TIMEOUT)
                c.expect(name, one == default and one.config.name == model,
                         f"version 1: {one}; default: {default}")
            c.run(f"gRPC get_model_config {model} version \"1\" is the serving one", by_version)

        batched = self.stub.ModelConfig(self.pb.ModelConfigRequest(name="mlpb"),
                                        timeout=CALL_TIMEOUT).config.dynamic_batching
        c.expect("gRPC get_model_config mlpb: dynamic_batching's settings",
                 list(batched.preferred_batch_size) == [4] and
                 batched.max_queue_delay_microseconds == 100,
                 f"dynamic_batching {batched}; expected preferred_batch_size [4], "
                 "max_queue_delay_microseconds 100 as its config.pbtxt says")
        c.expect_error("gRPC get_model_config of another version: FAILED_PRECONDITION",
                       lambda: self.stub.ModelConfig(
                           self.pb.ModelConfigRequest(name="mlp", version="2"),
                           timeout=CALL_TIMEOUT),
                       grpc.StatusCode.FAILED_PRECONDITION, "mlp")
        c.expect_error("gRPC get_model_config of an unknown model: NOT_FOUND",
                       lambda: self.stub.ModelConfig(
                           self.pb.ModelConfigRequest(name="no_such_model"),
                           timeout=CALL_TIMEOUT),
                       grpc.StatusCode.NOT_FOUND, "no_such_model")

    def http_json(self, path):
        answer = http_call(self.http, "GET", path)
        if answer.status != 200:
            raise RuntimeError(f"GET {path}: HTTP {answer.status}: {answer.body[:300]!r}")
        return answer.json()

    def check_http_model_information(self):
        c = self.checks
        for model, (mbs, inputs, outputs, count, dynamic) in EXPECTED_MODELS.items():

            def body(model=model, mbs=mbs, inputs=inputs, outputs=outputs, count=count,
                     dynamic=dynamic):
                name = f"REST get_model_metadata and get_model_config {model}"
                metadata = self.http_json(f"/v2/models/{model}")
                config = self.http_json(f"/v2/models/{model}/config")
                meta_in = [(t["name"], t["datatype"], t["shape"]) for t in metadata["inputs"]]
                meta_out = [(t["name"], t["datatype"], t["shape"]) for t in metadata["outputs"]]
                problems = []
                if metadata.get("name") != model or metadata.get("versions") != ["1"]:
                    problems.append(f"metadata name {metadata.get('name')!r} versions "
                                    f"{metadata.get('versions')}, expected {model!r} ['1']")
                if meta_in != inputs or meta_out != outputs:
                    problems.append(f"metadata inputs {meta_in} outputs {meta_out}, expected "
                                    f"{inputs} {outputs}")
                # Triton's JSON: every primitive printed, 64-bit integers as numbers.
                config_mbs = config.get("max_batch_size")
                if config.get("name") != model or config_mbs != mbs or \
                        not isinstance(config_mbs, int):
                    problems.append(f"config name {config.get('name')!r} max_batch_size "
                                    f"{config_mbs!r}, expected {model!r} {mbs}")
                if ("dynamic_batching" in config) != dynamic:
                    problems.append(f"dynamic_batching present: {'dynamic_batching' in config},"
                                    f" expected {dynamic}")
                groups = [(g.get("kind"), g.get("count")) for g in config.get("instance_group", [])]
                if groups != [("KIND_MODEL", count)]:
                    problems.append(f"instance_group (kind, count) {groups}, expected "
                                    f"[('KIND_MODEL', {count})]")
                cfg_in = [(t["name"], t["data_type"], t["dims"]) for t in config.get("input", [])]
                cfg_out = [(t["name"], t["data_type"], t["dims"])
                           for t in config.get("output", [])]
                not_numbers = [d for _, _, dims in cfg_in + cfg_out for d in dims
                               if not isinstance(d, int) or isinstance(d, bool)]
                if not_numbers:
                    problems.append(f"dims that are not JSON numbers: {not_numbers}")
                problems += self.agreement_problems(model, meta_in, cfg_in, mbs)
                problems += self.agreement_problems(model, meta_out, cfg_out, mbs)
                if config.get("model_transaction_policy") != {"decoupled": False} or \
                        config.get("response_cache") != {"enable": False}:
                    problems.append(f"model_transaction_policy "
                                    f"{config.get('model_transaction_policy')}, response_cache "
                                    f"{config.get('response_cache')}; expected decoupled false "
                                    "and enable false printed")
                versioned = self.http_json(f"/v2/models/{model}/versions/1/config")
                if versioned != config:
                    problems.append(f"versions/1/config differs: {versioned}")
                c.expect(name, not problems, "; ".join(problems))
            c.run(f"REST get_model_metadata and get_model_config {model}", body)

        def batched():
            settings = self.http_json("/v2/models/mlpb/config").get("dynamic_batching", {})
            c.expect("REST get_model_config mlpb: dynamic_batching's settings",
                     settings.get("preferred_batch_size") == [4] and
                     settings.get("max_queue_delay_microseconds") == 100,
                     f"dynamic_batching {settings}; expected preferred_batch_size [4], "
                     "max_queue_delay_microseconds 100 (a number)")
        c.run("REST get_model_config mlpb: dynamic_batching's settings", batched)

        for path, status in (("/v2/models/mlp/versions/2/config", 400),
                             ("/v2/models/no_such_model/config", 404)):

            def refused(path=path, status=status):
                answer = http_call(self.http, "GET", path)
                error = answer.json().get("error", "") if answer.body else ""
                c.expect(f"REST GET {path}: {status} with an error", answer.status == status and
                         ("mlp" in error or "no_such_model" in error),
                         f"HTTP {answer.status}, body {answer.body[:300]!r}")
            c.run(f"REST GET {path}: {status} with an error", refused)


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
