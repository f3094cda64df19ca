"""What the Python end-to-end tests of the Open Inference Protocol share.

The stubs (generated at test time from the project's proto/ with grpc_tools.protoc, Debian's
python3-grpc-tools), the sim models (`neuronctl sim-model`, or written from their documented
format, as Triton's `simple` add/sub model is), the daemon on the simulated runtime
on loopback ports it picks itself, a plain HTTP client for the REST front end, the references of
the sim MLP and classifier, and the check counter that prints one line per check.

Used by v2_client_test.py, tritonclient_style_test.py, triton_examples_test.py and
perf_analyzer_reading_test.py (each run by ctest with Debian's /usr/bin/python3; see
tests/e2e/CMakeLists.txt).
"""

import argparse
import http.client
import importlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import struct
import tempfile
import time

import grpc

# Seconds; generous for a loaded CI machine, short enough that a hang shows.
START_DEADLINE = 60.0
CALL_TIMEOUT = 20.0


class Checks:
    """Counts and prints the outcome of each check."""

    def __init__(self):
        self.failed = []
        self.passed = 0

    def ok(self, name):
        self.passed += 1
        print(f"ok: {name}", flush=True)

    def fail(self, name, why):
        self.failed.append(name)
        print(f"FAIL: {name}: {why}", flush=True)

    def expect(self, name, condition, why):
        if condition:
            self.ok(name)
        else:
            self.fail(name, why)
        return condition

    def run(self, name, body):
        """Runs body(); an exception (an RPC error above all) fails the check `name`."""
        try:
            body()
        except grpc.RpcError as error:
            self.fail(name, f"the call failed: {error.code().name}: {error.details()}")
        except Exception as error:  # pylint: disable=broad-except
            self.fail(name, f"{type(error).__name__}: {error}")

    def expect_error(self, name, call, code, *words):
        """call() must fail with `code` and a message containing every one of `words`."""
        try:
            call()
        except grpc.RpcError as error:
            problems = []
            if error.code() != code:
                problems.append(f"code {error.code().name}, expected {code.name}")
            missing = [word for word in words if word not in (error.details() or "")]
            if missing:
                problems.append(f"message lacks {missing}")
            if problems:
                self.fail(name, "; ".join(problems) + f" (message: {error.details()!r})")
            else:
                self.ok(name)
            return
        self.fail(name, f"the call succeeded; expected {code.name}")

    def summary(self):
        """Prints the totals; the exit status of a test: 0 when every check passed, else 1."""
        print(f"{self.passed} checks passed, {len(self.failed)} failed", flush=True)
        for name in self.failed:
            print(f"  failed: {name}", flush=True)
        return 1 if self.failed else 0


# ---------------------------------------------------------------------------------------------
# Setting up: stubs, models, the daemon.


def generate_stubs(proto_dir, out_dir):
    """Python modules of inference/grpc_service.proto and the inference/model_config.proto it
    imports (ModelConfigResponse carries an inference.ModelConfig), generated into out_dir."""
    os.makedirs(out_dir)
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{proto_dir}",
                    f"--python_out={out_dir}", f"--grpc_python_out={out_dir}",
                    os.path.join(proto_dir, "inference", "grpc_service.proto"),
                    os.path.join(proto_dir, "inference", "model_config.proto")],
                   check=True)
    sys.path.insert(0, out_dir)
    return (importlib.import_module("inference.grpc_service_pb2"),
            importlib.import_module("inference.grpc_service_pb2_grpc"))


def sim_model(neuronctl, sim_model_flags, out):
    """Writes one sim NEFF with `neuronctl sim-model FLAGS --out OUT`."""
    subprocess.run([neuronctl, "sim-model", *sim_model_flags, "--out", out], check=True,
                   stdout=subprocess.DEVNULL)


