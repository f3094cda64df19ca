#!/usr/bin/python3
"""KServe's choice of serving runtime, and what the chosen runtime's pod becomes, for the
InferenceServices of deploy/kserve and deploy/kserve/examples.

The rules below are KServe's own, read from its source at tags v0.14.1 and v0.20.0 (they select
alike; where the two differ, the comment says so) and written again here; each names the file and
function it follows. Paths are in the kserve/kserve repository:

  pkg/apis/serving/v1beta1/predictor_model.go     GetProtocol, GetSupportingRuntimes,
                                                  RuntimeSupportsModel, getModelFormatLabel,
                                                  getServingRuntimeSupportedModelFormatLabelSet,
                                                  sortServingRuntimeList (and the cluster one),
                                                  sortSupportedRuntimeByPriority,
                                                  GetProtocolVersionPriority
  pkg/apis/serving/v1alpha1/servingruntime_types.go  IsDisabled, IsMultiModelRuntime,
                                                  IsMultiNodeRuntime (0.20.0),
                                                  IsProtocolVersionSupported, GetPriority
  pkg/controller/v1beta1/inferenceservice/components/predictor.go  reconcileModel (0.20.0; the
                                                  same steps inline in Reconcile in 0.14.1)
  pkg/webhook/admission/servingruntime/servingruntime_webhook.go   validateModelFormatPrioritySame,
                                                  validateServingRuntimePriority
  pkg/controller/v1beta1/inferenceservice/utils/utils.go  MergeRuntimeContainers (ports merged by
                                                  containerPort: a strategic merge patch)
  pkg/controller/v1beta1/inferenceservice/reconcilers/service/service_reconciler.go
                                                  createDefaultSvc (RawDeployment's Service)
  pkg/constants/constants.go                      protocol numbering, deployment modes
  config/configmap/inferenceservice.yaml          "defaultDeploymentMode": "Serverless"

and, for what Knative (Serverless mode) accepts of the pod, in knative/serving (release 1.15,
which KServe 0.14.1's go.mod names as v0.42, and its main branch alike):

  pkg/apis/serving/k8s_validation.go              validateContainerPorts ("More than one container
                                                  port is set", the port names), validateProbe
  pkg/apis/serving/fieldmask.go                   ContainerMask, PodSpecMask (tolerations, node
                                                  selector, affinity only behind feature flags, off
                                                  by default), VolumeSourceMask (hostPath likewise)
  pkg/reconciler/revision/resources/deploy.go     rewriteUserLivenessProbe (an HTTP or TCP liveness
                                                  probe is pointed at the container port; from 1.22
                                                  not when the multi-container-probing feature,
                                                  off by default, is on)

Usage (ctest passes the flags; see tests/deploy/CMakeLists.txt):
  kserve_selection_test.py --deploy-dir=DIR [unittest arguments]
"""

import copy
import functools
import unittest

import deploy_manifests
from deploy_manifests import name_of, render

# pkg/constants/constants.go: InferenceServiceProtocol values and the ProtocolVersion numbering
# (V1 = 1, V2, GRPCV1, GRPCV2, Unknown) that GetProtocolVersionInt maps them to.
PROTOCOL_NUMBER = {"v1": 1, "v2": 2, "grpc-v1": 3, "grpc-v2": 4}
UNKNOWN_PROTOCOL = 5
PROTOCOL_NAME = {number: name for name, number in PROTOCOL_NUMBER.items()}
# The container KServe completes (constants.InferenceServiceContainerName).
KSERVE_CONTAINER = "kserve-container"
DEPLOYMENT_MODE_ANNOTATION = "serving.kserve.io/deploymentMode"
# config/configmap/inferenceservice.yaml of both versions: "defaultDeploymentMode": "Serverless".
DEFAULT_DEPLOYMENT_MODE = "Serverless"
# constants.ParseDeploymentMode (0.20.0): the old names stand for the new ones.
DEPLOYMENT_MODES = {"Serverless": "Serverless", "Knative": "Serverless",
                    "RawDeployment": "RawDeployment", "Standard": "RawDeployment"}
