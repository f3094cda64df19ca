#!/usr/bin/python3
"""The daemon's models as perf_analyzer reads them, over gRPC and REST.

perf_analyzer is not installed: this test re-implements, in Python, the steps by which it learns
a model before a run and reads the server's statistics during one, as established from its
public source (github.com/triton-inference-server/perf_analyzer, commit
263c5f6e0c7a6c15472a54409174981f67930cfe). The code is our own; the comments name the function
each step stands for:

1. Fetching (src/perf_analyzer.cc, PerfAnalyzer::CreateAnalyzerObjects, then
   src/client_backend/triton/triton_client_backend.cc, TritonClientBackend::ModelMetadata and
   ::ModelConfig). HTTP: GET v2/models/NAME[/versions/V] and .../config, the body parsed as
   JSON. gRPC: ModelMetadataRequest / ModelConfigRequest, the answer turned into JSON by
   protobuf's MessageToJsonString with preserve_proto_field_names and
   always_print_primitive_fields (so 64-bit integers are strings and false/0 are printed), and
   for the config the member "config" of that JSON.
2. Parsing (src/model_parser.cc, ModelParser::InitTriton): name from the metadata; the
   scheduler from the config (sequence_batching: SEQUENCE, else dynamic_batching: DYNAMIC, else
   NONE; ensembles by platform "ensemble"); max_batch_size through GetInt (a number or a string
   std::stoll accepts); model_transaction_policy["decoupled"]; the inputs and outputs from the
   metadata, dropping the first dimension when max_batch_size > 0, every dimension through
   GetInt, -1 meaning a dynamic shape the user must give; then each config input must name a
   metadata input ("no metadata found for input tensor"), with is_shape_tensor and optional
   read as booleans when present; the same for outputs; response_cache["enable"]. rapidjson's
   operator[] on a missing member and GetString/GetBool/GetUint64 on a value of another type are
   assertions (a crash), so each is a failed step here.
3. Statistics (src/inference_profiler.cc: GetServerSideStatus, SummarizeServerStatsHelper,
   DetermineStatsModelVersion, ReportServerSideStats; and TritonClientBackend::ParseStatistics,
   which on HTTP reads every count and ns with GetUint64 and the version with GetString). The
   statistics are read before and after the requests, keyed by (name, version); with no version
   asked for, the version is the one whose queue count grew, parsed with std::stoll, and the
   entry is then looked up again by std::to_string of that number; the differences must have
   equal compute_input, compute_infer and compute_output counts ("Server side statistics
   compute counts must be the same.").

Models: the shipped examples (deploy/models: mlp and classifier), a batched MLP (variants of 1
and 4 rows, max_batch_size 8, dynamic_batching) and an identity model with a version label
that is not a number (its v2 version is the label's documented 16-digit number).

Every check prints `ok: NAME` or `FAIL: NAME: why`; exit
0 when all passed, 1 otherwise, 2 for a bad setup. Usage (ctest passes these):
  perf_analyzer_reading_test.py --neuron-serve=PATH --neuronctl=PATH --nrtsim=PATH
      --proto-dir=DIR --models-dir=DIR
"""

import hashlib
import json
import re
import struct
import sys

from google.protobuf import json_format

from v2_test_support import (CALL_TIMEOUT, copy_shipped_models, http_call, run_daemon_test,
                             write_batched_mlp, write_model)

LABEL = "2024-06-01"
REQUESTS = 4          # inferences sent between the two statistics reads
BATCH = 2             # perf_analyzer -b for the batched model
INT64_RANGE = (-(2**63), 2**63 - 1)


def label_number(label):
    """The v2 version of a label that is not a plain decimal (docs/v2-protocol.md, "Versions are numbers on
    this protocol"; core/serving/model/version_number.h)."""
    digest = hashlib.sha256(label.encode()).digest()
    return str(10**15 + int.from_bytes(digest[:8], "big") % (8 * 10**15))


