"""The deploy files are checked, not hoped for: the Kubernetes manifests validate against a
pinned Kubernetes version, the image runs `kozyr serve` with flags it knows as a non-root user
on a Python without the 3.11 asyncio defect, compose runs three replicas behind a gRPC-aware
balancer on a Redis with AOF and a password, and the package the image installs builds.
(docker itself is not available here.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes_validate import utils as k8s

from kozyr.cli import build_parser, main
from tests.conftest import ServerThread, repo_root

KUBERNETES = "1.33.0"  # the version the manifests are validated against (pinned)
DEPLOY = repo_root() / "deploy"


def manifests() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


def of_kind(kind: str) -> dict[str, Any]:
    found = [d for d in manifests() if d["kind"] == kind]
    assert found, f"no {kind} in deploy/k8s"
    return found[0]


def test_every_manifest_validates_against_the_pinned_kubernetes() -> None:
    docs = manifests()
    for doc in docs:
        k8s.validate(doc, KUBERNETES, strict=True)  # raises ValidationError with the path
    kinds = {d["kind"] for d in docs}
    assert {
        "Deployment",
        "Service",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "ConfigMap",
        "Secret",
    } <= kinds


def test_the_deployment_probes_grpc_health_and_runs_as_non_root() -> None:
    pod = of_kind("Deployment")["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert container["readinessProbe"]["grpc"]["port"] == 50051
    assert container["livenessProbe"]["grpc"]["port"] == 50051
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert of_kind("HorizontalPodAutoscaler")["spec"]["scaleTargetRef"]["name"] == "kozyr"
    assert of_kind("PodDisruptionBudget")["spec"]["minAvailable"] >= 2
    secret_keys = {*of_kind("Secret").get("stringData", {}), *of_kind("Secret").get("data", {})}
    volume = next(v for v in pod["volumes"] if v["name"] == "secrets")["secret"]
    assert {i["key"] for i in volume["items"]} <= secret_keys
    # The pod's flags are `kozyr serve` flags, after the image's entry point.
    build_parser(serve_only=True).parse_args(entrypoint()[1:] + container["args"])


def dockerfile() -> list[str]:
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    return [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def entrypoint() -> list[str]:
    line = next(ln for ln in dockerfile() if ln.startswith("ENTRYPOINT"))
    command: list[str] = json.loads(line.removeprefix("ENTRYPOINT"))
    return command


def test_the_image_is_slim_non_root_and_its_entry_point_is_kozyr_serve() -> None:
    lines = dockerfile()
    final = [ln for ln in lines if ln.startswith("FROM")][-1]
    assert final.startswith("FROM python:3.12-slim"), "3.11's asyncio.wait_for can hang"
    user = [ln for ln in lines if ln.startswith("USER")][-1].split()[1]
    assert user not in ("root", "0")
    assert entrypoint()[:2] == ["kozyr", "serve"]
    build_parser(serve_only=True).parse_args(entrypoint()[1:])
    check = next(ln for ln in lines if ln.startswith("HEALTHCHECK"))
    assert '"kozyr", "health"' in check


def test_compose_runs_three_replicas_behind_a_grpc_balancer_on_a_durable_redis() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    assert compose["kozyr"]["deploy"]["replicas"] == 3
    assert "ports" not in compose["kozyr"] and "ports" not in compose["redis"]
    redis = " ".join(compose["redis"]["command"])
    assert "--appendonly yes" in redis and "--requirepass" in redis
    build_parser(serve_only=True).parse_args(entrypoint()[1:] + compose["kozyr"]["command"])
    envoy = yaml.safe_load((DEPLOY / "envoy.yaml").read_text())["static_resources"]
    cluster = envoy["clusters"][0]
    assert "grpc_health_check" in cluster["health_checks"][0]
    options = cluster["typed_extension_protocol_options"]
    assert "http2_protocol_options" in json.dumps(options)
    endpoint = cluster["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]
    assert endpoint["address"]["socket_address"]["address"] == "kozyr"


@pytest.mark.slow
def test_the_package_the_image_installs_builds(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--quiet",
            "--wheel-dir",
            str(tmp_path),
            str(repo_root()),
        ],
        check=True,
        timeout=300,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("kozyr-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "kozyr/cli/commands.py",
        "kozyr/_proto/kozyr/v1/kozyr_pb2.py",
        "kozyr/docs/rules.md",
        "kozyr/cli/health_command.py",
        "kozyr/store/redis/append.lua",
        "kozyr/py.typed",
    ):
        assert needed in names, needed
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "kozyr = kozyr.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_kozyr_health_says_serving_or_not(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["health", "--address", server.address]) == 0
    assert "SERVING" in capsys.readouterr().out
    assert main(["health", "--address", "127.0.0.1:1", "--timeout", "1"]) == 1


def test_every_deploy_file_serves_the_web_port() -> None:
    """The README promises a web port (Connect, gRPC-Web and the page): the image starts it,
    compose publishes it through Envoy, and Kubernetes exposes it on the pod and the Service."""
    lines = dockerfile()
    exposed = {int(p) for ln in lines if ln.startswith("EXPOSE") for p in ln.split()[1:]}
    args = build_parser(serve_only=True).parse_args(entrypoint()[1:])
    assert args.web_port in exposed and 50051 in exposed
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    assert f"127.0.0.1:{args.web_port}:{args.web_port}" in compose["envoy"]["ports"]
    envoy = yaml.safe_load((DEPLOY / "envoy.yaml").read_text())["static_resources"]
    listener = next(
        lst
        for lst in envoy["listeners"]
        if lst["address"]["socket_address"]["port_value"] == args.web_port
    )
    routed = json.dumps(listener)
    cluster = next(c for c in envoy["clusters"] if f'"cluster": "{c["name"]}"' in routed)
    endpoint = cluster["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]
    assert endpoint["address"]["socket_address"] == {"address": "kozyr", "port_value": 8080}
    assert "http_health_check" in cluster["health_checks"][0]
    pod = of_kind("Deployment")["spec"]["template"]["spec"]
    ports = {p["name"]: p["containerPort"] for p in pod["containers"][0]["ports"]}
    assert ports["web"] == args.web_port
    service = next(
        d for d in manifests() if d["kind"] == "Service" and d["metadata"]["name"] == "kozyr"
    )
    assert any(p["targetPort"] == "web" for p in service["spec"]["ports"])


def test_the_servers_user_can_read_its_secrets_and_nobody_else() -> None:
    """Secrets mounted root-owned and 0400 are unreadable by the pod's uid 10001: the pod's
    fsGroup makes them group-readable for that user only; compose hands them to uid 10001."""
    user = [ln for ln in dockerfile() if ln.startswith("USER")][-1].split()[1]
    pod = of_kind("Deployment")["spec"]["template"]["spec"]
    context = pod["securityContext"]
    assert str(context["runAsUser"]) == user
    volume = next(v for v in pod["volumes"] if v["name"] == "secrets")["secret"]
    mode = volume["defaultMode"]
    assert context.get("fsGroup") == context["runAsGroup"], "secrets would be root's alone"
    assert mode & 0o040 and not mode & 0o007 and not mode & 0o222, oct(mode)
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]["kozyr"]
    for secret in compose["secrets"]:
        assert secret["uid"] == user and int(secret["mode"]) & 0o400, secret
        assert not int(secret["mode"]) & 0o077, secret


def test_make_run_honours_port_and_web_port() -> None:
    """`make run` listens where PORT and WEB_PORT say (8080 and 50051 may be taken)."""
    # Not the make running this test (MAKEFLAGS, MAKELEVEL): a fresh one, as a user types it.
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    env.update(PORT="6123", WEB_PORT="6124")
    dry = subprocess.run(
        ["make", "--no-print-directory", "-n", "run"],
        cwd=repo_root(),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = [ln.split() for ln in dry.stdout.splitlines() if " serve " in f" {ln} "]
    assert lines, dry.stdout
    serve = lines[-1]
    assert serve[1:2] == ["serve"], dry.stdout
    args = build_parser(serve_only=True).parse_args(serve[1:])
    assert (args.address, args.web_port) == ("127.0.0.1:6123", 6124)