# knative: validPortNames in k8s_validation.go, and its reservedPorts (the queue-proxy's: 8012,
# 8013, 8022, 9090, 9091 from knative.dev/networking, and 8008, profiling, from knative.dev/pkg).
KNATIVE_PORT_NAMES = ("h2c", "http1", "")
KNATIVE_RESERVED_PORTS = (8012, 8013, 8022, 9090, 9091, 8008)
# knative: VolumeSourceMask with the default features (emptyDir on, persistentVolumeClaim,
# hostPath and the others off).
KNATIVE_VOLUME_TYPES = ("secret", "configMap", "projected", "emptyDir")
# knative: ContainerMask, the container fields a Knative Service may set.
KNATIVE_CONTAINER_FIELDS = ("name", "args", "command", "env", "workingDir", "envFrom", "image",
                            "imagePullPolicy", "livenessProbe", "ports", "readinessProbe",
                            "resources", "securityContext", "startupProbe",
                            "terminationMessagePath", "terminationMessagePolicy", "volumeMounts")
# The ServingRuntime's pod-level fields (ServingRuntimePodSpec) that Knative's PodSpecMask allows
# only behind a feature flag, off by default: the flag for each.
KNATIVE_FLAGGED_POD_FIELDS = {"affinity": "kubernetes.podspec-affinity",
                              "nodeSelector": "kubernetes.podspec-nodeselector",
                              "tolerations": "kubernetes.podspec-tolerations",
                              "hostIPC": "(never: Knative drops it)"}
# constants.CommonDefaultHttpPort: the RawDeployment Service's port for the first container port.
RAW_SERVICE_PORT = 80


class NoRuntime(Exception):
    """The InferenceService's status would carry this failure (predictor.go's reasons)."""


class Runtime:
    def __init__(self, obj):
        self.name = name_of(obj)
        self.kind = obj["kind"]  # ServingRuntime (namespaced) or ClusterServingRuntime
        self.spec = obj["spec"]
        # The order of creation; the rendered order stands for it (the oldest first).
        self.created = 0

    # servingruntime_types.go
    def is_disabled(self):
        return self.spec.get("disabled") is True

    def is_multi_model(self):
        return self.spec.get("multiModel") is True

    def is_multi_node(self):
        # 0.20.0 filters on it; 0.14.1 does not, which selects alike among runtimes without one.
        return self.spec.get("workerSpec") is not None

    def is_protocol_version_supported(self, protocol):
        # An empty protocol, or a runtime that lists none, supports everything.
        versions = self.spec.get("protocolVersions") or []
        return not protocol or not versions or protocol in versions

    def priority(self, format_name):
        # GetPriority: the priority of the first supported format of that name, or None.
        for supported in self.spec.get("supportedModelFormats") or []:
            if supported.get("name") == format_name:
                return supported.get("priority")
        return None


def protocol_of(model):
    # predictor_model.go GetProtocol: v1 when the InferenceService names none.
    return model.get("protocolVersion") or "v1"


def model_format_label(model):
    # predictor_model.go getModelFormatLabel.
    model_format = model["modelFormat"]
    if model_format.get("version") is not None:
        return f"mt:{model_format['name']}:{model_format['version']}"
    return f"mt:{model_format['name']}"


def runtime_format_labels(model, runtime):
    # predictor_model.go getServingRuntimeSupportedModelFormatLabelSet: without a runtime named in
    # the InferenceService, only the formats with autoSelect count.
    labels = set()
    for supported in runtime.spec.get("supportedModelFormats") or []:
        if model.get("runtime") is not None or supported.get("autoSelect") is True:
            labels.add(f"mt:{supported['name']}")
            if supported.get("version") is not None:
                labels.add(f"mt:{supported['name']}:{supported['version']}")
    return labels


def runtime_supports_model(model, runtime):
    # predictor_model.go RuntimeSupportsModel.
    return model_format_label(model) in runtime_format_labels(model, runtime)


def protocol_version_priority(protocols):
    # predictor_model.go GetProtocolVersionPriority: the lowest numbered protocol listed.
    if not protocols:
        return UNKNOWN_PROTOCOL
    return min(PROTOCOL_NUMBER.get(p, UNKNOWN_PROTOCOL) for p in protocols)


