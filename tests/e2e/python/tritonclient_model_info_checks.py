"""The model information checks of tritonclient_style_test.py: get_model_metadata and
get_model_config over gRPC and REST, and the agreement image_client.py's parse_model reads.
"""

import json

import grpc
from google.protobuf import json_format

from v2_test_support import (CALL_TIMEOUT, http_call)
from tritonclient_style_support import EXPECTED_MODELS


class ModelInformationChecks:
    """get_model_metadata and get_model_config as tritonclient and image_client.py read them, over
    gRPC and REST. Used as a base of TritonClientStyleTest, whose attributes it reads."""

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
