#!/usr/bin/python3
"""Every pod that deploy/ describes passes Pod Security `restricted` (and so `baseline`).

The pods: each workload's template in the Kubernetes overlays, and each KServe serving runtime's
spec, which KServe turns into the predictor's pod (what KServe and Knative add to that pod, the
storage initializer and the queue-proxy, is theirs: deploy/kserve/README.md says what they need).

The checks are Kubernetes 1.29's, written again here from the Pod Security admission's own
source (kubernetes/pod-security-admission, tag v0.29.9, the module Kubernetes 1.29.9 builds in):
one function per policy/check_*.go, named after it, at the newest version of each check that
1.29 applies. Not modelled, as no pod here uses them: the relaxations for pods in a user
namespace (`hostUsers: false`) and for Windows pods; the tests below make sure of that.

Exceptions: none. A pod that needs a field `restricted` forbids must be listed in EXCEPTIONS with
the field and the reason, and the test then checks that this is its only violation.

Usage (ctest passes the flag; see tests/deploy/CMakeLists.txt):
  pod_security_test.py --deploy-dir=DIR [unittest arguments]
"""

import copy
import unittest

import deploy_manifests
from deploy_manifests import pods_of, render, render_all

# (kustomization, pod description) -> {check name: why the pod needs what it forbids}.
EXCEPTIONS = {}

# check_capabilities_baseline.go: the capabilities a container may add at `baseline`.
BASELINE_CAPABILITIES = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL",
                         "MKNOD", "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID",
                         "SYS_CHROOT"}
# check_sysctls.go (1.29: the 1.27 list).
SAFE_SYSCTLS = {"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
                "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
                "net.ipv4.ip_unprivileged_port_start", "net.ipv4.ip_local_reserved_ports",
                "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
                "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"}
# check_seLinuxOptions.go.
SELINUX_TYPES = {"", "container_t", "container_init_t", "container_kvm_t"}
# check_restrictedVolumes.go: the volume sources `restricted` allows.
RESTRICTED_VOLUME_TYPES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
                           "persistentVolumeClaim", "projected", "secret"}
# check_seccompProfile_*.go.
SECCOMP_ALLOWED = {"RuntimeDefault", "Localhost"}


