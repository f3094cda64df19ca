"""Checks that the reference in docs/ agrees with the code, for the two facts that drift most.

`flags`: the flags the daemon defines (every ABSL_FLAG(type, name, ...) in the product's sources,
server/daemon/flags.cc above all) and the rows of docs/flags.md's table name the same flags, both
ways. Absl's --help lists only the flags of the file that holds main(), so it cannot stand in for
this check.

`metrics`: every metric family the daemon exposes is a row of docs/metrics.md's table, and every
row is a family that exists. The exposed families come from two places: a scrape of /metrics of
the real daemon on the simulated runtime after one served request (so the per-request families
are there), and the "neuronserve_..." string literals of the product's sources, which also cover
families that appear only after rare events (a batched model's executions, an NRT error, a
version retired unscraped).

Every message names the flag or the metric and the file to fix. Run by ctest (tests/docs/
CMakeLists.txt) with Debian's /usr/bin/python3 and the standard library only; exits 1 on any
disagreement. Takes about a second.
"""

import argparse
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# The product's source folders: what the daemon links (client/ is neuronctl's and the library's).
PRODUCT_FOLDERS = ("base", "util", "core", "server", "sim")
SOURCE_SUFFIXES = (".cc", ".h")
# Seconds; generous for a loaded machine or a sanitized daemon, short enough that a hang shows.
START_DEADLINE = 60.0
CALL_TIMEOUT = 20.0

FLAG_DEFINITION = re.compile(r"ABSL_FLAG\(\s*[^,]+?,\s*(\w+)\s*,")
METRIC_LITERAL = re.compile(r'"(neuronserve_[a-z0-9_]+)"')
# A table row of a reference file: the first cell, whose backticked names are what the row
# documents (`--name=VALUE` for a flag, `neuronserve_name` for a metric).
TABLE_ROW = re.compile(r"^\|([^|]*(?:\\\|[^|]*)*)\|")


def product_sources(source_dir):
    """(path relative to source_dir, text) of every product .cc and .h file."""
    for folder in PRODUCT_FOLDERS:
        for root, _, files in os.walk(os.path.join(source_dir, folder)):
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    path = os.path.join(root, name)
                    with open(path, encoding="utf-8", errors="replace") as source:
                        yield os.path.relpath(path, source_dir), source.read()


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def documented_names(path, pattern):
    """{name: line} of the names `pattern` finds in the first cell of each table row of `path`."""
    names = {}
    with open(path, encoding="utf-8") as reference:
        for number, line in enumerate(reference, start=1):
            row = TABLE_ROW.match(line)
            if not row:
                continue
            for name in pattern.findall(row.group(1)):
                names.setdefault(name, number)
    return names


def check_flags(source_dir):
    defined = {}  # --name: "file:line"
    for path, text in product_sources(source_dir):
        for match in FLAG_DEFINITION.finditer(text):
            flag = "--" + match.group(1).replace("_", "-")
            defined.setdefault(flag, f"{path}:{line_of(text, match.start())}")
    reference = os.path.join(source_dir, "docs", "flags.md")
    documented = documented_names(reference, re.compile(r"`(--[a-z0-9][a-z0-9_-]*)"))
    documented = {flag.replace("_", "-"): line for flag, line in documented.items()}

    problems = []
    for flag, where in sorted(defined.items()):
        if flag not in documented:
            problems.append(f"flag {flag} ({where}) is not documented: add a row for it to the "
                            f"table of docs/flags.md")
    for flag, line in sorted(documented.items()):
        if flag not in defined:
            problems.append(f"docs/flags.md:{line} documents {flag}, which no ABSL_FLAG defines "
                            f"(server/daemon/flags.cc): remove the row, or define the flag")
    if not defined:
        problems.append("no ABSL_FLAG found under " + ", ".join(PRODUCT_FOLDERS) +
                        ": the pattern of this check no longer matches the code")
    return problems, f"{len(defined)} flags defined, {len(documented)} documented"