# What perf_analyzer must make of each model: (metadata name, scheduler, max_batch_size, inputs,
# outputs as {name: (datatype, shape after the batch dimension is dropped)}, first metadata dim
# of a batched model's tensors, v2 version).
EXPECTED = {
    "mlp": ("NONE", 0, {"input": ("FP32", [1, 16])}, {"output": ("FP32", [1, 8])}, "1"),
    "classifier": ("NONE", 0,
                   {"input_ids": ("INT64", [1, 16]), "attention_mask": ("INT64", [1, 16])},
                   {"logits": ("FP32", [1, 4]), "logits_fp16": ("FP16", [1, 4])}, "1"),
    "mlpb": ("DYNAMIC", 8, {"input": ("FP32", [8])}, {"output": ("FP32", [4])}, "1"),
    "labeled": ("NONE", 0, {"input": ("FP32", [1, 4])}, {"output": ("FP32", [1, 4])},
                label_number(LABEL)),
}


class ParseError(Exception):
    """A step perf_analyzer would fail: a cb::Error it returns, a std::stoll that throws, or a
    rapidjson assertion (a missing member, a value of the wrong type)."""


# ---------------------------------------------------------------------------------------------
# rapidjson as perf_analyzer uses it.


def member(value, key, where):
    """value[key]: rapidjson's operator[] asserts that the member exists."""
    if not isinstance(value, dict) or key not in value:
        raise ParseError(f"{where}: no member {key!r} (rapidjson's operator[] asserts) in "
                         f"{json.dumps(value)[:300]}")
    return value[key]


def get_string(value, where):
    if not isinstance(value, str):
        raise ParseError(f"{where}: GetString of {value!r}, not a string")
    return value


def get_bool(value, where):
    if not isinstance(value, bool):
        raise ParseError(f"{where}: GetBool of {value!r}, not a boolean")
    return value


def get_uint64(value, where):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**64:
        raise ParseError(f"{where}: GetUint64 of {value!r}, not an unsigned 64-bit number")
    return value


def get_array(value, where):
    if not isinstance(value, list):
        raise ParseError(f"{where}: GetArray of {value!r}, not an array")
    return value


def stoll(text, where):
    """std::stoll: leading white space, a sign, decimal digits; the rest is ignored. Throws
    (std::invalid_argument, std::out_of_range) when no digit comes or the value overflows."""
    match = re.match(r"\s*([+-]?[0-9]+)", text)
    if not match:
        raise ParseError(f"{where}: std::stoll({text!r}) throws std::invalid_argument")
    number = int(match.group(1))
    if not INT64_RANGE[0] <= number <= INT64_RANGE[1]:
        raise ParseError(f"{where}: std::stoll({text!r}) throws std::out_of_range")
    return number


def get_int(value, where):
    """ModelParser::GetInt: a string through std::stoll, or an integer JSON number."""
    if isinstance(value, str):
        return stoll(value, where)
    if isinstance(value, int) and not isinstance(value, bool) and \
            INT64_RANGE[0] <= value <= INT64_RANGE[1]:
        return value
    raise ParseError(f"{where}: failed to parse the integer value {value!r}")


def message_to_json_string(message):
    """protobuf's MessageToJsonString with preserve_proto_field_names and
    always_print_primitive_fields, as TritonClientBackend calls it (Python's json_format is the
    same printer; its option was renamed in protobuf 5.26)."""
    try:
        return json_format.MessageToJson(message, preserving_proto_field_name=True,
                                         including_default_value_fields=True)
    except TypeError:
        return json_format.MessageToJson(message, preserving_proto_field_name=True,
                                         always_print_fields_with_no_presence=True)


# ---------------------------------------------------------------------------------------------
# The client backends (triton_client_backend.cc).