def containers(pod):
    """check helpers.go visitContainers: init, regular and ephemeral containers."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container in pod.get(key) or []:
            yield container


def context(container):
    return container.get("securityContext") or {}


# ---- baseline -----------------------------------------------------------------------------

def check_windows_host_process(meta, pod):
    bad = [c["name"] for c in containers(pod)
           if (context(c).get("windowsOptions") or {}).get("hostProcess") is True]
    if ((pod.get("securityContext") or {}).get("windowsOptions") or {}).get("hostProcess"):
        bad.append("pod")
    return [f"hostProcess: {', '.join(bad)}"] if bad else []


def check_host_namespaces(meta, pod):
    return [f"{field}=true" for field in ("hostNetwork", "hostPID", "hostIPC")
            if pod.get(field) is True]


def check_privileged(meta, pod):
    return [f"privileged: {c['name']}" for c in containers(pod)
            if context(c).get("privileged") is True]


def check_capabilities_baseline(meta, pod):
    found = []
    for c in containers(pod):
        added = set((context(c).get("capabilities") or {}).get("add") or [])
        if added - BASELINE_CAPABILITIES:
            found.append(f"{c['name']} adds {sorted(added - BASELINE_CAPABILITIES)}")
    return found


def check_host_path_volumes(meta, pod):
    return [f"hostPath volume {v['name']}" for v in pod.get("volumes") or [] if "hostPath" in v]


def check_host_ports(meta, pod):
    return [f"{c['name']} hostPort {p['hostPort']}" for c in containers(pod)
            for p in c.get("ports") or [] if p.get("hostPort", 0) != 0]


def check_app_armor_profile(meta, pod):
    found = []
    for key, value in (meta.get("annotations") or {}).items():
        if key.startswith("container.apparmor.security.beta.kubernetes.io/"):
            if value not in ("", "runtime/default") and not value.startswith("localhost/"):
                found.append(f"{key}={value}")
    return found


def check_se_linux_options(meta, pod):
    found = []
    holders = [("pod", pod.get("securityContext") or {})] + [
        (c["name"], context(c)) for c in containers(pod)]
    for name, holder in holders:
        options = holder.get("seLinuxOptions") or {}
        if options.get("type", "") not in SELINUX_TYPES:
            found.append(f"{name}: seLinuxOptions.type {options['type']}")
        for field in ("user", "role"):
            if options.get(field):
                found.append(f"{name}: seLinuxOptions.{field}")
    return found


def check_proc_mount(meta, pod):
    return [f"{c['name']} procMount {context(c)['procMount']}" for c in containers(pod)
            if context(c).get("procMount") not in (None, "Default")]


def check_seccomp_profile_baseline(meta, pod):
    found = []
    pod_type = ((pod.get("securityContext") or {}).get("seccompProfile") or {}).get("type")
    if pod_type is not None and pod_type not in SECCOMP_ALLOWED:
        found.append(f"pod seccompProfile {pod_type}")
    for c in containers(pod):
        kind = (context(c).get("seccompProfile") or {}).get("type")
        if kind is not None and kind not in SECCOMP_ALLOWED:
            found.append(f"{c['name']} seccompProfile {kind}")
    return found


def check_sysctls(meta, pod):
    return [f"sysctl {s['name']}" for s in (pod.get("securityContext") or {}).get("sysctls") or []
            if s["name"] not in SAFE_SYSCTLS]


# ---- restricted ---------------------------------------------------------------------------

def check_restricted_volumes(meta, pod):
    found = []
    for volume in pod.get("volumes") or []:
        sources = [k for k in volume if k != "name"]
        if not sources or any(s not in RESTRICTED_VOLUME_TYPES for s in sources):
            found.append(f"volume {volume['name']}: {sources}")
    return found


def check_allow_privilege_escalation(meta, pod):
    # 1.25+: must be set to false, explicitly, on every container.
    return [f"{c['name']} allowPrivilegeEscalation != false" for c in containers(pod)
            if context(c).get("allowPrivilegeEscalation") is not False]


def check_run_as_non_root(meta, pod):
    pod_value = (pod.get("securityContext") or {}).get("runAsNonRoot")
    found = ["pod runAsNonRoot=false"] if pod_value is False else []
    for c in containers(pod):
        value = context(c).get("runAsNonRoot")
        if value is False or (value is None and pod_value is not True):
            found.append(f"{c['name']} runAsNonRoot != true")
    return found


def check_run_as_user(meta, pod):
    found = ["pod runAsUser=0"] if (pod.get("securityContext") or {}).get("runAsUser") == 0 \
        else []
    return found + [f"{c['name']} runAsUser=0" for c in containers(pod)
                    if context(c).get("runAsUser") == 0]


def check_seccomp_profile_restricted(meta, pod):
    pod_type = ((pod.get("securityContext") or {}).get("seccompProfile") or {}).get("type")
    found = [] if pod_type is None or pod_type in SECCOMP_ALLOWED else [
        f"pod seccompProfile {pod_type}"]
    for c in containers(pod):
        kind = (context(c).get("seccompProfile") or {}).get("type")
        if kind is None and pod_type not in SECCOMP_ALLOWED:
            found.append(f"{c['name']} sets no seccompProfile, nor does the pod")
        elif kind is not None and kind not in SECCOMP_ALLOWED:
            found.append(f"{c['name']} seccompProfile {kind}")
    return found


def check_capabilities_restricted(meta, pod):
    found = []
    for c in containers(pod):
        capabilities = context(c).get("capabilities") or {}
        if "ALL" not in (capabilities.get("drop") or []):
            found.append(f"{c['name']} does not drop ALL")
        if set(capabilities.get("add") or []) - {"NET_BIND_SERVICE"}:
            found.append(f"{c['name']} adds {capabilities['add']}")
    return found


BASELINE = (check_windows_host_process, check_host_namespaces, check_privileged,
            check_capabilities_baseline, check_host_path_volumes, check_host_ports,
            check_app_armor_profile, check_se_linux_options, check_proc_mount,
            check_seccomp_profile_baseline, check_sysctls)
RESTRICTED = BASELINE + (check_restricted_volumes, check_allow_privilege_escalation,
                         check_run_as_non_root, check_run_as_user,
                         check_seccomp_profile_restricted, check_capabilities_restricted)


def violations(meta, pod, checks=RESTRICTED):
    """{check name: [what it found]} for the checks the pod fails."""
    found = {}
    for check in checks:
        result = check(meta, pod)
        if result:
            found[check.__name__] = result
    return found


def all_pods():
    return [(kustomization, description, meta, pod)
            for kustomization, objects in render_all().items()
            for description, meta, pod in pods_of(objects)]


class RestrictedTest(unittest.TestCase):
    def test_every_pod_passes_restricted(self):
        pods = all_pods()
        described = {(k, d) for k, d, _, _ in pods}
        # The pods there are today, so that none is silently left out.
        for expected in (("kubernetes/overlays/sidecar", "Deployment example-app"),
                         ("kubernetes/overlays/daemonset", "DaemonSet neuron-serve"),
                         ("kubernetes/overlays/daemonset-cert-manager", "DaemonSet neuron-serve"),
                         ("kserve", "ClusterServingRuntime neuron-serve"),
                         ("kserve", "ClusterServingRuntime neuron-serve-grpc")):
            self.assertIn(expected, described)
        for kustomization, description, meta, pod in pods:
            with self.subTest(kustomization=kustomization, pod=description):
                found = violations(meta, pod)
                allowed = EXCEPTIONS.get((kustomization, description), {})
                self.assertEqual(sorted(found), sorted(allowed), found)

    def test_no_pod_relies_on_a_relaxation_not_modelled(self):
        for kustomization, description, meta, pod in all_pods():
            with self.subTest(kustomization=kustomization, pod=description):
                self.assertNotEqual(pod.get("hostUsers"), False)
                self.assertNotEqual((pod.get("os") or {}).get("name"), "windows")


class ChecksCanFailTest(unittest.TestCase):
    """The checks on rendered pods made wrong one field at a time."""

    def daemonset_pod(self):
        objects = render("kubernetes/overlays/daemonset")
        _, meta, pod = next(p for p in pods_of(objects) if p[0] == "DaemonSet neuron-serve")
        self.assertEqual(violations(meta, pod), {})
        return meta, pod

    def test_a_host_path_volume_fails_baseline_and_restricted(self):
        meta, pod = self.daemonset_pod()
        pod["volumes"].append({"name": "lib", "hostPath": {"path": "/opt/aws/neuron/lib"}})
        found = violations(meta, pod)
        self.assertEqual(sorted(found), ["check_host_path_volumes", "check_restricted_volumes"])
        self.assertIn("check_host_path_volumes", violations(meta, pod, BASELINE))

    def test_each_restricted_field(self):
        cases = [
            ("check_allow_privilege_escalation",
             lambda pod: pod["containers"][0]["securityContext"].pop("allowPrivilegeEscalation")),
            ("check_run_as_non_root",
             lambda pod: pod["containers"][0]["securityContext"].update(runAsNonRoot=False)),
            ("check_run_as_user",
             lambda pod: pod["initContainers"][0]["securityContext"].update(runAsUser=0)),
            ("check_seccomp_profile_restricted",
             lambda pod: pod["securityContext"].pop("seccompProfile")),
            ("check_capabilities_restricted",
             lambda pod: pod["containers"][0]["securityContext"]["capabilities"].update(
                 drop=["NET_RAW"])),
            ("check_restricted_volumes",
             lambda pod: pod["volumes"].append({"name": "nfs", "nfs": {"server": "s",
                                                                       "path": "/"}})),
            ("check_host_namespaces", lambda pod: pod.update(hostNetwork=True)),
            ("check_host_ports",
             lambda pod: pod["containers"][0]["ports"][0].update(hostPort=8001)),
            ("check_privileged",
             lambda pod: pod["containers"][0]["securityContext"].update(privileged=True)),
            ("check_capabilities_baseline",
             lambda pod: pod["containers"][0]["securityContext"]["capabilities"].update(
                 add=["SYS_ADMIN"])),
            ("check_seccomp_profile_baseline",
             lambda pod: pod["securityContext"].update(seccompProfile={"type": "Unconfined"})),
            ("check_sysctls",
             lambda pod: pod["securityContext"].update(sysctls=[{"name": "kernel.msgmax",
                                                                 "value": "1"}])),
            ("check_se_linux_options",
             lambda pod: pod["securityContext"].update(seLinuxOptions={"type": "spc_t"})),
            ("check_proc_mount",
             lambda pod: pod["containers"][0]["securityContext"].update(procMount="Unmasked")),
        ]
        for check, change in cases:
            with self.subTest(check=check):
                meta, pod = self.daemonset_pod()
                change(pod)
                self.assertIn(check, violations(meta, pod))

    def test_run_as_non_root_needs_the_pod_or_every_container(self):
        meta, pod = self.daemonset_pod()
        del pod["securityContext"]["runAsNonRoot"]
        self.assertEqual(violations(meta, pod), {})  # every container sets it itself
        del pod["initContainers"][0]["securityContext"]["runAsNonRoot"]
        self.assertEqual(violations(meta, pod), {
            "check_run_as_non_root": ["model-repository runAsNonRoot != true"]})

    def test_a_serving_runtime_without_its_container_seccomp_profile_fails(self):
        objects = render("kserve")
        _, meta, spec = next(p for p in pods_of(objects)
                             if p[0] == "ClusterServingRuntime neuron-serve")
        spec = copy.deepcopy(spec)
        del spec["containers"][0]["securityContext"]["seccompProfile"]
        self.assertIn("check_seccomp_profile_restricted", violations(meta, spec))

    def test_an_app_armor_annotation_other_than_the_default_fails(self):
        meta, pod = self.daemonset_pod()
        meta.setdefault("annotations", {})[
            "container.apparmor.security.beta.kubernetes.io/neuron-serve"] = "unconfined"
        self.assertIn("check_app_armor_profile", violations(meta, pod))


if __name__ == "__main__":
    deploy_manifests.main()
