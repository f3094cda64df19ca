"""What the Python deploy tests share: every kustomization under deploy/, rendered as the cluster
would receive it (`kubectl kustomize`, as the C++ tests in tests/deploy do), and the pods the
rendered objects describe.

Each test script takes `--deploy-dir=DIR` (the repository's deploy/ folder) before unittest's own
arguments; tests/deploy/CMakeLists.txt passes it.
"""

import argparse
import copy
import functools
import os
import shutil
import subprocess
import sys
import unittest

import yaml

# Set by main() from the command line.
DEPLOY_DIR = None

# The kustomizations the tests must find (render_all() finds every one under deploy/; these are
# the ones that exist today, so that a lost folder fails rather than shrinks the tests).
EXPECTED_KUSTOMIZATIONS = (
    "kserve",
    "kserve/examples",
    "kubernetes/base",
    "kubernetes/overlays/daemonset",
    "kubernetes/overlays/daemonset-cert-manager",
    "kubernetes/overlays/sidecar",
)

# Kinds whose objects hold a pod template at spec.template.
WORKLOAD_KINDS = ("Deployment", "DaemonSet", "StatefulSet", "ReplicaSet", "Job")
# KServe's serving runtimes: their spec is a pod spec that KServe completes.
RUNTIME_KINDS = ("ClusterServingRuntime", "ServingRuntime")


def kustomizations():
    """Every folder under deploy/ with a kustomization.yaml, relative to deploy/, sorted."""
    found = []
    for folder, _, files in os.walk(DEPLOY_DIR):
        if "kustomization.yaml" in files:
            found.append(os.path.relpath(folder, DEPLOY_DIR))
    return sorted(found)


@functools.lru_cache(maxsize=None)
def _render(relative):
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        raise RuntimeError("kubectl is not on PATH: the deploy tests render the manifests with "
                           "`kubectl kustomize` (kubectl 1.21 or later; .ci/install-deps says "
                           "where to get it)")
    folder = os.path.join(DEPLOY_DIR, relative)
    result = subprocess.run([kubectl, "kustomize", folder], capture_output=True, text=True,
                            check=False)
    if result.returncode != 0:
        raise RuntimeError(f"kubectl kustomize {folder} exited with {result.returncode}:\n"
                           f"{result.stderr}{result.stdout}")
    objects = [o for o in yaml.safe_load_all(result.stdout) if isinstance(o, dict)]
    if not objects:
        raise RuntimeError(f"kubectl kustomize {folder} rendered nothing")
    return objects


def render(relative):
    """The objects `kubectl kustomize deploy/RELATIVE` renders (deep copies: change them freely)."""
    return copy.deepcopy(_render(relative))


def render_all():
    """{kustomization: objects} for every kustomization under deploy/."""
    return {relative: render(relative) for relative in kustomizations()}


def name_of(obj):
    return obj.get("metadata", {}).get("name", "")


def describe(obj):
    return f"{obj.get('kind')} {name_of(obj)}"


def pods_of(objects):
    """(description, pod metadata, pod spec) for every pod the objects describe: the template of
    each workload, and each KServe serving runtime's spec (which has no metadata of its own)."""
    pods = []
    for obj in objects:
        kind = obj.get("kind")
        if kind in WORKLOAD_KINDS:
            template = obj.get("spec", {}).get("template", {})
            pods.append((describe(obj), template.get("metadata", {}), template.get("spec", {})))
        elif kind == "CronJob":
            template = obj["spec"]["jobTemplate"]["spec"]["template"]
            pods.append((describe(obj), template.get("metadata", {}), template.get("spec", {})))
        elif kind == "Pod":
            pods.append((describe(obj), obj.get("metadata", {}), obj.get("spec", {})))
        elif kind in RUNTIME_KINDS:
            pods.append((describe(obj), {}, obj.get("spec", {})))
    return pods


def main():
    """Parses --deploy-dir (and the other flags a script adds with add_flags) and runs unittest."""
    global DEPLOY_DIR
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--deploy-dir", required=True)
    for flag in EXTRA_FLAGS:
        parser.add_argument(flag, required=True)
    args, rest = parser.parse_known_args()
    DEPLOY_DIR = os.path.abspath(args.deploy_dir)
    for flag in EXTRA_FLAGS:
        FLAGS[flag] = getattr(args, flag.lstrip("-").replace("-", "_"))
    unittest.main(module="__main__", argv=[sys.argv[0]] + rest, verbosity=2)


# Flags a test script needs besides --deploy-dir, and their values once main() parsed them.
EXTRA_FLAGS = []
FLAGS = {}


def add_flag(flag):
    EXTRA_FLAGS.append(flag)