def sort_runtime_list(runtimes):
    # predictor_model.go sortServingRuntimeList / sortClusterServingRuntimeList: by the lowest
    # protocol, then the newest first, then by name.
    return sorted(runtimes, key=lambda r: (protocol_version_priority(
        r.spec.get("protocolVersions")), -r.created, r.name))


def sort_by_priority(runtimes, format_name):
    # predictor_model.go sortSupportedRuntimeByPriority: a runtime with a priority for the format
    # before one without, the higher priority first. (Go's sort.Slice is not stable; for equal
    # priorities this keeps the order above, as it does for the inputs here.)
    return sorted(runtimes, key=lambda r: (r.priority(format_name) is None,
                                           -(r.priority(format_name) or 0)))


def supporting_runtimes(model, namespaced, cluster, is_mms=False, is_multinode=False):
    # predictor_model.go GetSupportingRuntimes: the namespace's runtimes first, then the
    # cluster's, each list filtered and sorted on its own.
    def eligible(runtime):
        return (not runtime.is_disabled() and runtime.is_multi_model() == is_mms
                and runtime_supports_model(model, runtime)
                and runtime.is_protocol_version_supported(protocol_of(model))
                and runtime.is_multi_node() == is_multinode)
    ordered = []
    for runtimes in (namespaced, cluster):
        ordered += sort_by_priority([r for r in sort_runtime_list(runtimes) if eligible(r)],
                                    model["modelFormat"]["name"])
    return ordered


def select_runtime(isvc, namespaced, cluster):
    """The runtime KServe runs the predictor on, and the protocol the InferenceService ends up
    with; NoRuntime with the status message where KServe fails (predictor.go reconcileModel)."""
    model = copy.deepcopy(isvc["spec"]["predictor"]["model"])
    if model.get("runtime") is not None:
        # A runtime named in the InferenceService: the namespace's first, then the cluster's
        # (isvcutils.GetServingRuntime), checked but not searched for.
        by_name = {r.name: r for r in cluster}
        by_name.update({r.name: r for r in namespaced})
        runtime = by_name.get(model["runtime"])
        if runtime is None:
            raise NoRuntime("Waiting for runtime to become available")
        if runtime.is_disabled():
            raise NoRuntime("Specified runtime is disabled")
        if (model.get("protocolVersion") is not None
                and not runtime.is_protocol_version_supported(model["protocolVersion"])):
            raise NoRuntime("Specified runtime does not support specified protocol version")
        if not runtime_supports_model(model, runtime):
            raise NoRuntime("Specified runtime does not support specified framework/version")
    else:
        # isMMS false for a predictor; isMultinode false without a workerSpec (0.20.0).
        candidates = supporting_runtimes(model, namespaced, cluster)
        if not candidates:
            raise NoRuntime("No runtime found to support specified framework/version")
        runtime = candidates[0]
    # Without a protocolVersion the InferenceService takes the runtime's lowest protocol.
    protocol = model.get("protocolVersion") or PROTOCOL_NAME.get(
        protocol_version_priority(runtime.spec.get("protocolVersions")), "unknown")
    return runtime, protocol


def webhook_priority_errors(runtimes):
    """What KServe's ServingRuntime admission webhook refuses among these runtimes
    (servingruntime_webhook.go: validateModelFormatPrioritySame for each, and
    validateServingRuntimePriority for each pair)."""
    errors = []
    for runtime in runtimes:
        priorities = {}
        for supported in runtime.spec.get("supportedModelFormats") or []:
            if supported.get("autoSelect") is not True:
                continue
            name, priority = supported["name"], supported.get("priority")
            if name in priorities and None not in (priorities[name], priority) \
                    and priorities[name] != priority:
                errors.append(f"{runtime.name}: different priorities for {name}")
            priorities.setdefault(name, priority)
    for new in runtimes:
        for existing in runtimes:
            if (existing.name == new.name or existing.is_disabled()
                    or existing.is_multi_model() != new.is_multi_model()):
                continue
            shared = set(existing.spec.get("protocolVersions") or []) & set(
                new.spec.get("protocolVersions") or [])
            if not shared:
                continue
            for a in existing.spec.get("supportedModelFormats") or []:
                for b in new.spec.get("supportedModelFormats") or []:
                    if (a.get("autoSelect") is True and b.get("autoSelect") is True
                            and a["name"].lower() == b["name"].lower()
                            and a.get("version") == b.get("version")
                            and a.get("priority") is not None
                            and a.get("priority") == b.get("priority")):
                        errors.append(f"{new.name} and {existing.name}: same priority for "
                                      f"{b['name']}")
    return errors


