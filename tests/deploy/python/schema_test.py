#!/usr/bin/python3
"""Every object of every kustomization under deploy/ validates against its published schema.

The schemas are in --schema-dir (tests/deploy/schemas/SOURCES.md names each one's repository,
path and version, where the files are kept, and how make_schemas.py makes them): Kubernetes 1.29 for the
built-in kinds, KServe 0.14.1's CRDs for InferenceService and ClusterServingRuntime,
cert-manager 1.17.4's for Certificate and Issuer. Nothing is downloaded. Strict, as
`kubectl apply` is (field validation Strict): a field the schema does not know fails, so the
negative cases below misspell one field each and expect exactly that field to be reported.

Usage (ctest passes the flags; see tests/deploy/CMakeLists.txt):
  schema_test.py --deploy-dir=DIR --schema-dir=DIR [unittest arguments]
"""

import copy
import json
import os
import unittest

import jsonschema

import deploy_manifests
from deploy_manifests import describe, render, render_all

deploy_manifests.add_flag("--schema-dir")

# (apiVersion, kind) -> schema file, relative to --schema-dir.
SCHEMAS = {
    ("v1", "ConfigMap"): "kubernetes-v1.29/configmap-v1.json",
    ("v1", "Service"): "kubernetes-v1.29/service-v1.json",
    ("v1", "ServiceAccount"): "kubernetes-v1.29/serviceaccount-v1.json",
    ("apps/v1", "Deployment"): "kubernetes-v1.29/deployment-apps-v1.json",
    ("apps/v1", "DaemonSet"): "kubernetes-v1.29/daemonset-apps-v1.json",
    ("serving.kserve.io/v1beta1", "InferenceService"):
        "kserve-v0.14.1/inferenceservice-serving.kserve.io-v1beta1.json",
    ("serving.kserve.io/v1alpha1", "ClusterServingRuntime"):
        "kserve-v0.14.1/clusterservingruntime-serving.kserve.io-v1alpha1.json",
    ("cert-manager.io/v1", "Certificate"):
        "cert-manager-v1.17.4/certificate-cert-manager.io-v1.json",
    ("cert-manager.io/v1", "Issuer"): "cert-manager-v1.17.4/issuer-cert-manager.io-v1.json",
}


def schema_dir():
    return deploy_manifests.FLAGS["--schema-dir"]


_validators = {}


def validator_for(obj):
    """The validator of obj's kind; KeyError for a kind without a schema here."""
    key = (obj.get("apiVersion"), obj.get("kind"))
    if key not in _validators:
        with open(os.path.join(schema_dir(), SCHEMAS[key]), encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft7Validator.check_schema(schema)
        _validators[key] = jsonschema.Draft7Validator(schema)
    return _validators[key]


def errors_of(obj):
    """Every schema error of obj, as 'path: message' lines."""
    found = []
    for error in validator_for(obj).iter_errors(obj):
        # oneOf/anyOf failures hide the useful message one level down.
        leaf = min(error.context, key=lambda e: len(e.path), default=error) if error.context \
            else error
        path = "/".join(str(p) for p in error.absolute_path) or "(root)"
        found.append(f"{path}: {leaf.message}")
    return found


def find(objects, kind, name=None):
    for obj in objects:
        if obj.get("kind") == kind and (name is None or obj["metadata"]["name"] == name):
            return obj
    raise AssertionError(f"no {kind} {name or ''} rendered")


class RenderedManifestsTest(unittest.TestCase):
    def test_every_kustomization_is_found(self):
        found = deploy_manifests.kustomizations()
        for expected in deploy_manifests.EXPECTED_KUSTOMIZATIONS:
            self.assertIn(expected, found)

    def test_every_rendered_object_validates(self):
        for kustomization, objects in render_all().items():
            for obj in objects:
                with self.subTest(kustomization=kustomization, object=describe(obj)):
                    key = (obj.get("apiVersion"), obj.get("kind"))
                    self.assertIn(key, SCHEMAS, f"no schema for {key}: add one (SOURCES.md)")
                    self.assertEqual(errors_of(obj), [])

    def test_every_schema_is_used_and_named_in_sources(self):
        rendered = {(o.get("apiVersion"), o.get("kind"))
                    for objects in render_all().values() for o in objects}
        sources_md = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schemas",
                                  "SOURCES.md")
        with open(sources_md, encoding="utf-8") as f:
            sources = f.read()
        for key, path in SCHEMAS.items():
            with self.subTest(kind=key):
                self.assertIn(key, rendered, f"{path} validates nothing rendered: drop it")
                self.assertIn(os.path.basename(path), sources)
        on_disk = sorted(os.path.relpath(os.path.join(folder, name), schema_dir())
                         for folder, _, names in os.walk(schema_dir())
                         for name in names if name.endswith(".json"))
        self.assertEqual(on_disk, sorted(SCHEMAS.values()))


