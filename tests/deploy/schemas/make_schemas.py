#!/usr/bin/python3
"""Makes the JSON schemas in this folder from their published sources (SOURCES.md names them).

Not run by the tests: they read the JSON files this writes. Run it again only to move to another
Kubernetes, KServe or cert-manager version (SOURCES.md shows how to get the inputs), then check
the diff. What it does to the published schemas, and nothing else:

  - Kubernetes kinds: from the OpenAPI v3 document of the kind's group version, the kind's schema
    with every component schema it refers to, directly or not, under `definitions` (refs
    rewritten to point there): one self-contained file per kind.
  - Custom resources: the `openAPIV3Schema` of the served version of the CRD; its `metadata`
    becomes Kubernetes' ObjectMeta (of the same Kubernetes document), which is what the API
    server checks a custom resource's metadata against.
  - Strict, as `kubectl apply` (field validation Strict, kubectl's default since 1.27) and the API
    server are: an object schema that lists `properties` and says nothing of other keys gets
    `additionalProperties: false`, unless it carries `x-kubernetes-preserve-unknown-fields`
    (the API server keeps unknown fields there). `nullable: true` admits null.
  - `apiVersion` and `kind` are required and pinned to the kind's.
  - Dropped, as they validate nothing: descriptions, defaults, and the `x-kubernetes-*`
    extensions once applied. A subtree that occurs more than once (the InferenceService repeats
    the container schema for every predictor framework) is kept once under `definitions` and
    referred to: the same schema, fewer bytes.

Usage:
  make_schemas.py --k8s-core api__v1.json --k8s-apps apis__apps__v1.json \
      --kserve-isvc serving.kserve.io_inferenceservices.yaml \
      --kserve-csr serving.kserve.io_clusterservingruntimes.yaml \
      --cm-certificates crd-certificates.yaml --cm-issuers crd-issuers.yaml --out DIR
"""

import argparse
import copy
import hashlib
import json
import os
import sys

import yaml

COMPONENTS = "#/components/schemas/"
DEFINITIONS = "#/definitions/"
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
DRAFT = "http://json-schema.org/draft-07/schema#"
# Extensions that change what validates; applied below, then dropped like the others.
PRESERVE_UNKNOWN = "x-kubernetes-preserve-unknown-fields"
# Subtrees at least this long (as compact JSON) are shared when they repeat.
SHARE_MIN_CHARS = 400

# Kubernetes kinds: output name -> (input, component schema, apiVersion, kind).
K8S_KINDS = {
    "configmap-v1": ("core", "io.k8s.api.core.v1.ConfigMap", "v1", "ConfigMap"),
    "service-v1": ("core", "io.k8s.api.core.v1.Service", "v1", "Service"),
    "serviceaccount-v1": ("core", "io.k8s.api.core.v1.ServiceAccount", "v1", "ServiceAccount"),
    "deployment-apps-v1": ("apps", "io.k8s.api.apps.v1.Deployment", "apps/v1", "Deployment"),
    "daemonset-apps-v1": ("apps", "io.k8s.api.apps.v1.DaemonSet", "apps/v1", "DaemonSet"),
}
# Custom resources: output name -> (input, served version).
CRD_KINDS = {
    "inferenceservice-serving.kserve.io-v1beta1": ("kserve_isvc", "v1beta1"),
    "clusterservingruntime-serving.kserve.io-v1alpha1": ("kserve_csr", "v1alpha1"),
    "certificate-cert-manager.io-v1": ("cm_certificates", "v1"),
    "issuer-cert-manager.io-v1": ("cm_issuers", "v1"),
}
OUTPUT_FOLDER = {
    "core": "kubernetes-v1.29", "apps": "kubernetes-v1.29",
    "kserve_isvc": "kserve-v0.14.1", "kserve_csr": "kserve-v0.14.1",
    "cm_certificates": "cert-manager-v1.17.4", "cm_issuers": "cert-manager-v1.17.4",
}

SCHEMA_MAPS = ("properties", "patternProperties", "definitions")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf")
SCHEMA_ONES = ("additionalProperties", "items", "not")


def tighten(node):
    """Applies the rules above to one schema node and everything under it, in place."""
    if not isinstance(node, dict):
        return
    if isinstance(node.get("description"), str):
        del node["description"]
    node.pop("default", None)
    node.pop("example", None)
    if "$ref" in node and node["$ref"].startswith(COMPONENTS):
        node["$ref"] = DEFINITIONS + node["$ref"][len(COMPONENTS):]
    preserve = node.get(PRESERVE_UNKNOWN) is True
    for key in [k for k in node if k.startswith("x-kubernetes-")]:
        del node[key]
    if node.pop("nullable", False) is True and isinstance(node.get("type"), str):
        node["type"] = [node["type"], "null"]
    for key in SCHEMA_MAPS:
        for child in node.get(key, {}).values():
            tighten(child)
    for key in SCHEMA_LISTS:
        for child in node.get(key, []):
            tighten(child)
    for key in SCHEMA_ONES:
        child = node.get(key)
        if isinstance(child, list):
            for item in child:
                tighten(item)
        else:
            tighten(child)
    if "properties" in node and "additionalProperties" not in node and not preserve:
        node["additionalProperties"] = False


def refs_of(node, found):
    """Adds the names of the component schemas `node` refers to (one level) to `found`."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(COMPONENTS):
            found.add(ref[len(COMPONENTS):])
        for value in node.values():
            refs_of(value, found)
    elif isinstance(node, list):
        for value in node:
            refs_of(value, found)


def closure(components, names):
    """Every component schema reachable from `names`."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        found = set()
        refs_of(components[name], found)
        todo.extend(found - seen)
    return seen


