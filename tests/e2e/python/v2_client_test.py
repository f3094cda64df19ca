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
import random
import struct
import sys
import time
from multiprocessing import shared_memory

import grpc

from v2_test_support import (CALL_TIMEOUT, classifier_reference, close, mlp_reference,
                             read_sim_neff, round_float32, run_daemon_test, write_model)

# Every model tensor dtype with a v2 datatype: NRT name -> (v2 name, struct format of one
# element, InferTensorContents field of its typed form or None when it travels only raw).
DTYPES = {
    "float32": ("FP32", "f", "fp32_contents"),
    "float16": ("FP16", "e", None),
    "bfloat16": ("BF16", "H", None),  # the 16-bit patterns: Python has no bfloat16
    "int8": ("INT8", "b", "int_contents"),
    "int16": ("INT16", "h", "int_contents"),
    "int32": ("INT32", "i", "int_contents"),
    "int64": ("INT64", "q", "int64_contents"),
    "uint8": ("UINT8", "B", "uint_contents"),
    "uint16": ("UINT16", "H", "uint_contents"),
    "uint32": ("UINT32", "I", "uint_contents"),
    "uint64": ("UINT64", "Q", "uint64_contents"),
}
IDENTITY_SHAPE = [2, 3]
CONTENT_FIELDS = ("bool_contents", "int_contents", "int64_contents", "uint_contents",
                  "uint64_contents", "fp32_contents", "fp64_contents", "bytes_contents")


# ---------------------------------------------------------------------------------------------
# Values and references.


def sample_values(dtype, count):
    """Values of `dtype` covering its extremes, `count` of them."""
    if dtype in ("float32", "float16"):
        base = [0.0, -1.5, 2.25, 65504.0 if dtype == "float16" else 3.0e38, -0.125, 1024.0]
    elif dtype == "bfloat16":
        base = [0x0000, 0xBFC0, 0x4010, 0x7F7F, 0xBE00, 0x4480]  # bit patterns
    else:
        fmt = DTYPES[dtype][1]
        bits = 8 * struct.calcsize(fmt)
        low, high = (0, 2**bits - 1) if fmt.isupper() else (-(2**(bits - 1)), 2**(bits - 1) - 1)
        base = [low, high, 0, 1, low + 1, high - 1]
    return [base[i % len(base)] for i in range(count)]


def pack(dtype, values):
    fmt = DTYPES[dtype][1]
    return struct.pack(f"<{len(values)}{fmt}", *values)


def unpack(fmt, data):
    return list(struct.unpack(f"<{len(data) // struct.calcsize(fmt)}{fmt}", data))


def filled_fields(contents):
    return [field for field in CONTENT_FIELDS if len(getattr(contents, field)) > 0]


# ---------------------------------------------------------------------------------------------
# The checks.


