"""The checks of v2_client_test.py on the service's other RPCs: health and metadata, statistics,
the repository extension and system shared memory, with Python's grpcio.
"""

import os
import time
from multiprocessing import shared_memory

import grpc

from v2_test_support import CALL_TIMEOUT
from v2_client_values import (IDENTITY_SHAPE, sample_values, pack, unpack)


class ServiceChecks:
    """The service's other RPCs: health and metadata, statistics, the repository extension and
    system shared memory. Used as a base of V2ClientTest, whose attributes and request helpers it
    uses."""

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
