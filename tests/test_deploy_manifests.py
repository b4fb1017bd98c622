"""deploy/kubernetes: every kustomization rendered as a user applies it (`kubectl kustomize`), validated offline
against the Kubernetes schemas (kubernetes-validate, strict), and held to what the server needs."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from reward_server.cli import build_parser
from reward_server.metrics import ServerMetrics
from sandboxes.languages import LanguageTable
from sandboxes.policy import wall_backstop_s
from tests.conftest import ROOT

KUSTOMIZE = ROOT / "deploy" / "kubernetes"
RENDERED = ("base", "overlays/tls", "overlays/mtls", "overlays/production")
# An older release still in use (the manifests use nothing newer: appArmorProfile is 1.30, gRPC probes 1.27), and
# the newest schemas.
VERSIONS = ("1.34.0", kubernetes_validate.latest_version())
NAMESPACE = "reward"
CLUSTER_SCOPED = {"Namespace"}

# tests/setup_kubectl.sh (./test.sh runs it) pins one in the environment's bin: that one first
KUBECTL = shutil.which("kubectl", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed: tests/setup_kubectl.sh installs it")


@functools.cache
def render(directory: str) -> tuple[dict, ...]:
    done = subprocess.run([KUBECTL, "kustomize", str(KUSTOMIZE / directory)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return tuple(doc for doc in yaml.safe_load_all(done.stdout) if doc)


def one(directory: str, kind: str, name: str = "reward-server") -> dict:
    [found] = [doc for doc in render(directory) if doc["kind"] == kind and doc["metadata"]["name"] == name]
    return found


def test_every_kustomization_is_rendered_here() -> None:
    found = {str(path.parent.relative_to(KUSTOMIZE)) for path in KUSTOMIZE.rglob("kustomization.yaml")}
    assert found - {f"components/{c.name}" for c in (KUSTOMIZE / "components").iterdir()} == set(RENDERED)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("directory", RENDERED)
def test_renders_and_validates_against_the_schemas(directory: str, version: str) -> None:
    for doc in render(directory):
        kubernetes_validate.validate(doc, version, strict=True)  # raises naming the path that is wrong
        if doc["kind"] not in CLUSTER_SCOPED:
            assert doc["metadata"].get("namespace") == NAMESPACE, (directory, doc["kind"], doc["metadata"]["name"])


@pytest.mark.parametrize("directory", RENDERED)
def test_the_pod_fits_the_server(directory: str, table: LanguageTable) -> None:
    pod = one(directory, "Deployment")["spec"]["template"]["spec"]
    [container] = pod["containers"]
    args = build_parser().parse_args(container["args"])  # the real command line: an unknown flag fails here

    # The drain: --grace covers the longest single candidate; the pod's grace period covers the drain.
    longest_s = max(lang.compile_timeout_s for lang in table) + wall_backstop_s(max(lang.timeout_s for lang in table))
    assert args.grace >= longest_s
    assert pod["terminationGracePeriodSeconds"] > args.grace

    # Resources follow --workers: a core per slot and one for the server; each slot's largest memory limit.
    workers = args.workers
    slot_mb = max(max(lang.memory_mb, lang.compile_memory_mb) for lang in table)
    resources = container["resources"]
    assert resources["requests"] == resources["limits"]  # Guaranteed QoS
    assert resources["limits"]["cpu"] == str(workers + 1)
    assert _mebibytes(resources["limits"]["memory"]) >= workers * slot_mb + 1024

    # Probes: native gRPC on a port that answers health in plaintext (the health port once TLS is on).
    probe_port = args.health_port if args.tls_cert else args.port
    ports = {port["containerPort"] for port in container["ports"]}
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"] == {"port": probe_port, "service": "reward.v1.RewardService"}
    assert {probe_port, args.port, args.metrics_port} <= ports

    # Every file a flag names is in a mounted volume.
    mounts = {mount["mountPath"] for mount in container["volumeMounts"]}
    files = [args.auth_token_file, args.tls_cert, args.tls_key, args.tls_client_ca]
    assert args.auth_token_file is not None and all(str(f.parent) in mounts for f in files if f is not None)
    assert container["securityContext"]["privileged"] is True and container["securityContext"]["runAsUser"] == 0

    # Sandboxes bounded by cgroups or no start: a privileged pod always has them, so rlimit mode would be a fault.
    assert args.process_limits == "cgroup"


@pytest.mark.parametrize("directory", RENDERED)
def test_the_pod_needs_no_node_label_for_cgroups(directory: str) -> None:
    """cgroup v2, what every current node image boots with, is all the backend needs: no hand-applied label picks
    the nodes (the base once required reward-server/cgroup=v1)."""
    pod = one(directory, "Deployment")["spec"]["template"]["spec"]
    placement = json.dumps({field: pod.get(field) for field in ("nodeSelector", "affinity")})
    assert "cgroup" not in placement, placement


@pytest.mark.parametrize("directory", RENDERED)
def test_only_the_trainer_namespace_reaches_the_servers(directory: str) -> None:
    service = one(directory, "Service")
    assert service["spec"]["clusterIP"] == "None"  # headless: clients balance over the pods themselves
    policy = one(directory, "NetworkPolicy")
    assert policy["spec"]["egress"] == []
    [rule] = policy["spec"]["ingress"]
    assert rule["from"] == [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "trainer"}}}]
    others = [doc for doc in render(directory) if doc["kind"] == "NetworkPolicy" and doc is not policy]
    for other in others:  # only ever the metrics port, to monitoring
        assert [port["port"] for rule in other["spec"]["ingress"] for port in rule["ports"]] == ["metrics"]


def test_queue_depth_autoscaling_reads_the_metric_the_server_exports() -> None:
    hpa = one("overlays/production", "HorizontalPodAutoscaler")
    names = {metric["pods"]["metric"]["name"] for metric in hpa["spec"]["metrics"] if metric["type"] == "Pods"}
    exported = {family.name for family in ServerMetrics().registry.collect()}
    assert names == {"reward_queue_depth"} <= exported
    assert {m["resource"]["name"] for m in hpa["spec"]["metrics"] if m["type"] == "Resource"} == {"cpu"}


def _mebibytes(quantity: str) -> float:
    units = {"Mi": 1, "Gi": 1024, "Ti": 1024 * 1024}
    return float(quantity[:-2]) * units[quantity[-2:]]
