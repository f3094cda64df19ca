"""The inference checks of tritonclient_style_test.py: identity models of every datatype and the
shipped and batched models against their references, over gRPC and REST, as tritonclient's
InferInput and InferResult.as_numpy do them.
"""

import os

import numpy as np

from v2_test_support import (CALL_TIMEOUT, classifier_reference, close, http_call, mlp_reference,
                             read_sim_neff)
from tritonclient_style_support import (IDENTITIES, BATCHED_IN, BATCHED_OUT, numpy_bytes,
                                        grpc_as_numpy, HttpResult, http_infer_request, exactly,
                                        describe, identity_values, identity_expected)


class InferenceChecks:
    """Inference as tritonclient does it, over gRPC and REST: identity models of each datatype and
    the shipped and batched models against their references. Used as a base of
    TritonClientStyleTest, whose attributes (pb, stub, http, checks, repository) it reads."""

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