def write_model(neuronctl, repository, name, sim_model_flags, config=None):
    """The repository folder `name`: model.neff from sim-model and a config.pbtxt (by default
    the name and one replica)."""
    folder = os.path.join(repository, name)
    os.makedirs(folder)
    sim_model(neuronctl, sim_model_flags, os.path.join(folder, "model.neff"))
    with open(os.path.join(folder, "config.pbtxt"), "w", encoding="utf-8") as out:
        out.write(config if config is not None else f'name: "{name}"\nreplicas: 1\n')


SIM_NEFF_MAGIC = b"NRTSIM1\n"


def write_sim_neff(path, description):
    """A sim NEFF (sim/README.md, "Model files"): the magic, then `description` as JSON."""
    with open(path, "wb") as neff:
        neff.write(SIM_NEFF_MAGIC + json.dumps(description).encode("utf-8"))


def write_add_sub_model(repository, name, dtype, shape):
    """The repository folder `name` holding the model Triton's examples call `simple`: inputs
    INPUT0 and INPUT1 of `dtype` (a sim dtype, e.g. "int32") and `shape`, outputs OUTPUT0 =
    INPUT0 + INPUT1 and OUTPUT1 = INPUT0 - INPUT1 (the sim's integer ops wrap to the dtype), and
    a config.pbtxt of the name and one replica."""
    folder = os.path.join(repository, name)
    os.makedirs(folder)
    tensor = {"dtype": dtype, "shape": list(shape)}
    write_sim_neff(os.path.join(folder, "model.neff"), {
        "name": name,
        "inputs": [{"name": "INPUT0", **tensor}, {"name": "INPUT1", **tensor}],
        "outputs": [{"name": "OUTPUT0", **tensor}, {"name": "OUTPUT1", **tensor}],
        "ops": [{"op": "add", "inputs": ["INPUT0", "INPUT1"], "output": "OUTPUT0"},
                {"op": "sub", "inputs": ["INPUT0", "INPUT1"], "output": "OUTPUT1"}],
    })
    with open(os.path.join(folder, "config.pbtxt"), "w", encoding="utf-8") as out:
        out.write(f'name: "{name}"\nreplicas: 1\n')


def copy_shipped_models(models_dir, repository):
    """The shipped example models (deploy/models: mlp and classifier), as they are."""
    os.makedirs(repository, exist_ok=True)
    for model in ("mlp", "classifier"):
        shutil.copytree(os.path.join(models_dir, model), os.path.join(repository, model))


def write_batched_mlp(neuronctl, repository, name, mlp_flags, config_tail):
    """A batched sim MLP `name`: one network (`neuronctl sim-model` flags `mlp_flags`) compiled
    for 1 and for 4 rows, b1.neff and b4.neff, and a config.pbtxt naming both variants, followed
    by `config_tail` (max_batch_size, dynamic_batching, ...)."""
    folder = os.path.join(repository, name)
    os.makedirs(folder)
    for rows in (1, 4):
        sim_model(neuronctl, [*mlp_flags, "--batch", str(rows)],
                  os.path.join(folder, f"b{rows}.neff"))
    with open(os.path.join(folder, "config.pbtxt"), "w", encoding="utf-8") as out:
        out.write('variant { file: "b1.neff" batch_size: 1 }\n'
                  'variant { file: "b4.neff" batch_size: 4 }\n' + config_tail)


def read_sim_neff(path):
    """The JSON description of a sim NEFF: the magic "NRTSIM1\\n", then one JSON object."""
    with open(path, "rb") as neff:
        data = neff.read()
    if not data.startswith(SIM_NEFF_MAGIC):
        raise ValueError(f"{path} is not a sim NEFF")
    return json.loads(data[len(SIM_NEFF_MAGIC):])


def health_serving(channel):
    """grpc.health.v1 Check of service "": True when SERVING. Encoded by hand (an empty
    HealthCheckRequest; the response's field 1 is the status, SERVING = 1) so that starting
    needs no stub beyond the project's own proto."""
    check = channel.unary_unary("/grpc.health.v1.Health/Check",
                                request_serializer=lambda request: request,
                                response_deserializer=lambda response: response)
    try:
        return check(b"", timeout=2.0) == b"\x08\x01"
    except grpc.RpcError:
        return False