class V2ClientTest:

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

    # -- health and metadata ------------------------------------------------------------------

    def check_server(self):
        c = self.checks

        def live():
            c.expect("ServerLive", self.stub.ServerLive(self.pb.ServerLiveRequest(),
                                                        timeout=CALL_TIMEOUT).live,
                     "live is false")
        c.run("ServerLive", live)

        def ready():
            c.expect("ServerReady", self.stub.ServerReady(self.pb.ServerReadyRequest(),
                                                          timeout=CALL_TIMEOUT).ready,
                     "ready is false while health \"\" is SERVING")
        c.run("ServerReady", ready)

        def metadata():
            answer = self.stub.ServerMetadata(self.pb.ServerMetadataRequest(),
                                              timeout=CALL_TIMEOUT)
            c.expect("ServerMetadata", answer.name and answer.version,
                     f"name {answer.name!r} and version {answer.version!r} must not be empty")
        c.run("ServerMetadata", metadata)

    def check_model_ready(self):
        c = self.checks

        def ready():
            answer = self.stub.ModelReady(self.pb.ModelReadyRequest(name="mlp"),
                                          timeout=CALL_TIMEOUT)
            c.expect("ModelReady mlp", answer.ready, "ready is false for a loaded model")
        c.run("ModelReady mlp", ready)

        def unknown():
            try:
                answer = self.stub.ModelReady(self.pb.ModelReadyRequest(name="no_such_model"),
                                              timeout=CALL_TIMEOUT)
                c.expect("ModelReady unknown model", not answer.ready,
                         "ready is true for a model that was never loaded")
            except grpc.RpcError as error:
                c.expect("ModelReady unknown model", error.code() == grpc.StatusCode.NOT_FOUND,
                         f"{error.code().name}: {error.details()}; expected ready false or "
                         "NOT_FOUND")
        c.run("ModelReady unknown model", unknown)

    def check_model_metadata(self):
        c = self.checks
        expected = {
            "mlp": ([("input", "FP32", [1, 16])], [("output", "FP32", [1, 8])]),
            "classifier": ([("input_ids", "INT64", [1, 16]), ("attention_mask", "INT64", [1, 16])],
                           [("logits", "FP32", [1, 4]), ("logits_fp16", "FP16", [1, 4])]),
            "id_bfloat16": ([("input", "BF16", IDENTITY_SHAPE)],
                            [("output", "BF16", IDENTITY_SHAPE)]),
            # A dtype without a v2 name: the NRT name upper-cased.
            "id_fp8_e4": ([("input", "FP8_E4", IDENTITY_SHAPE)],
                          [("output", "FP8_E4", IDENTITY_SHAPE)]),
        }
        for model, (inputs, outputs) in expected.items():
            name = f"ModelMetadata {model}"

            def body(model=model, inputs=inputs, outputs=outputs, name=name):
                answer = self.stub.ModelMetadata(self.pb.ModelMetadataRequest(name=model),
                                                 timeout=CALL_TIMEOUT)
                got_in = sorted((t.name, t.datatype, list(t.shape)) for t in answer.inputs)
                got_out = sorted((t.name, t.datatype, list(t.shape)) for t in answer.outputs)
                c.expect(name,
                         answer.name == model and got_in == sorted(inputs) and
                         got_out == sorted(outputs) and len(answer.versions) > 0,
                         f"got name {answer.name!r}, versions {list(answer.versions)}, inputs "
                         f"{got_in}, outputs {got_out}; expected inputs {sorted(inputs)}, "
                         f"outputs {sorted(outputs)} and at least one version")
            c.run(name, body)
        c.expect_error("ModelMetadata unknown model: NOT_FOUND",
                       lambda: self.stub.ModelMetadata(
                           self.pb.ModelMetadataRequest(name="no_such_model"),
                           timeout=CALL_TIMEOUT),
                       grpc.StatusCode.NOT_FOUND, "no_such_model")

    # -- datatypes ----------------------------------------------------------------------------

    def check_datatypes(self):
        c = self.checks
        count = IDENTITY_SHAPE[0] * IDENTITY_SHAPE[1]
        for dtype, (v2_name, fmt, field) in DTYPES.items():
            model = f"id_{dtype}"
            values = sample_values(dtype, count)
            data = pack(dtype, values)

            def raw(model=model, v2_name=v2_name, data=data, dtype=dtype):
                name = f"{v2_name} raw round trip ({model})"
                answer = self.infer(self.raw_request(model, [("input", v2_name, IDENTITY_SHAPE,
                                                              data)], request_id=f"r-{dtype}"))
                out = answer.outputs[0] if len(answer.outputs) == 1 else None
                c.expect(name,
                         out is not None and out.name == "output" and
                         out.datatype == v2_name and list(out.shape) == IDENTITY_SHAPE and
                         list(answer.raw_output_contents) == [data] and
                         not filled_fields(out.contents) and answer.id == f"r-{dtype}" and
                         answer.model_name == model,
                         f"answer {answer}; expected output {v2_name} {IDENTITY_SHAPE} with the "
                         f"request's bytes {data.hex()} in raw_output_contents, id r-{dtype}")
            c.run(f"{v2_name} raw round trip ({model})", raw)

            if field is None:
                # FP16 and BF16 travel only as raw bytes: typed values are refused.
                def typed_refused(model=model, v2_name=v2_name):
                    request = self.pb.ModelInferRequest(model_name=model)
                    tensor = request.inputs.add(name="input", datatype=v2_name,
                                                shape=IDENTITY_SHAPE)
                    tensor.contents.fp32_contents.extend([1.0] * count)
                    self.infer(request)
                c.expect_error(f"{v2_name} in fp32_contents: INVALID_ARGUMENT", typed_refused,
                               grpc.StatusCode.INVALID_ARGUMENT, model, "input")
                continue

            typed_values = [round_float32(v) for v in values] if dtype == "float32" else values

            def typed(model=model, v2_name=v2_name, field=field, typed_values=typed_values,
                      dtype=dtype):
                # Typed in, raw out, as Triton answers (tritonclient's as_numpy reads only
                # raw_output_contents).
                name = f"{v2_name} typed round trip ({model}, {field})"
                request = self.pb.ModelInferRequest(model_name=model)
                tensor = request.inputs.add(name="input", datatype=v2_name, shape=IDENTITY_SHAPE)
                getattr(tensor.contents, field).extend(typed_values)
                answer = self.infer(request)
                out = answer.outputs[0] if len(answer.outputs) == 1 else None
                want = pack(dtype, typed_values)
                c.expect(name,
                         out is not None and out.datatype == v2_name and
                         list(out.shape) == IDENTITY_SHAPE and
                         not filled_fields(out.contents) and
                         list(answer.raw_output_contents) == [want],
                         f"answer {answer}; expected the values {typed_values} as raw bytes "
                         f"{want.hex()} in raw_output_contents and no contents")
            c.run(f"{v2_name} typed round trip ({model}, {field})", typed)

        # BOOL goes into 1-byte integer tensors; the answer names the tensor's own datatype.
        bools = [i % 2 == 0 for i in range(count)]
        for dtype, field in (("uint8", "uint_contents"), ("int8", "int_contents")):
            model = f"id_{dtype}"
            v2_name = DTYPES[dtype][0]

            def bool_raw(model=model, v2_name=v2_name):
                name = f"BOOL raw into {v2_name} ({model})"
                data = bytes(int(b) for b in bools)
                answer = self.infer(self.raw_request(model, [("input", "BOOL", IDENTITY_SHAPE,
                                                              data)]))
                c.expect(name,
                         len(answer.outputs) == 1 and answer.outputs[0].datatype == v2_name and
                         list(answer.raw_output_contents) == [data],
                         f"answer {answer}; expected {v2_name} output with bytes {data.hex()}")
            c.run(f"BOOL raw into {v2_name} ({model})", bool_raw)

            def bool_typed(model=model, v2_name=v2_name, field=field):
                name = f"BOOL bool_contents into {v2_name} ({model})"
                request = self.pb.ModelInferRequest(model_name=model)
                tensor = request.inputs.add(name="input", datatype="BOOL", shape=IDENTITY_SHAPE)
                tensor.contents.bool_contents.extend(bools)
                answer = self.infer(request)
                want = bytes(int(b) for b in bools)
                out = answer.outputs[0] if len(answer.outputs) == 1 else None
                c.expect(name,
                         out is not None and out.datatype == v2_name and
                         not filled_fields(out.contents) and
                         list(answer.raw_output_contents) == [want],
                         f"answer {answer}; expected {v2_name} output with bytes {want.hex()} "
                         "in raw_output_contents")
            c.run(f"BOOL bool_contents into {v2_name} ({model})", bool_typed)

        # A dtype without a v2 name travels raw under its upper-cased NRT name.
        def fp8():
            data = bytes([0x00, 0x38, 0xB8, 0x7E, 0x01, 0x40])
            answer = self.infer(self.raw_request("id_fp8_e4", [("input", "FP8_E4",
                                                                IDENTITY_SHAPE, data)]))
            c.expect("FP8_E4 raw round trip (id_fp8_e4)",
                     len(answer.outputs) == 1 and answer.outputs[0].datatype == "FP8_E4" and
                     list(answer.raw_output_contents) == [data],
                     f"answer {answer}; expected FP8_E4 output with bytes {data.hex()}")
        c.run("FP8_E4 raw round trip (id_fp8_e4)", fp8)

    # -- models against references ------------------------------------------------------------

    def check_mlp(self):
        c = self.checks
        model = read_sim_neff(os.path.join(self.repository, "mlp", "model.neff"))
        rng = random.Random(7)
        x = [round_float32(rng.uniform(-1.0, 1.0)) for _ in range(16)]
        want = mlp_reference(model, x)

        def raw():
            answer = self.infer(self.raw_request("mlp", [("input", "FP32", [1, 16],
                                                          pack("float32", x))], request_id="m1"))
            got = unpack("f", answer.raw_output_contents[0])
            c.expect("MLP raw against the reference", close(got, want) and answer.id == "m1",
                     f"got {got} (id {answer.id!r}), reference {want}")
        c.run("MLP raw against the reference", raw)

        def typed():
            request = self.pb.ModelInferRequest(model_name="mlp")
            request.inputs.add(name="input", datatype="FP32",
                               shape=[1, 16]).contents.fp32_contents.extend(x)
            answer = self.infer(request)
            got = unpack("f", answer.raw_output_contents[0]) if answer.raw_output_contents else []
            c.expect("MLP fp32_contents against the reference", close(got, want),
                     f"got {got}, reference {want}")
        c.run("MLP fp32_contents against the reference", typed)

    def check_classifier(self):
        c = self.checks
        model = read_sim_neff(os.path.join(self.repository, "classifier", "model.neff"))
        rng = random.Random(11)
        ids = [rng.randrange(512) for _ in range(16)]
        mask = [1] * 11 + [0] * 5
        want = classifier_reference(model, ids, mask)
        # float16 of the float32 logits, rounded to nearest even as struct's "e" does.
        want_fp16 = [struct.unpack("<e", struct.pack("<e", v))[0] for v in want]

        def raw():
            answer = self.infer(self.raw_request(
                "classifier", [("input_ids", "INT64", [1, 16], pack("int64", ids)),
                               ("attention_mask", "INT64", [1, 16], pack("int64", mask))]))
            outputs = {out.name: (out.datatype, data)
                       for out, data in zip(answer.outputs, answer.raw_output_contents)}
            logits = unpack("f", outputs["logits"][1])
            logits_fp16 = unpack("e", outputs["logits_fp16"][1])
            c.expect("classifier raw against the reference",
                     outputs["logits"][0] == "FP32" and outputs["logits_fp16"][0] == "FP16" and
                     close(logits, want) and close(logits_fp16, want_fp16, 1e-3, 1e-3),
                     f"got logits {logits}, logits_fp16 {logits_fp16}; reference {want}, "
                     f"{want_fp16}")
        c.run("classifier raw against the reference", raw)

        def typed_subset():
            request = self.pb.ModelInferRequest(model_name="classifier", id="cls-7")
            request.inputs.add(name="input_ids", datatype="INT64",
                               shape=[1, 16]).contents.int64_contents.extend(ids)
            request.inputs.add(name="attention_mask", datatype="INT64",
                               shape=[1, 16]).contents.int64_contents.extend(mask)
            request.outputs.add(name="logits")
            # "timeout" (microseconds in the queue) is honoured, an unknown parameter ignored.
            request.parameters["timeout"].int64_param = 10_000_000
            request.parameters["no_such_parameter"].string_param = "ignored"
            answer = self.infer(request)
            names = [out.name for out in answer.outputs]
            got = unpack("f", answer.raw_output_contents[0]) if answer.raw_output_contents else []
            c.expect("classifier int64_contents, outputs [logits], parameters",
                     names == ["logits"] and close(got, want) and answer.id == "cls-7",
                     f"got outputs {names} with {got} (id {answer.id!r}); expected only "
                     f"logits = {want}, id cls-7")
        c.run("classifier int64_contents, outputs [logits], parameters", typed_subset)

    # -- errors -------------------------------------------------------------------------------

    def check_errors(self):
        c = self.checks
        data = pack("float32", [1.0] * 6)
        invalid = grpc.StatusCode.INVALID_ARGUMENT

        def send(datatype, shape=IDENTITY_SHAPE, payload=data, model="id_float32"):
            return lambda: self.infer(self.raw_request(model, [("input", datatype, shape,
                                                                payload)]))

        c.expect_error("FP64 input: INVALID_ARGUMENT", send("FP64", payload=data * 2), invalid,
                       "id_float32", "input", "FP32", "FP64")
        c.expect_error("BYTES input: INVALID_ARGUMENT", send("BYTES"), invalid, "id_float32",
                       "input", "FP32", "BYTES")
        c.expect_error("INT32 for an FP32 tensor: INVALID_ARGUMENT", send("INT32"), invalid,
                       "id_float32", "input", "FP32", "INT32")
        c.expect_error("BOOL for an FP32 tensor: INVALID_ARGUMENT", send("BOOL"), invalid,
                       "id_float32", "input", "FP32", "BOOL")
        c.expect_error("wrong shape: INVALID_ARGUMENT",
                       send("FP32", shape=[3, 3], payload=pack("float32", [1.0] * 9)), invalid,
                       "id_float32", "input")
        c.expect_error("raw bytes of the wrong size: INVALID_ARGUMENT",
                       send("FP32", payload=data[:-4]), invalid, "id_float32", "input")
        c.expect_error("unknown model: NOT_FOUND", send("FP32", model="no_such_model"),
                       grpc.StatusCode.NOT_FOUND, "no_such_model")

        def unknown_input():
            request = self.raw_request("id_float32", [("no_such_input", "FP32", IDENTITY_SHAPE,
                                                       data)])
            self.infer(request)
        c.expect_error("unknown input: INVALID_ARGUMENT", unknown_input, invalid, "id_float32",
                       "no_such_input")

        def unknown_output():
            self.infer(self.raw_request("id_float32", [("input", "FP32", IDENTITY_SHAPE, data)],
                                        outputs=["no_such_output"]))
        c.expect_error("unknown output: INVALID_ARGUMENT", unknown_output, invalid, "id_float32",
                       "no_such_output")

        def raw_and_contents():
            request = self.raw_request("id_float32", [("input", "FP32", IDENTITY_SHAPE, data)])
            request.inputs[0].contents.fp32_contents.extend([1.0] * 6)
            self.infer(request)
        c.expect_error("raw_input_contents and contents together: INVALID_ARGUMENT",
                       raw_and_contents, invalid, "id_float32", "input")

        def typed_out_of_range():
            request = self.pb.ModelInferRequest(model_name="id_int8")
            request.inputs.add(name="input", datatype="INT8",
                               shape=IDENTITY_SHAPE).contents.int_contents.extend([300] * 6)
            self.infer(request)
        c.expect_error("INT8 value out of range: INVALID_ARGUMENT", typed_out_of_range, invalid,
                       "id_int8", "input")

    # -- streaming ----------------------------------------------------------------------------

    def check_stream(self):
        c = self.checks
        data = pack("float32", [0.5 * i for i in range(6)])
        requests = [
            self.raw_request("id_float32", [("input", "FP32", IDENTITY_SHAPE, data)], "s1"),
            self.raw_request("no_such_model", [("input", "FP32", IDENTITY_SHAPE, data)], "s2"),
            self.raw_request("id_float32", [("input", "INT64", IDENTITY_SHAPE, data)], "s3"),
            self.raw_request("id_float32", [("input", "FP32", IDENTITY_SHAPE, data)], "s4"),
        ]

        def body():
            answers = list(self.stub.ModelStreamInfer(iter(requests), timeout=CALL_TIMEOUT))
            by_id = {}
            errors = []
            for answer in answers:
                if answer.error_message:
                    errors.append(answer.error_message)
                else:
                    by_id[answer.infer_response.id] = answer.infer_response
            c.expect("ModelStreamInfer: 4 answers, 2 of them errors", len(answers) == 4 and
                     len(errors) == 2, f"{len(answers)} answers, errors {errors}")
            good = all(i in by_id and list(by_id[i].raw_output_contents) == [data]
                       for i in ("s1", "s4"))
            c.expect("ModelStreamInfer: s1 and s4 answered with their ids and bytes", good,
                     f"answers by id: {sorted(by_id)}")
            c.expect("ModelStreamInfer: unknown model inside the stream as error_message",
                     any("no_such_model" in e for e in errors), f"errors {errors}")
            c.expect("ModelStreamInfer: wrong datatype inside the stream as error_message",
                     any("input" in e and "INT64" in e and "FP32" in e for e in errors),
                     f"errors {errors}")
        c.run("ModelStreamInfer", body)

    # -- statistics ---------------------------------------------------------------------------

    def check_statistics(self):
        c = self.checks
        data = pack("float32", [1.0] * 6)
        sent_ok, sent_failed = 3, 2

        def body():
            for _ in range(sent_ok):
                self.infer(self.raw_request("stats", [("input", "FP32", IDENTITY_SHAPE, data)]))
            for _ in range(sent_failed):
                try:
                    self.infer(self.raw_request("stats", [("input", "FP32", IDENTITY_SHAPE,
                                                           data[:-4])]))
                except grpc.RpcError:
                    pass
            answer = self.stub.ModelStatistics(self.pb.ModelStatisticsRequest(name="stats"),
                                               timeout=CALL_TIMEOUT)
            stats = [s for s in answer.model_stats if s.name == "stats"]
            if not c.expect("ModelStatistics stats: one entry", len(stats) == 1,
                            f"model_stats {answer}"):
                return
            s = stats[0]
            c.expect("ModelStatistics stats: counts by outcome",
                     s.inference_stats.success.count == sent_ok and
                     s.inference_stats.fail.count == sent_failed and
                     s.inference_count == sent_ok and s.execution_count == sent_ok and
                     s.last_inference > 0,
                     f"success {s.inference_stats.success.count}, fail "
                     f"{s.inference_stats.fail.count}, inference_count {s.inference_count}, "
                     f"execution_count {s.execution_count}, last_inference {s.last_inference}; "
                     f"sent {sent_ok} good and {sent_failed} bad requests")
            everything = self.stub.ModelStatistics(self.pb.ModelStatisticsRequest(),
                                                   timeout=CALL_TIMEOUT)
            names = {s.name for s in everything.model_stats}
            c.expect("ModelStatistics of every model", {"stats", "mlp", "classifier"} <= names,
                     f"models {sorted(names)}")
        c.run("ModelStatistics", body)
        c.expect_error("ModelStatistics unknown model: NOT_FOUND",
                       lambda: self.stub.ModelStatistics(
                           self.pb.ModelStatisticsRequest(name="no_such_model"),
                           timeout=CALL_TIMEOUT),
                       grpc.StatusCode.NOT_FOUND, "no_such_model")

    # -- the repository -----------------------------------------------------------------------

    def check_repository(self):
        c = self.checks

        def index():
            answer = self.stub.RepositoryIndex(self.pb.RepositoryIndexRequest(),
                                               timeout=CALL_TIMEOUT)
            states = {m.name: m.state for m in answer.models}
            c.expect("RepositoryIndex lists every folder",
                     states.get("mlp") == "READY" and "spare" in states and
                     states["spare"] != "READY",
                     f"states {states}; expected mlp READY and spare listed, not READY")
            ready = self.stub.RepositoryIndex(self.pb.RepositoryIndexRequest(ready=True),
                                              timeout=CALL_TIMEOUT)
            names = {m.name for m in ready.models}
            c.expect("RepositoryIndex ready=true lists only ready models",
                     "mlp" in names and "spare" not in names, f"models {sorted(names)}")
        c.run("RepositoryIndex", index)

        def model_ready(name):
            try:
                return self.stub.ModelReady(self.pb.ModelReadyRequest(name=name),
                                            timeout=CALL_TIMEOUT).ready
            except grpc.RpcError as error:
                if error.code() == grpc.StatusCode.NOT_FOUND:
                    return False
                raise

        def load_and_unload():
            self.stub.RepositoryModelLoad(self.pb.RepositoryModelLoadRequest(model_name="spare"),
                                          timeout=CALL_TIMEOUT)
            c.expect("RepositoryModelLoad spare: ModelReady", model_ready("spare"),
                     "spare is not ready after RepositoryModelLoad answered")
            data = pack("float32", [2.0, 4.0, 8.0, 16.0])
            answer = self.infer(self.raw_request("spare", [("input", "FP32", [1, 4], data)]))
            c.expect("RepositoryModelLoad spare: ModelInfer",
                     list(answer.raw_output_contents) == [data], f"answer {answer}")
            self.stub.RepositoryModelUnload(
                self.pb.RepositoryModelUnloadRequest(model_name="spare"), timeout=CALL_TIMEOUT)
            deadline = time.monotonic() + CALL_TIMEOUT
            while model_ready("spare") and time.monotonic() < deadline:
                time.sleep(0.05)
            c.expect("RepositoryModelUnload spare: not ready", not model_ready("spare"),
                     "spare is still ready after RepositoryModelUnload")
            c.expect_error("RepositoryModelUnload spare: ModelInfer NOT_FOUND",
                           lambda: self.infer(self.raw_request(
                               "spare", [("input", "FP32", [1, 4], data)])),
                           grpc.StatusCode.NOT_FOUND, "spare")
        c.run("RepositoryModelLoad and RepositoryModelUnload", load_and_unload)

        c.expect_error("RepositoryModelLoad of a model not in the repository: NOT_FOUND",
                       lambda: self.stub.RepositoryModelLoad(
                           self.pb.RepositoryModelLoadRequest(model_name="no_such_model"),
                           timeout=CALL_TIMEOUT),
                       grpc.StatusCode.NOT_FOUND, "no_such_model")

        def file_parameter():
            request = self.pb.RepositoryModelLoadRequest(model_name="spare")
            request.parameters["file:1/model.neff"].bytes_param = b"NRTSIM1\n{}"
            self.stub.RepositoryModelLoad(request, timeout=CALL_TIMEOUT)
        c.expect_error("RepositoryModelLoad with a file: parameter but no config: INVALID_ARGUMENT",
                       file_parameter, grpc.StatusCode.INVALID_ARGUMENT, "failed to load 'spare'",
                       "file:", "need a 'config' parameter")
        c.expect_error("RepositoryModelUnload of a model not loaded: NOT_FOUND",
                       lambda: self.stub.RepositoryModelUnload(
                           self.pb.RepositoryModelUnloadRequest(model_name="no_such_model"),
                           timeout=CALL_TIMEOUT),
                       grpc.StatusCode.NOT_FOUND, "no_such_model")

    # -- shared memory, as tritonclient's helpers make and use it ------------------------------

    def check_shared_memory(self):
        """tritonclient.utils.shared_memory creates a region with Python's
        multiprocessing.shared_memory (shm_open of "/<key>", O_CREAT|O_EXCL, mode 0600), registers
        it by its key with the leading '/', and names it in each tensor's parameters."""
        c = self.checks
        values = sample_values("int32", 6)
        data = pack("int32", values)
        name = f"py{os.getpid()}"
        region = shared_memory.SharedMemory(name=name, create=True, size=4096)
        try:
            mode = os.stat(f"/dev/shm/{name}").st_mode & 0o777
            c.expect("shared memory: the helper's object is mode 0600", mode == 0o600,
                     f"mode {oct(mode)}")
            region.buf[8:8 + len(data)] = data

            def register_and_infer():
                self.stub.SystemSharedMemoryRegister(
                    self.pb.SystemSharedMemoryRegisterRequest(
                        name="input_data", key=f"/{name}", offset=0, byte_size=2048),
                    timeout=CALL_TIMEOUT)
                self.stub.SystemSharedMemoryRegister(
                    self.pb.SystemSharedMemoryRegisterRequest(
                        name="output_data", key=f"/{name}", offset=2048, byte_size=2048),
                    timeout=CALL_TIMEOUT)
                request = self.pb.ModelInferRequest(model_name="id_int32")
                tensor = request.inputs.add(name="input", datatype="INT32", shape=IDENTITY_SHAPE)
                tensor.parameters["shared_memory_region"].string_param = "input_data"
                tensor.parameters["shared_memory_byte_size"].int64_param = len(data)
                tensor.parameters["shared_memory_offset"].int64_param = 8
                output = request.outputs.add(name="output")
                output.parameters["shared_memory_region"].string_param = "output_data"
                output.parameters["shared_memory_byte_size"].int64_param = len(data)
                answer = self.infer(request)
                c.expect("shared memory: the output keeps an empty raw entry",
                         list(answer.raw_output_contents) == [b""], f"answer {answer}")
                written = bytes(region.buf[2048:2048 + len(data)])
                c.expect("shared memory: the output region holds the input", written == data,
                         f"{unpack('i', written)} != {values}")
                status = self.stub.SystemSharedMemoryStatus(
                    self.pb.SystemSharedMemoryStatusRequest(), timeout=CALL_TIMEOUT)
                c.expect("shared memory: status lists both regions by name",
                         sorted(status.regions) == ["input_data", "output_data"]
                         and status.regions["input_data"].key == f"/{name}",
                         f"status {status}")
                # What tritonclient's examples call first: no CUDA regions, nothing to undo.
                self.stub.CudaSharedMemoryUnregister(self.pb.CudaSharedMemoryUnregisterRequest(),
                                                     timeout=CALL_TIMEOUT)
                self.stub.SystemSharedMemoryUnregister(
                    self.pb.SystemSharedMemoryUnregisterRequest(), timeout=CALL_TIMEOUT)
                status = self.stub.SystemSharedMemoryStatus(
                    self.pb.SystemSharedMemoryStatusRequest(), timeout=CALL_TIMEOUT)
                c.expect("shared memory: unregistered", not status.regions, f"status {status}")
            c.run("shared memory through SystemSharedMemoryRegister and ModelInfer",
                  register_and_infer)
        finally:
            region.close()
            region.unlink()


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