def merged_container(runtime, isvc):
    """The predictor's container as KServe builds it from the runtime's and the
    InferenceService's (utils.go MergeRuntimeContainers: a strategic merge patch of the
    InferenceService's container over the runtime's, args concatenated). Only the fields these
    tests look at: args, and ports, merged by containerPort (their patchMergeKey). The order of
    merged ports is modelled for the two cases the examples use, where it is plain: the
    InferenceService lists every port of the runtime (then its order is kept) or none of them
    (then its ports come after the runtime's)."""
    base = next(c for c in runtime.spec["containers"] if c["name"] == KSERVE_CONTAINER)
    model = isvc["spec"]["predictor"]["model"]
    merged = copy.deepcopy(base)
    merged["args"] = list(base.get("args", [])) + list(model.get("args", []))
    patch_ports = model.get("ports") or []
    base_ports = {p["containerPort"]: p for p in base.get("ports", [])}
    named = [p["containerPort"] for p in patch_ports]
    if not patch_ports:
        return merged
    if set(base_ports) <= set(named):
        merged["ports"] = [dict(base_ports.get(p["containerPort"], {}), **p) for p in patch_ports]
    elif not set(base_ports) & set(named):
        merged["ports"] = list(base.get("ports", [])) + copy.deepcopy(patch_ports)
    else:
        raise NotImplementedError("an InferenceService naming some of the runtime's ports")
    return merged


def deployment_mode(isvc):
    annotations = isvc.get("metadata", {}).get("annotations") or {}
    return DEPLOYMENT_MODES[annotations.get(DEPLOYMENT_MODE_ANNOTATION, DEFAULT_DEPLOYMENT_MODE)]


def flag(container, name):
    """The value of --NAME=VALUE in the container's args (the last one wins), or None."""
    value = None
    for arg in container.get("args", []):
        if arg.startswith(f"--{name}="):
            value = arg.split("=", 1)[1]
    return value


def port_of(address):
    return int(address.rsplit(":", 1)[1])


def knative_errors(container, volumes, pod_fields=()):
    """What Knative refuses of a predictor container and its pod (k8s_validation.go
    validateContainerPorts, validateProbe; fieldmask.go ContainerMask, PodSpecMask,
    VolumeSourceMask) with its default features, and the probes that would fail once Knative
    has pointed them where it points them (deploy.go rewriteUserLivenessProbe). `pod_fields`:
    the pod-level fields the runtime and the InferenceService's predictor set."""
    errors = [f"{field}: needs Knative's {KNATIVE_FLAGGED_POD_FIELDS[field]}"
              for field in pod_fields if field in KNATIVE_FLAGGED_POD_FIELDS]
    errors += [f"container field {field} not allowed" for field in container
               if field not in KNATIVE_CONTAINER_FIELDS]
    ports = container.get("ports") or []
    if len(ports) > 1:
        errors.append("More than one container port is set")
    user_port = ports[0] if ports else {"containerPort": 8080, "name": ""}
    if user_port.get("name", "") not in KNATIVE_PORT_NAMES:
        errors.append(f"port name {user_port['name']} is neither h2c nor http1")
    if user_port.get("protocol", "TCP") != "TCP":
        errors.append("a port that is not TCP")
    if user_port["containerPort"] in KNATIVE_RESERVED_PORTS:
        errors.append(f"port {user_port['containerPort']} is reserved by the queue-proxy")
    for probe_name in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = container.get(probe_name)
        if not probe:
            continue
        for handler in ("httpGet", "tcpSocket"):
            port = (probe.get(handler) or {}).get("port")
            if isinstance(port, str) and not port.isdigit() and port != user_port.get("name"):
                errors.append(f"{probe_name}: Probe port must match container port")
        if probe_name == "livenessProbe" and ("httpGet" in probe or "tcpSocket" in probe):
            # Knative sends it to the container port whatever port it names: the daemon must
            # answer HTTP there.
            if "httpGet" in probe and user_port["containerPort"] != port_of(
                    flag(container, "http-listen")):
                errors.append("livenessProbe: an HTTP GET on the gRPC port")
    for volume in volumes or []:
        kinds = [k for k in volume if k != "name"]
        if not all(k in KNATIVE_VOLUME_TYPES for k in kinds):
            errors.append(f"volume {volume['name']}: {kinds} not allowed by default")
    return errors