class GrpcBackend:
    protocol = "gRPC"

    def __init__(self, pb, stub):
        self.pb = pb
        self.stub = stub

    def model_metadata(self, name, version):
        answer = self.stub.ModelMetadata(self.pb.ModelMetadataRequest(name=name, version=version),
                                         timeout=CALL_TIMEOUT)
        return json.loads(message_to_json_string(answer))

    def model_config(self, name, version):
        answer = self.stub.ModelConfig(self.pb.ModelConfigRequest(name=name, version=version),
                                       timeout=CALL_TIMEOUT)
        return member(json.loads(message_to_json_string(answer)), "config", "ModelConfig")

    def model_statistics(self, name, version):
        """ParseStatistics(const inference::ModelStatisticsResponse&): the fields by accessor."""
        answer = self.stub.ModelStatistics(
            self.pb.ModelStatisticsRequest(name=name, version=version), timeout=CALL_TIMEOUT)
        stats = {}
        for entry in answer.model_stats:
            infer = entry.inference_stats
            stats[(entry.name, entry.version)] = {
                "inference_count": entry.inference_count,
                "execution_count": entry.execution_count,
                "success_count": infer.success.count, "queue_count": infer.queue.count,
                "compute_input_count": infer.compute_input.count,
                "compute_infer_count": infer.compute_infer.count,
                "compute_output_count": infer.compute_output.count,
                "cumm_time_ns": infer.success.ns, "queue_time_ns": infer.queue.ns,
                "compute_input_time_ns": infer.compute_input.ns,
                "compute_infer_time_ns": infer.compute_infer.ns,
                "compute_output_time_ns": infer.compute_output.ns,
                "cache_hit_count": infer.cache_hit.count, "cache_hit_time_ns": infer.cache_hit.ns,
                "cache_miss_count": infer.cache_miss.count,
                "cache_miss_time_ns": infer.cache_miss.ns,
            }
        return stats

    def infer(self, model, version, tensors):
        """tensors: (name, datatype, shape, bytes); raw_input_contents, as tritonclient's C++
        gRPC client sends them."""
        request = self.pb.ModelInferRequest(model_name=model, model_version=version)
        for name, datatype, shape, data in tensors:
            request.inputs.add(name=name, datatype=datatype, shape=shape)
            request.raw_input_contents.append(data)
        self.stub.ModelInfer(request, timeout=CALL_TIMEOUT)


# ParseStatistics(const rapidjson::Document&): (field, path under the model's entry).
HTTP_STATISTICS = [
    ("inference_count", ["inference_count"]), ("execution_count", ["execution_count"]),
    ("success_count", ["inference_stats", "success", "count"]),
    ("queue_count", ["inference_stats", "queue", "count"]),
    ("compute_input_count", ["inference_stats", "compute_input", "count"]),
    ("compute_infer_count", ["inference_stats", "compute_infer", "count"]),
    ("compute_output_count", ["inference_stats", "compute_output", "count"]),
    ("cumm_time_ns", ["inference_stats", "success", "ns"]),
    ("queue_time_ns", ["inference_stats", "queue", "ns"]),
    ("compute_input_time_ns", ["inference_stats", "compute_input", "ns"]),
    ("compute_infer_time_ns", ["inference_stats", "compute_infer", "ns"]),
    ("compute_output_time_ns", ["inference_stats", "compute_output", "ns"]),
    ("cache_hit_count", ["inference_stats", "cache_hit", "count"]),
    ("cache_hit_time_ns", ["inference_stats", "cache_hit", "ns"]),
    ("cache_miss_count", ["inference_stats", "cache_miss", "count"]),
    ("cache_miss_time_ns", ["inference_stats", "cache_miss", "ns"]),
]


class HttpBackend:
    protocol = "REST"

    def __init__(self, address):
        self.address = address

    def get(self, path):
        answer = http_call(self.address, "GET", path)
        if answer.status != 200:
            raise ParseError(f"GET {path}: HTTP {answer.status}: {answer.body[:300]!r}")
        try:
            return answer.json()
        except ValueError as error:
            raise ParseError(f"GET {path}: not JSON ({error}): {answer.body[:300]!r}") from None

    @staticmethod
    def model_path(name, version):
        return f"/v2/models/{name}" + (f"/versions/{version}" if version else "")

    def model_metadata(self, name, version):
        return self.get(self.model_path(name, version))

    def model_config(self, name, version):
        return self.get(self.model_path(name, version) + "/config")

    def model_statistics(self, name, version):
        document = self.get(self.model_path(name, version) + "/stats")
        stats = {}
        for index, entry in enumerate(get_array(member(document, "model_stats", "stats"),
                                                "model_stats")):
            where = f"model_stats[{index}]"
            key = (get_string(member(entry, "name", where), f"{where}.name"),
                   get_string(member(entry, "version", where), f"{where}.version"))
            values = {}
            for field, path in HTTP_STATISTICS:
                value = entry
                for step in path:
                    value = member(value, step, f"{where}." + ".".join(path))
                values[field] = get_uint64(value, f"{where}." + ".".join(path))
            stats[key] = values
        return stats

    def infer(self, model, version, tensors):
        """Binary inputs after the JSON, as tritonclient's C++ HTTP client sends raw data."""
        request = {"inputs": [{"name": name, "shape": shape, "datatype": datatype,
                               "parameters": {"binary_data_size": len(data)}}
                              for name, datatype, shape, data in tensors],
                   "parameters": {"binary_data_output": True}}
        header = json.dumps(request).encode()
        answer = http_call(self.address, "POST", self.model_path(model, version) + "/infer",
                           header + b"".join(t[3] for t in tensors),
                           {"Inference-Header-Content-Length": str(len(header))})
        if answer.status != 200:
            raise ParseError(f"infer {model}: HTTP {answer.status}: {answer.body[:300]!r}")