class StrictnessTest(unittest.TestCase):
    """Checks that can fail: one misspelt or mistyped field in a rendered object, and the
    validation names exactly that field."""

    def assert_rejected(self, obj, field):
        errors = errors_of(obj)
        self.assertTrue(errors, f"{describe(obj)} with {field} validated")
        self.assertTrue(any(field in error for error in errors), "\n".join(errors))

    def test_the_unchanged_objects_pass(self):
        for obj in (find(render("kubernetes/overlays/sidecar"), "Deployment"),
                    find(render("kserve"), "InferenceService"),
                    find(render("kserve"), "ClusterServingRuntime", "neuron-serve")):
            self.assertEqual(errors_of(obj), [], describe(obj))

    def test_a_misspelt_container_field_fails(self):
        deployment = find(render("kubernetes/overlays/sidecar"), "Deployment")
        container = deployment["spec"]["template"]["spec"]["initContainers"][1]
        container["readynessProbe"] = container.pop("readinessProbe")
        self.assert_rejected(deployment, "readynessProbe")

    def test_a_misspelt_pod_field_fails(self):
        daemonset = find(render("kubernetes/overlays/daemonset"), "DaemonSet")
        pod = daemonset["spec"]["template"]["spec"]
        pod["terminationGracePeriod"] = pod.pop("terminationGracePeriodSeconds")
        self.assert_rejected(daemonset, "terminationGracePeriod")

    def test_a_misspelt_metadata_field_fails(self):
        for obj in (find(render("kubernetes/base"), "Service"),
                    find(render("kserve"), "InferenceService")):
            obj = copy.deepcopy(obj)
            obj["metadata"]["label"] = {"a": "b"}
            self.assert_rejected(obj, "label")

    def test_a_wrongly_typed_field_fails(self):
        service = find(render("kubernetes/base"), "Service")
        service["spec"]["ports"][0]["port"] = "eight thousand"
        errors = errors_of(service)
        self.assertTrue(any("spec/ports/0/port" in error for error in errors), errors)

    def test_a_misspelt_inference_service_field_fails(self):
        isvc = find(render("kserve"), "InferenceService")
        model = isvc["spec"]["predictor"]["model"]
        model["protocolVersoin"] = model.pop("protocolVersion")
        self.assert_rejected(isvc, "protocolVersoin")

    def test_a_misspelt_serving_runtime_field_fails(self):
        runtime = find(render("kserve"), "ClusterServingRuntime", "neuron-serve-grpc")
        runtime["spec"]["protocolVersion"] = runtime["spec"].pop("protocolVersions")
        self.assert_rejected(runtime, "protocolVersion")
        runtime = find(render("kserve"), "ClusterServingRuntime", "neuron-serve")
        runtime["spec"]["containers"][0]["securityContext"]["runAsNonroot"] = True
        self.assert_rejected(runtime, "runAsNonroot")

    def test_a_misspelt_certificate_field_fails(self):
        certificate = find(render("kubernetes/overlays/daemonset-cert-manager"), "Certificate",
                           "neuron-serve-tls")
        certificate["spec"]["dnsName"] = certificate["spec"].pop("dnsNames")
        self.assert_rejected(certificate, "dnsName")

    def test_a_wrong_api_version_fails(self):
        isvc = find(render("kserve"), "InferenceService")
        v1beta1 = validator_for(isvc)
        isvc["apiVersion"] = "serving.kserve.io/v1"
        with self.assertRaises(KeyError):
            validator_for(isvc)
        # And against the v1beta1 schema, the pinned apiVersion is what fails.
        errors = list(v1beta1.iter_errors(isvc))
        self.assertTrue(any(list(e.path) == ["apiVersion"] for e in errors))


if __name__ == "__main__":
    deploy_manifests.main()
