"""What tritonclient_style_test.py's checks share: the models it serves and what their metadata
and configuration must tell, and how tritonclient encodes requests and decodes answers (the
facts and the commit they were read from: tritonclient_style_test.py's docstring).
"""

import json

import numpy as np


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