def raw_service_ports(container):
    """service_reconciler.go createDefaultSvc: port 80 to the first container port, every other
    port to itself; 80 to 8080 without any."""
    ports = container.get("ports") or []
    if not ports:
        return [(RAW_SERVICE_PORT, 8080, "")]
    return [(RAW_SERVICE_PORT, ports[0]["containerPort"], ports[0].get("name", ""))] + [
        (p["containerPort"], p["containerPort"], p.get("name", "")) for p in ports[1:]]


@functools.lru_cache(maxsize=None)
def _shipped():
    runtimes, services = [], []
    for kustomization in ("kserve", "kserve/examples"):
        for obj in render(kustomization):
            if obj["kind"] in ("ClusterServingRuntime", "ServingRuntime"):
                runtimes.append(obj)
            elif obj["kind"] == "InferenceService":
                services.append(obj)
    return runtimes, services


def shipped_runtimes():
    runtimes = [Runtime(obj) for obj in _shipped()[0]]
    for created, runtime in enumerate(runtimes):
        runtime.created = created
    cluster = [r for r in runtimes if r.kind == "ClusterServingRuntime"]
    namespaced = [r for r in runtimes if r.kind == "ServingRuntime"]
    return namespaced, cluster


def shipped_service(name):
    for isvc in _shipped()[1]:
        if name_of(isvc) == name:
            return copy.deepcopy(isvc)
    raise AssertionError(f"no InferenceService {name} rendered")


def extra_runtime(template, name, kind="ClusterServingRuntime", **changes):
    """A copy of a shipped runtime under another name, with spec changes."""
    obj = copy.deepcopy(next(o for o in _shipped()[0] if name_of(o) == template))
    obj["kind"] = kind
    obj["metadata"]["name"] = name
    obj["spec"].update(changes)
    return Runtime(obj)