# ---------------------------------------------------------------------------------------------
# ModelParser::InitTriton.


class ModelParser:

    def __init__(self):
        self.model_name = None
        self.model_version = None
        self.scheduler_type = "NONE"
        self.max_batch_size = 0
        self.is_decoupled = False
        self.response_cache_enabled = False
        self.composing_models = []
        self.inputs = {}   # name -> {"datatype", "shape", "is_dynamic", "is_shape_tensor",
        self.outputs = {}  #          "is_optional"}

    def init_triton(self, metadata, config, model_version):
        self.model_name = get_string(member(metadata, "name", "metadata"), "metadata.name")
        self.model_version = model_version

        # DetermineComposingModelMap: no BLS models are given; AddEnsembleComposingModels
        # follows the steps of an ensemble, which a neuron model must not claim to be.
        if "platform" in config and \
                get_string(config["platform"], "config.platform") == "ensemble":
            steps = member(member(config, "ensemble_scheduling", "config"), "step",
                           "ensemble_scheduling")
            self.composing_models = [get_string(member(s, "model_name", "step"), "model_name")
                                     for s in get_array(steps, "step")]

        # DetermineSchedulerType.
        if self.composing_models:
            self.scheduler_type = "ENSEMBLE"
        elif "sequence_batching" in config:
            self.scheduler_type = "SEQUENCE"
        elif "dynamic_batching" in config:
            self.scheduler_type = "DYNAMIC"
        else:
            self.scheduler_type = "NONE"

        self.max_batch_size = 0
        if "max_batch_size" in config:
            self.max_batch_size = get_int(config["max_batch_size"], "config.max_batch_size")

        if "model_transaction_policy" in config:
            self.is_decoupled = get_bool(
                member(config["model_transaction_policy"], "decoupled",
                       "model_transaction_policy"), "model_transaction_policy.decoupled")

        self.inputs = self.read_metadata_tensors(metadata, "inputs")
        for tensor in get_array(config.get("input", []), "config.input"):
            name = get_string(member(tensor, "name", "config.input"), "config.input.name")
            if name not in self.inputs:
                raise ParseError(f"no metadata found for input tensor {name}")
            if "is_shape_tensor" in tensor:
                self.inputs[name]["is_shape_tensor"] = get_bool(tensor["is_shape_tensor"],
                                                                f"input {name} is_shape_tensor")
            self.inputs[name]["is_optional"] = (
                get_bool(tensor["optional"], f"input {name} optional")
                if "optional" in tensor else False)

        self.outputs = self.read_metadata_tensors(metadata, "outputs")
        for tensor in get_array(config.get("output", []), "config.output"):
            name = get_string(member(tensor, "name", "config.output"), "config.output.name")
            if name not in self.outputs:
                raise ParseError(f"no metadata found for output tensor {name}")
            if "is_shape_tensor" in tensor:
                self.outputs[name]["is_shape_tensor"] = get_bool(
                    tensor["is_shape_tensor"], f"output {name} is_shape_tensor")

        if "response_cache" in config:
            self.response_cache_enabled = get_bool(
                member(config["response_cache"], "enable", "response_cache"),
                "response_cache.enable")

    def read_metadata_tensors(self, metadata, key):
        """The metadata's tensors, the first dimension skipped when max_batch_size > 0."""
        tensors = {}
        for tensor in get_array(metadata.get(key, []), f"metadata.{key}"):
            name = get_string(member(tensor, "name", key), f"{key}.name")
            entry = {"datatype": get_string(member(tensor, "datatype", name), f"{name} datatype"),
                     "shape": [], "is_dynamic": False, "is_shape_tensor": False,
                     "is_optional": False}
            skip = self.max_batch_size > 0
            for dim in get_array(member(tensor, "shape", name), f"{name} shape"):
                if skip:
                    skip = False
                    continue
                value = get_int(dim, f"{name} shape")
                entry["is_dynamic"] = entry["is_dynamic"] or value == -1
                entry["shape"].append(value)
            tensors[name] = entry
        return tensors


