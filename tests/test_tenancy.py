"""The tenant section of --config: what it accepts, what it refuses (with the key's name), and
that the deploy files run with --require-auth and a config that loads."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from kozyr.api.auth.tickets import TicketVerifier
from kozyr.config.settings import ConfigError, load, load_tenancy
from tests.conftest import repo_root

KEY_HASH = hashlib.sha256(b"key").hexdigest()


def write(folder: Path, text: str) -> Path:
    path = folder / "kozyr.toml"
    path.write_text(text)
    return path


def test_no_file_is_the_local_tenant_in_open_mode() -> None:
    tenancy = load_tenancy(None)
    assert tenancy.ids() == ["local"] and not tenancy.require_auth
    assert tenancy.get("local") is not None and tenancy.get("acme") is None
    assert load_tenancy(None, require_auth=True).ids() == []


def test_a_tenant_with_its_keys_limits_and_webhooks(tmp_path: Path) -> None:
    (tmp_path / "t.secret").write_text("s" * 40)
    (tmp_path / "hook").write_text("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n")
    path = write(
        tmp_path,
        f"""max_message_bytes = 1048576
require_auth = true
[tenants.acme]
api_key_sha256 = ["{KEY_HASH}"]
ticket_secret_file = "t.secret"
matches_per_minute = 60
webhooks = [{{name = "main", url = "https://hooks.example/k", secret_file = "hook"}}]
""",
    )
    tenancy = load_tenancy(path)
    acme = tenancy.tenants["acme"]
    assert tenancy.require_auth and tenancy.ids() == ["acme"]
    assert acme.api_key_sha256 == (KEY_HASH,) and acme.ticket_secret == b"s" * 40
    assert acme.webhooks[0].url == "https://hooks.example/k" and acme.matches_per_minute == 60
    assert load(path).max_message_bytes == 1048576  # the limits still read from the same file
    TicketVerifier(tenancy)


@pytest.mark.parametrize(
    ("table", "names"),
    [
        ("[tenants.Bad_Id]\n", "tenant id"),
        ("[tenants.local]\n", "tenant id"),
        ('[tenants.acme]\napi_key = "plain"\n', "unknown keys"),
        ('[tenants.acme]\napi_key_sha256 = ["abc"]\n', "api_key_sha256"),
        ('[tenants.acme]\nticket_secret_file = "missing"\n', "cannot read"),
        ('[tenants.acme]\nticket_secret_file = "short"\n', "32 bytes"),
        ('[tenants.acme]\njoin_link = "https://x.example/"\n', "join_link"),
        ("[tenants.acme]\nmatches_per_minute = 0\n", "matches_per_minute"),
        (
            '[tenants.acme]\nwebhooks = [{name = "m", url = "ftp://x", secret_file = "short"}]\n',
            "http",
        ),
        ('require_auth = "yes"\n', "require_auth"),
    ],
)
def test_a_bad_tenant_section_is_refused_by_name(tmp_path: Path, table: str, names: str) -> None:
    (tmp_path / "short").write_text("too short")
    with pytest.raises(ConfigError, match=names):
        load_tenancy(write(tmp_path, table))


def test_an_unusable_ticket_key_is_refused_before_anything_starts(tmp_path: Path) -> None:
    (tmp_path / "key.pem").write_text("not a key")
    tenancy = load_tenancy(write(tmp_path, '[tenants.acme]\nticket_public_key_file = "key.pem"\n'))
    with pytest.raises(ConfigError, match="PEM"):
        TicketVerifier(tenancy)


def test_deploy_runs_with_require_auth_and_a_config_that_loads(tmp_path: Path) -> None:
    import yaml

    deploy = repo_root() / "deploy"
    compose = yaml.safe_load((deploy / "compose.yaml").read_text())
    assert "--require-auth" in compose["services"]["kozyr"]["command"]
    assert load_tenancy(deploy / "kozyr.toml").tenants
    documents = list(yaml.safe_load_all((deploy / "k8s" / "kozyr.yaml").read_text()))
    pod = next(d for d in documents if d["kind"] == "Deployment")["spec"]["template"]["spec"]
    assert "--require-auth" in pod["containers"][0]["args"]
    config = next(d for d in documents if d["kind"] == "ConfigMap")["data"]["kozyr.toml"]
    assert load_tenancy(write(tmp_path, config)).tenants and load(tmp_path / "kozyr.toml")