class ShippedSelectionTest(unittest.TestCase):
    def setUp(self):
        self.namespaced, self.cluster = shipped_runtimes()

    def select(self, isvc):
        return select_runtime(isvc, self.namespaced, self.cluster)

    def test_the_runtimes_are_the_expected_ones(self):
        self.assertEqual(self.namespaced, [])
        self.assertEqual(sorted(r.name for r in self.cluster),
                         ["neuron-serve", "neuron-serve-grpc"])
        for runtime in self.cluster:
            with self.subTest(runtime=runtime.name):
                self.assertEqual(len(runtime.spec["protocolVersions"]), 1)
                self.assertFalse(runtime.is_multi_model())
                self.assertFalse(runtime.is_disabled())

    def test_every_shipped_inference_service_finds_a_runtime(self):
        expected = {"mlp": ("neuron-serve", "v2"), "mlp-grpc": ("neuron-serve-grpc", "grpc-v2"),
                    "mlp-raw": ("neuron-serve", "v2")}
        self.assertEqual(sorted(name_of(s) for s in _shipped()[1]), sorted(expected))
        for name, (runtime_name, protocol) in expected.items():
            with self.subTest(isvc=name):
                runtime, chosen_protocol = self.select(shipped_service(name))
                self.assertEqual((runtime.name, runtime.kind, chosen_protocol),
                                 (runtime_name, "ClusterServingRuntime", protocol))

    def test_without_a_protocol_version_no_runtime_is_found(self):
        isvc = shipped_service("mlp")
        del isvc["spec"]["predictor"]["model"]["protocolVersion"]
        with self.assertRaisesRegex(NoRuntime,
                                    "No runtime found to support specified framework/version"):
            self.select(isvc)
        # The same with `v1` spelt out.
        isvc["spec"]["predictor"]["model"]["protocolVersion"] = "v1"
        with self.assertRaises(NoRuntime):
            self.select(isvc)

    def test_a_named_runtime_needs_no_protocol_version(self):
        isvc = shipped_service("mlp")
        model = isvc["spec"]["predictor"]["model"]
        del model["protocolVersion"]
        for name, protocol in (("neuron-serve", "v2"), ("neuron-serve-grpc", "grpc-v2")):
            model["runtime"] = name
            runtime, chosen = self.select(isvc)
            self.assertEqual((runtime.name, chosen), (name, protocol))

    def test_a_named_runtime_of_another_protocol_is_refused(self):
        isvc = shipped_service("mlp-grpc")
        isvc["spec"]["predictor"]["model"]["runtime"] = "neuron-serve"
        with self.assertRaisesRegex(NoRuntime, "does not support specified protocol version"):
            self.select(isvc)

    def test_the_format_version_must_match_when_given(self):
        isvc = shipped_service("mlp")
        model = isvc["spec"]["predictor"]["model"]
        model["modelFormat"]["version"] = "2"
        with self.assertRaises(NoRuntime):
            self.select(isvc)
        del model["modelFormat"]["version"]  # any version: "mt:neuron" is in the label set
        self.assertEqual(self.select(isvc)[0].name, "neuron-serve")
        model["modelFormat"]["name"] = "onnx"
        with self.assertRaises(NoRuntime):
            self.select(isvc)

    def test_the_runtimes_pass_kserves_priority_webhook(self):
        self.assertEqual(webhook_priority_errors(self.cluster), [])
        # Both protocols on one of them would make the pair conflict: same format and priority.
        both = extra_runtime("neuron-serve-grpc", "neuron-serve-grpc",
                             protocolVersions=["v2", "grpc-v2"])
        rest = next(r for r in self.cluster if r.name == "neuron-serve")
        self.assertTrue(webhook_priority_errors([rest, both]))


class SelectionRulesTest(unittest.TestCase):
    """The rules on runtimes other than the shipped ones, so that each rule is seen to act."""

    def setUp(self):
        self.namespaced, self.cluster = shipped_runtimes()
        self.isvc = shipped_service("mlp")

    def test_autoselect_off_is_only_chosen_by_name(self):
        runtime = extra_runtime("neuron-serve", "manual", supportedModelFormats=[
            {"name": "neuron", "version": "1", "autoSelect": False, "priority": 9}])
        chosen, _ = select_runtime(self.isvc, [], [runtime] + self.cluster)
        self.assertEqual(chosen.name, "neuron-serve")
        self.isvc["spec"]["predictor"]["model"]["runtime"] = "manual"
        chosen, _ = select_runtime(self.isvc, [], [runtime] + self.cluster)
        self.assertEqual(chosen.name, "manual")

    def test_a_higher_priority_wins_among_cluster_runtimes(self):
        runtime = extra_runtime("neuron-serve", "preferred", supportedModelFormats=[
            {"name": "neuron", "version": "1", "autoSelect": True, "priority": 2}])
        chosen, _ = select_runtime(self.isvc, [], self.cluster + [runtime])
        self.assertEqual(chosen.name, "preferred")

    def test_a_namespace_runtime_comes_before_the_cluster_ones(self):
        runtime = extra_runtime("neuron-serve", "local", kind="ServingRuntime",
                                supportedModelFormats=[{"name": "neuron", "version": "1",
                                                        "autoSelect": True}])
        chosen, _ = select_runtime(self.isvc, [runtime], self.cluster)
        self.assertEqual((chosen.name, chosen.kind), ("local", "ServingRuntime"))

    def test_disabled_and_multi_model_runtimes_are_skipped(self):
        disabled = extra_runtime("neuron-serve", "off", disabled=True, supportedModelFormats=[
            {"name": "neuron", "version": "1", "autoSelect": True, "priority": 9}])
        multi = extra_runtime("neuron-serve", "mms", multiModel=True, supportedModelFormats=[
            {"name": "neuron", "version": "1", "autoSelect": True, "priority": 9}])
        chosen, _ = select_runtime(self.isvc, [], [disabled, multi] + self.cluster)
        self.assertEqual(chosen.name, "neuron-serve")
        self.isvc["spec"]["predictor"]["model"]["runtime"] = "off"
        with self.assertRaisesRegex(NoRuntime, "Specified runtime is disabled"):
            select_runtime(self.isvc, [], [disabled] + self.cluster)

    def test_a_runtime_listing_no_protocols_takes_any(self):
        runtime = extra_runtime("neuron-serve", "any", protocolVersions=[])
        isvc = copy.deepcopy(self.isvc)
        del isvc["spec"]["predictor"]["model"]["protocolVersion"]
        chosen, _ = select_runtime(isvc, [], [runtime])
        self.assertEqual(chosen.name, "any")