class Daemon:
    """neuron-serve on the simulator, listening on loopback ports it picks (gRPC, and HTTP with
    http=True)."""

    def __init__(self, binary, nrtsim, repository, load_models, work_dir, extra_args=(),
                 http=False):
        self.log_path = os.path.join(work_dir, "daemon.log")
        env = dict(os.environ)
        env["NRTSIM_CORES"] = "16"
        # A lock directory of its own, so that parallel tests do not refuse each other's cores.
        env["NRTSIM_LOCK_DIR"] = os.path.join(work_dir, "nrtsim-locks")
        self.log = open(self.log_path, "wb")  # pylint: disable=consider-using-with
        args = [binary, "--listen=127.0.0.1:0", f"--nrt-library={nrtsim}",
                f"--model-repository={repository}", f"--load-models={','.join(load_models)}",
                *extra_args]
        if http:
            args.append("--http-listen=127.0.0.1:0")
        self.http = http
        self.process = subprocess.Popen(  # pylint: disable=consider-using-with
            args, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        self.address = None
        self.http_address = None

    def log_text(self):
        with open(self.log_path, "rb") as log:
            return log.read().decode("utf-8", "replace")

    def wait_listening(self):
        """Polls the log until the daemon says where it listens (the "listening on" line comes
        once the startup models are done; the HTTP endpoint's line before it)."""
        deadline = time.monotonic() + START_DEADLINE
        while time.monotonic() < deadline:
            text = self.log_text()
            match = re.search(r"listening on ([^ \n]+:[0-9]+)", text)
            http_match = re.search(r"HTTP endpoint on ([^ \n]+:[0-9]+) \(", text)
            if match and (http_match or not self.http):
                self.address = match.group(1)
                self.http_address = http_match.group(1) if http_match else None
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"neuron-serve did not start; its log:\n{self.log_text()}")

    def wait_serving(self, channel):
        deadline = time.monotonic() + START_DEADLINE
        while time.monotonic() < deadline:
            if health_serving(channel):
                return
            time.sleep(0.05)
        raise RuntimeError(f"neuron-serve is not SERVING; its log:\n{self.log_text()}")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        report = sanitizer_report(self.log_text())
        if report:
            print(f"neuron-serve (pid {self.process.pid}) was stopped by a sanitizer; its "
                  f"report:\n{report}", file=sys.stderr, flush=True)


# The line that opens a sanitizer's report: `==PID==ERROR:` (AddressSanitizer, LeakSanitizer,
# MemorySanitizer) or `WARNING: ThreadSanitizer:`. The C++ tests' twin is
# tests/support/sanitizer_report.h.
SANITIZER_REPORT_START = re.compile(r"^.*?(==[0-9]+==ERROR:|WARNING: ThreadSanitizer:)",
                                    re.MULTILINE)


def sanitizer_report(log):
    """`log` from the line that opens its first sanitizer report to the end; "" when none."""
    match = SANITIZER_REPORT_START.search(log)
    return log[match.start():] if match else ""