# ---------------------------------------------------------------------------------------------
# InferenceProfiler's reading of the statistics.


def determine_stats_model_version(identifier, start, end):
    """DetermineStatsModelVersion: (the version number, whether several versions grew)."""
    name, version = identifier
    number = -1
    multiple = False
    if not version:
        for (end_name, end_version), end_stat in end.items():
            if end_name != name:
                continue
            start_queue = start.get((end_name, end_version), {}).get("queue_count", 0)
            if end_stat["queue_count"] > start_queue:
                this_version = stoll(end_version, f"statistics version of {name}")
                if number != -1:
                    multiple = True
                number = max(number, this_version)
    elif identifier in end:
        number = stoll(version, f"statistics version of {name}")
    if number == -1:
        raise ParseError("failed to find the requested model version")
    return number, multiple


def summarize_server_stats(identifier, start, end):
    """SummarizeServerStatsHelper: the differences of the entry (name, to_string(version))."""
    number, multiple = determine_stats_model_version(identifier, start, end)
    this_id = (identifier[0], str(number))
    if this_id not in end:
        raise ParseError(f"missing statistics for requested model {this_id}; entries "
                         f"{sorted(end)}")
    before = start.get(this_id, {})
    return {field: value - before.get(field, 0) for field, value in end[this_id].items()}, \
        number, multiple


def report_server_side_stats(stats):
    """ReportServerSideStats' check on a model that is not an ensemble."""
    if stats["success_count"] == 0:
        return
    if not (stats["compute_input_count"] == stats["compute_infer_count"] ==
            stats["compute_output_count"]):
        raise ParseError("Server side statistics compute counts must be the same. "
                         f"({stats['compute_input_count']}, {stats['compute_infer_count']}, "
                         f"{stats['compute_output_count']})")


# ---------------------------------------------------------------------------------------------
# The checks.


def input_bytes(datatype, count):
    """Values perf_analyzer-like: floats varying, integers 1 (valid ids and a kept mask)."""
    if datatype == "FP32":
        return struct.pack(f"<{count}f", *[0.25 * (i % 7) - 0.5 for i in range(count)])
    if datatype == "INT64":
        return struct.pack(f"<{count}q", *([1] * count))
    raise ValueError(f"no sample data for {datatype}")