class PredictorPodTest(unittest.TestCase):
    """What the chosen runtime's container becomes, per deployment mode."""

    def setUp(self):
        self.namespaced, self.cluster = shipped_runtimes()

    def container_of(self, name):
        isvc = shipped_service(name)
        runtime, _ = select_runtime(isvc, self.namespaced, self.cluster)
        return isvc, runtime, merged_container(runtime, isvc)

    def test_serverless_services_give_knative_one_port_it_accepts(self):
        serverless = [name_of(s) for s in _shipped()[1] if deployment_mode(s) == "Serverless"]
        self.assertEqual(sorted(serverless), ["mlp", "mlp-grpc"])
        for name in serverless:
            with self.subTest(isvc=name):
                isvc, runtime, container = self.container_of(name)
                pod_fields = set(runtime.spec) | set(isvc["spec"]["predictor"])
                self.assertEqual(
                    knative_errors(container, runtime.spec.get("volumes"), pod_fields), [])

    def test_the_serverless_port_is_the_protocols_listener(self):
        _, _, rest = self.container_of("mlp")
        self.assertEqual([(p["name"], p["containerPort"]) for p in rest["ports"]],
                         [("http1", port_of(flag(rest, "http-listen")))])
        _, _, grpc = self.container_of("mlp-grpc")
        self.assertEqual([(p["name"], p["containerPort"]) for p in grpc["ports"]],
                         [("h2c", port_of(flag(grpc, "listen")))])
        # Its probes are gRPC ones on that port, which Knative leaves where they are.
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            self.assertEqual(grpc[probe]["grpc"]["port"], port_of(flag(grpc, "listen")), probe)

    def test_the_raw_deployment_service_carries_both_protocols(self):
        isvc, _, container = self.container_of("mlp-raw")
        self.assertEqual(deployment_mode(isvc), "RawDeployment")
        self.assertEqual(raw_service_ports(container),
                         [(RAW_SERVICE_PORT, port_of(flag(container, "http-listen")), "http1"),
                          (port_of(flag(container, "listen")),
                           port_of(flag(container, "listen")), "h2c")])
        # Knative would refuse this container: the reason raw-deployment.yaml is RawDeployment.
        self.assertIn("More than one container port is set", knative_errors(container, []))

    def test_knative_checks_can_fail(self):
        # The runtime before this change: two ports and a hostPath volume.
        _, runtime, container = self.container_of("mlp")
        container["ports"].append({"name": "h2c", "containerPort": 8081, "protocol": "TCP"})
        errors = knative_errors(container, [{"name": "lib", "hostPath": {"path": "/opt"}}])
        self.assertIn("More than one container port is set", errors)
        self.assertTrue(any("volume lib" in e for e in errors), errors)
        # Tolerations (which the runtimes once had) and a lifecycle hook.
        container["lifecycle"] = {"preStop": {"sleep": {"seconds": 5}}}
        errors = knative_errors(container, [], {"tolerations", "containers"})
        self.assertIn("tolerations: needs Knative's kubernetes.podspec-tolerations", errors)
        self.assertIn("container field lifecycle not allowed", errors)
        # An HTTP liveness probe on a gRPC-only container.
        _, _, grpc = self.container_of("mlp-grpc")
        grpc["livenessProbe"] = {"httpGet": {"path": "/v2/health/live", "port": 8080}}
        self.assertIn("livenessProbe: an HTTP GET on the gRPC port", knative_errors(grpc, []))


if __name__ == "__main__":
    deploy_manifests.main()