class Daemon:
    """neuron-serve on the simulator with the example models, on loopback ports it picks."""

    def __init__(self, binary, nrtsim, models_dir, work_dir):
        self.log_path = os.path.join(work_dir, "daemon.log")
        env = dict(os.environ)
        env["NRTSIM_CORES"] = "2"
        # A lock directory of its own, so that parallel tests do not refuse each other's cores.
        env["NRTSIM_LOCK_DIR"] = os.path.join(work_dir, "nrtsim-locks")
        self.log = open(self.log_path, "wb")  # pylint: disable=consider-using-with
        self.process = subprocess.Popen(  # pylint: disable=consider-using-with
            [binary, "--listen=127.0.0.1:0", "--http-listen=127.0.0.1:0",
             f"--nrt-library={nrtsim}", f"--model-repository={models_dir}",
             "--load-models=all"],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)

    def log_text(self):
        with open(self.log_path, "rb") as log:
            return log.read().decode("utf-8", "replace")

    def wait_http_address(self):
        """The HTTP endpoint's address, once the daemon serves (its "listening on" line comes
        after the startup models are done)."""
        deadline = time.monotonic() + START_DEADLINE
        while time.monotonic() < deadline:
            text = self.log_text()
            http_match = re.search(r"HTTP endpoint on ([^ \n]+:[0-9]+) \(", text)
            if http_match and "listening on" in text:
                return http_match.group(1)
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"neuron-serve did not start; its log:\n{self.log_text()}")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def http_call(address, method, path, body=None):
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=CALL_TIMEOUT)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        connection.request(method, path, body=body, headers=headers)
        answer = connection.getresponse()
        return answer.status, answer.read().decode("utf-8", "replace")
    finally:
        connection.close()


def scraped_families(binary, nrtsim, models_dir):
    """The families (# TYPE lines) of /metrics after one request to the example MLP."""
    work_dir = tempfile.mkdtemp(prefix="docs-check-")
    daemon = Daemon(binary, nrtsim, models_dir, work_dir)
    try:
        address = daemon.wait_http_address()
        request = json.dumps({"inputs": [{"name": "input", "shape": [1, 16], "datatype": "FP32",
                                          "data": [0.5] * 16}]})
        status, body = http_call(address, "POST", "/v2/models/mlp/infer", request)
        if status != 200:
            raise RuntimeError(f"the request to the example model 'mlp' failed: HTTP {status} "
                               f"{body}")
        status, body = http_call(address, "GET", "/metrics")
        if status != 200:
            raise RuntimeError(f"GET /metrics answered HTTP {status}: {body}")
        return {line.split()[2] for line in body.splitlines() if line.startswith("# TYPE ")}
    finally:
        daemon.stop()
        shutil.rmtree(work_dir, ignore_errors=True)


def check_metrics(source_dir, binary, nrtsim, models_dir):
    in_sources = {}  # name: "file:line"
    for path, text in product_sources(source_dir):
        for match in METRIC_LITERAL.finditer(text):
            in_sources.setdefault(match.group(1), f"{path}:{line_of(text, match.start())}")
    scraped = scraped_families(binary, nrtsim, models_dir)
    reference = os.path.join(source_dir, "docs", "metrics.md")
    documented = documented_names(reference, re.compile(r"`(neuronserve_[a-z0-9_]+)`"))

    problems = []
    for family in sorted(scraped):
        if family not in documented:
            problems.append(f"metric {family} (exposed on /metrics) is not documented: add a row "
                            f"for it to the table of docs/metrics.md")
    for name, where in sorted(in_sources.items()):
        if name not in documented and name not in scraped:
            problems.append(f"metric {name} ({where}) is not documented: add a row for it to the "
                            f"table of docs/metrics.md")
    for name, line in sorted(documented.items()):
        if name not in scraped and name not in in_sources:
            problems.append(f"docs/metrics.md:{line} documents {name}, which the daemon does not "
                            f"expose and no source names: remove the row")
    return problems, (f"{len(scraped)} families scraped, {len(in_sources)} names in the sources, "
                      f"{len(documented)} documented")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("check", choices=("flags", "metrics"))
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--neuron-serve", help="the daemon binary (metrics)")
    parser.add_argument("--nrtsim", help="libnrtsim.so (metrics)")
    args = parser.parse_args()
    if args.check == "flags":
        problems, summary = check_flags(args.source_dir)
    else:
        if not args.neuron_serve or not args.nrtsim:
            parser.error("metrics needs --neuron-serve and --nrtsim")
        problems, summary = check_metrics(args.source_dir, args.neuron_serve, args.nrtsim,
                                          os.path.join(args.source_dir, "deploy", "models"))
    for problem in problems:
        print(f"FAIL: {problem}", flush=True)
    print(f"{args.check}: {summary}; {len(problems)} problem(s)", flush=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