class PerfAnalyzerReadingTest:

    def __init__(self, checks):
        self.checks = checks

    def run_model(self, backend, model, version_asked):
        c = self.checks
        scheduler, mbs, inputs, outputs, version = EXPECTED[model]
        label = f"{backend.protocol} {model}" + (f" -x {version_asked}" if version_asked else "")
        parser = ModelParser()
        state = {}

        def fetch_and_parse():
            metadata = backend.model_metadata(model, version_asked)
            config = backend.model_config(model, version_asked)
            parser.init_triton(metadata, config, version_asked)
            state["metadata"] = metadata
        c.run(f"{label}: ModelMetadata, ModelConfig and InitTriton", fetch_and_parse)
        if "metadata" not in state:
            return
        c.ok(f"{label}: ModelMetadata, ModelConfig and InitTriton")

        got_inputs = {n: (t["datatype"], t["shape"]) for n, t in parser.inputs.items()}
        got_outputs = {n: (t["datatype"], t["shape"]) for n, t in parser.outputs.items()}
        c.expect(f"{label}: name, scheduler, max_batch_size, tensors",
                 parser.model_name == model and parser.scheduler_type == scheduler and
                 parser.max_batch_size == mbs and got_inputs == inputs and
                 got_outputs == outputs,
                 f"name {parser.model_name!r}, scheduler {parser.scheduler_type}, "
                 f"max_batch_size {parser.max_batch_size}, inputs {got_inputs}, outputs "
                 f"{got_outputs}; expected {model!r}, {scheduler}, {mbs}, {inputs}, {outputs}")
        flags = {n: (t["is_optional"], t["is_shape_tensor"], t["is_dynamic"])
                 for n, t in parser.inputs.items()}
        c.expect(f"{label}: not decoupled, no response cache, inputs required, no shape "
                 "tensors, no dynamic dimension to give with --shape",
                 not parser.is_decoupled and not parser.response_cache_enabled and
                 all(flag == (False, False, False) for flag in flags.values()) and
                 not any(t["is_shape_tensor"] or t["is_dynamic"]
                         for t in parser.outputs.values()),
                 f"decoupled {parser.is_decoupled}, response cache "
                 f"{parser.response_cache_enabled}, inputs (optional, shape tensor, dynamic) "
                 f"{flags}, outputs {parser.outputs}")
        if mbs > 0:
            # perf_analyzer drops the first metadata dimension of a batched model blindly:
            # it must be the batch dimension, -1, as Triton shows it.
            firsts = [t["shape"][0] if t.get("shape") else None
                      for t in state["metadata"].get("inputs", []) +
                      state["metadata"].get("outputs", [])]
            # (A string on gRPC, where MessageToJsonString prints int64 so; a number on REST.)
            c.expect(f"{label}: the dimension dropped is the batch dimension -1",
                     firsts and all(d in (-1, "-1") for d in firsts),
                     f"first metadata dimensions {firsts}")
        # Not read by perf_analyzer (it parses the statistics' versions, below), but by the
        # clients that pass a version back to it with -x: each a decimal number.
        versions = state["metadata"].get("versions")
        c.expect(f"{label}: metadata versions are decimal numbers",
                 versions == [version] and
                 all(isinstance(v, str) and re.fullmatch(r"0|[1-9][0-9]*", v) for v in versions),
                 f"versions {versions}, expected [{version!r}]")

        def statistics():
            identifier = (parser.model_name, parser.model_version)
            start = backend.model_statistics(*identifier)  # GetServerSideStatus
            rows = BATCH if parser.max_batch_size > 0 else None
            tensors = []
            for name, tensor in parser.inputs.items():
                shape = ([rows] if rows else []) + tensor["shape"]
                count = 1
                for dim in shape:
                    count *= dim
                tensors.append((name, tensor["datatype"], shape,
                                input_bytes(tensor["datatype"], count)))
            for _ in range(REQUESTS):
                backend.infer(parser.model_name, parser.model_version, tensors)
            end = backend.model_statistics(*identifier)
            stats, number, multiple = summarize_server_stats(identifier, start, end)
            report_server_side_stats(stats)
            executions_ok = (stats["execution_count"] == REQUESTS if not rows
                             else 1 <= stats["execution_count"] <= REQUESTS)
            c.expect(f"{label}: statistics as perf_analyzer reads them",
                     str(number) == version and not multiple and
                     stats["success_count"] == REQUESTS and stats["queue_count"] == REQUESTS and
                     stats["compute_input_count"] == REQUESTS and executions_ok and
                     # Triton counts each row of a batched request as one inference
                     # (grpc_service.proto, ModelStatistics.inference_count).
                     stats["inference_count"] == REQUESTS * (rows or 1) and
                     stats["cumm_time_ns"] > 0 and stats["compute_infer_time_ns"] > 0,
                     f"version {number} (several: {multiple}), expected {version}; "
                     f"differences over {REQUESTS} requests of {rows or 1} rows: {stats}")
        c.run(f"{label}: statistics as perf_analyzer reads them", statistics)


def build_repository(neuronctl, models_dir, repository):
    copy_shipped_models(models_dir, repository)
    write_batched_mlp(neuronctl, repository, "mlpb", ["--mlp", "8,16,4", "--seed", "11"],
                      "max_batch_size: 8\ndynamic_batching { }\n")
    write_model(neuronctl, repository, "labeled", ["--identity", "1,4"],
                config=f'name: "labeled"\nversion: "{LABEL}"\nreplicas: 1\n')


def run_checks(checks, pb, pb_grpc, channel, daemon, repository):
    del repository  # the models are named below
    test = PerfAnalyzerReadingTest(checks)
    backends = [GrpcBackend(pb, pb_grpc.GRPCInferenceServiceStub(channel)),
                HttpBackend(daemon.http_address)]
    for backend in backends:
        for model in ("mlp", "classifier", "mlpb", "labeled"):
            test.run_model(backend, model, "")
        # perf_analyzer -x VERSION: the version asked for by its number.
        test.run_model(backend, "labeled", EXPECTED["labeled"][4])
        test.run_model(backend, "mlpb", "1")


if __name__ == "__main__":
    sys.exit(run_daemon_test(__doc__.split("\n", 1)[0], "perf-analyzer-reading-",
                             lambda args, repository: build_repository(
                                 args.neuronctl, args.models_dir, repository),
                             run_checks, models_dir=True, http=True))