def run_daemon_test(description, work_prefix, build_repository, run_checks, *,
                    models_dir=False, http=False, extra_args=()):
    """The main of every test here: parses the flags ctest passes (--neuron-serve, --neuronctl,
    --nrtsim, --proto-dir, --models-dir when `models_dir`, and --keep), generates the stubs, has
    build_repository(args, repository) write the models (it returns the ones loaded at start, or
    None for every folder), starts the daemon and waits until it serves, then calls
    run_checks(checks, pb, pb_grpc, channel, daemon, repository). Returns the exit code: 0 when
    every check passed (and the daemon is still alive), 1 otherwise, 2 when the setup failed."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--neuron-serve", required=True)
    parser.add_argument("--neuronctl", required=True)
    parser.add_argument("--nrtsim", required=True)
    parser.add_argument("--proto-dir", required=True)
    if models_dir:
        parser.add_argument("--models-dir", required=True, help="deploy/models")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()

    work_dir = tempfile.mkdtemp(prefix=work_prefix)
    daemon = None
    try:
        pb, pb_grpc = generate_stubs(args.proto_dir, os.path.join(work_dir, "stubs"))
        repository = os.path.join(work_dir, "models")
        startup = build_repository(args, repository)
        if startup is None:
            startup = sorted(os.listdir(repository))
        daemon = Daemon(args.neuron_serve, args.nrtsim, repository, startup, work_dir,
                        extra_args=extra_args, http=http)
        daemon.wait_listening()
        channel = grpc.insecure_channel(daemon.address)
        daemon.wait_serving(channel)
        http_note = f" (HTTP {daemon.http_address})" if http else ""
        print(f"neuron-serve on {daemon.address}{http_note} with models {startup}", flush=True)

        checks = Checks()
        run_checks(checks, pb, pb_grpc, channel, daemon, repository)
        channel.close()
        if daemon.process.poll() is not None:
            checks.fail("daemon alive", f"neuron-serve exited with {daemon.process.returncode}")
        return checks.summary()
    except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
        print(f"setup failed: {error}", file=sys.stderr, flush=True)
        return 2
    finally:
        if daemon is not None:
            daemon.stop()
        if args.keep:
            print(f"kept {work_dir}", flush=True)
        else:
            shutil.rmtree(work_dir, ignore_errors=True)


class HttpAnswer:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers  # lower-cased names
        self.body = body

    def json(self):
        return json.loads(self.body)


def http_call(address, method, path, body=None, headers=None):
    """One HTTP/1.1 exchange with the daemon's REST front end (address "127.0.0.1:PORT")."""
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=CALL_TIMEOUT)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        return HttpAnswer(response.status, {k.lower(): v for k, v in response.getheaders()},
                          data)
    finally:
        connection.close()


# ---------------------------------------------------------------------------------------------
# References of the sim models.


def round_float32(value):
    return struct.unpack("<f", struct.pack("<f", value))[0]


def mlp_reference(model, x):
    """The documented MLP (client/simmodel/mlp_model.h): matmul + bias and ReLU per layer but the
    last, then softmax, in double precision from the file's float32 constants."""
    constants = model["constants"]
    layer = 0
    values = list(x)
    while f"w{layer}" in constants:
        weight, bias = constants[f"w{layer}"], constants[f"b{layer}"]
        rows, cols = weight["shape"]
        values = [sum(values[r] * weight["data"][r * cols + c] for r in range(rows)) +
                  bias["data"][c] for c in range(cols)]
        layer += 1
        if f"w{layer}" in constants:
            values = [max(0.0, v) for v in values]
    top = max(values)
    exps = [math.exp(v - top) for v in values]
    return [e / sum(exps) for e in exps]


def classifier_reference(model, ids, mask):
    """The documented classifier (client/simmodel/classifier_model.h): the mean of the embedding
    rows the mask keeps, times dense.weight plus dense.bias."""
    constants = model["constants"]
    embeddings = constants["embeddings"]
    hidden = embeddings["shape"][1]
    weight, bias = constants["dense.weight"], constants["dense.bias"]
    classes = weight["shape"][1]
    kept = sum(mask)
    pooled = [sum(embeddings["data"][ids[s] * hidden + h] * mask[s] for s in range(len(ids))) /
              kept for h in range(hidden)]
    return [sum(pooled[h] * weight["data"][h * classes + c] for h in range(hidden)) +
            bias["data"][c] for c in range(classes)]


def close(got, want, relative=1e-5, absolute=1e-6):
    return len(got) == len(want) and all(
        abs(g - w) <= absolute + relative * abs(w) for g, w in zip(got, want))
