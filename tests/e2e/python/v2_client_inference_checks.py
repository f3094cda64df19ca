"""The inference checks of v2_client_test.py: ModelInfer and ModelStreamInfer with Python's
grpcio on every datatype, the MLP and the classifier against references, and each error with
its gRPC code.
"""

import os
import random
import struct

import grpc

from v2_test_support import (CALL_TIMEOUT, classifier_reference, close, mlp_reference,
                             read_sim_neff, round_float32)
from v2_client_values import (DTYPES, IDENTITY_SHAPE, sample_values, pack, unpack, filled_fields)


class InferenceChecks:
    """ModelInfer and ModelStreamInfer: every datatype, the MLP and the classifier against
    references, each error with its gRPC code, and a stream. Used as a base of V2ClientTest, whose
    attributes (pb, stub, checks, repository) and request helpers it uses."""

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