def pin_kind(root, api_version, kind):
    root.setdefault("properties", {})
    root["properties"]["apiVersion"] = {"type": "string", "enum": [api_version]}
    root["properties"]["kind"] = {"type": "string", "enum": [kind]}
    root["required"] = sorted(set(root.get("required", [])) | {"apiVersion", "kind"})


def share_repeats(schema):
    """Moves subtrees that occur more than once under `definitions`, referred to by $ref."""
    definitions = schema.setdefault("definitions", {})
    while True:
        counts, sizes = {}, {}

        def count(node, is_schema):
            if isinstance(node, dict):
                if is_schema:
                    text = json.dumps(node, sort_keys=True, separators=(",", ":"))
                    if len(text) >= SHARE_MIN_CHARS:
                        counts[text] = counts.get(text, 0) + 1
                        sizes[text] = len(text)
                for key, value in node.items():
                    if key in SCHEMA_MAPS:
                        for child in value.values():
                            count(child, True)
                    elif key in SCHEMA_LISTS:
                        for child in value:
                            count(child, True)
                    elif key in SCHEMA_ONES:
                        for child in (value if isinstance(value, list) else [value]):
                            count(child, True)

        for name, definition in definitions.items():
            count(definition, False)  # a definition itself is never replaced by a ref to it
        count({k: v for k, v in schema.items() if k != "definitions"}, False)
        repeated = [text for text, n in counts.items() if n > 1]
        if not repeated:
            return
        text = max(repeated, key=lambda t: sizes[t])
        name = "shared-" + hashlib.sha256(text.encode()).hexdigest()[:12]
        definitions[name] = json.loads(text)

        def replace(node):
            if isinstance(node, dict):
                for key, value in node.items():
                    if key in SCHEMA_MAPS:
                        for child_key, child in value.items():
                            if key == "definitions" and child_key == name:
                                replace(child)
                                continue
                            if json.dumps(child, sort_keys=True, separators=(",", ":")) == text:
                                value[child_key] = {"$ref": DEFINITIONS + name}
                            else:
                                replace(child)
                    elif key in SCHEMA_LISTS:
                        for i, child in enumerate(value):
                            if json.dumps(child, sort_keys=True, separators=(",", ":")) == text:
                                value[i] = {"$ref": DEFINITIONS + name}
                            else:
                                replace(child)
                    elif key in SCHEMA_ONES and isinstance(value, dict):
                        if json.dumps(value, sort_keys=True, separators=(",", ":")) == text:
                            node[key] = {"$ref": DEFINITIONS + name}
                        else:
                            replace(value)

        replace(schema)


def object_meta_definitions(apps_document):
    components = apps_document["components"]["schemas"]
    return {name: copy.deepcopy(components[name]) for name in closure(components, [OBJECT_META])}


def k8s_kind_schema(document, component, api_version, kind):
    components = document["components"]["schemas"]
    root = copy.deepcopy(components[component])
    definitions = {name: copy.deepcopy(components[name])
                   for name in closure(components, [component]) if name != component}
    tighten(root)
    for definition in definitions.values():
        tighten(definition)
    pin_kind(root, api_version, kind)
    schema = {"$schema": DRAFT}
    schema.update(root)
    schema["definitions"] = dict(sorted(definitions.items()))
    return schema


def crd_kind_schema(crd, version, apps_document):
    served = [v for v in crd["spec"]["versions"] if v["name"] == version]
    if len(served) != 1:
        raise SystemExit(f"{crd['metadata']['name']}: no single version {version}")
    root = copy.deepcopy(served[0]["schema"]["openAPIV3Schema"])
    tighten(root)
    group = crd["spec"]["group"]
    pin_kind(root, f"{group}/{version}", crd["spec"]["names"]["kind"])
    root["properties"]["metadata"] = {"$ref": DEFINITIONS + OBJECT_META}
    definitions = object_meta_definitions(apps_document)
    for definition in definitions.values():
        tighten(definition)
    schema = {"$schema": DRAFT}
    schema.update(root)
    schema["definitions"] = dict(sorted(definitions.items()))
    share_repeats(schema)
    schema["definitions"] = dict(sorted(schema["definitions"].items()))
    return schema


def load_crd(path):
    with open(path, encoding="utf-8") as f:
        documents = [d for d in yaml.safe_load_all(f) if d]
    crds = [d for d in documents if d.get("kind") == "CustomResourceDefinition"]
    if len(crds) != 1:
        raise SystemExit(f"{path}: expected one CustomResourceDefinition, found {len(crds)}")
    return crds[0]


def write(path, schema):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(schema, f, indent=1, sort_keys=False)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    for name in ("k8s-core", "k8s-apps", "kserve-isvc", "kserve-csr", "cm-certificates",
                 "cm-issuers", "out"):
        parser.add_argument("--" + name, required=True)
    args = parser.parse_args()
    with open(args.k8s_core, encoding="utf-8") as f:
        core = json.load(f)
    with open(args.k8s_apps, encoding="utf-8") as f:
        apps = json.load(f)
    documents = {"core": core, "apps": apps}
    for name, (source, component, api_version, kind) in K8S_KINDS.items():
        schema = k8s_kind_schema(documents[source], component, api_version, kind)
        write(os.path.join(args.out, OUTPUT_FOLDER[source], name + ".json"), schema)
    crds = {"kserve_isvc": args.kserve_isvc, "kserve_csr": args.kserve_csr,
            "cm_certificates": args.cm_certificates, "cm_issuers": args.cm_issuers}
    for name, (source, version) in CRD_KINDS.items():
        schema = crd_kind_schema(load_crd(crds[source]), version, apps)
        write(os.path.join(args.out, OUTPUT_FOLDER[source], name + ".json"), schema)
    return 0


if __name__ == "__main__":
    sys.exit(main())
