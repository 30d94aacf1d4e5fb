"""Optional API keys: Bearer on /v1, 401 problem + WWW-Authenticate, constant-time comparison over
every key, keys never logged; health, readiness, metrics and docs open; fail closed on a missing
key file."""

from __future__ import annotations

import hashlib
import hmac
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config, ConfigError
from quart_bezique.api.envelope import auth

from tests.api.api_support import ROOT, problem

KEY_A = "alpha-0123456789abcdef"
KEY_B = "bravo.ZYXWVUTSRQ_~+/=="
HAND = {"cards": ["KS", "QS", "JS", "JC"]}
OPEN_PATHS = ["/healthz", "/readyz", "/metrics", "/docs", "/openapi.yaml", "/openapi.json"]


@pytest.fixture(scope="module")
def lines() -> list[bytes]:
    return []


@pytest.fixture(scope="module")
def client(lines: list[bytes]) -> FlaskClient:
    config = Config.from_env({"API_KEYS": f"{KEY_A}, {KEY_B}", "BUILD_TABLES": "false"})
    return create_app(config, audit_sink=lines.append).test_client()


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


# --- configuration ----------------------------------------------------------------------------


def test_keys_are_off_by_default() -> None:
    assert Config.from_env({}).api_keys == ()
    app = create_app(Config(build_tables=False), audit_sink=lambda line: None)
    assert app.test_client().post("/v1/hands/score", json=HAND).status_code == 200


def test_keys_from_the_variable_and_the_file_are_merged(tmp_path: Path) -> None:
    file = tmp_path / "api-keys"
    file.write_text(f"# integrators\n\n{KEY_B}\n  {KEY_A}  \n", encoding="utf-8")
    config = Config.from_env({"API_KEYS": KEY_A, "API_KEYS_FILE": str(file)})
    assert sorted(config.api_keys) == sorted(
        hashlib.sha256(k.encode()).digest() for k in (KEY_A, KEY_B)
    )
    assert KEY_A.encode() not in repr(config).encode() and KEY_A not in repr(config)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"API_KEYS_FILE": "/nonexistent/api-keys"}, "cannot be read"),
        ({"API_KEYS": " , "}, "holds no key"),
        ({"API_KEYS": "short"}, "key 1 is not a valid API key"),
        ({"API_KEYS": f"{KEY_A},has space in it!!!!"}, "key 2 is not a valid API key"),
    ],
)
def test_bad_key_configuration_refuses_to_start(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as raised:
        Config.from_env(env)
    assert "has space" not in str(raised.value) and "short" not in str(raised.value)


def test_an_empty_key_file_refuses_to_start(tmp_path: Path) -> None:
    file = tmp_path / "api-keys"
    file.write_text("# nothing yet\n\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="holds no API key"):
        Config.from_env({"API_KEYS_FILE": str(file)})


def test_gunicorn_refuses_to_start_without_the_key_file(tmp_path: Path) -> None:
    """Fail closed: a configured but missing Secret never means "no authentication"."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOST": "127.0.0.1",
        "PORT": "0",
        "WEB_CONCURRENCY": "1",
        "TMPDIR": str(tmp_path),
        "API_KEYS_FILE": str(tmp_path / "missing"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "quart_bezique.wsgi:app"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert b"API_KEYS_FILE" in done.stderr and b"refusing to start" in done.stderr


# --- requests ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "error"),
    [
        ({}, None),
        ({"Authorization": "Basic YWxhZGRpbjpvcGVuc2VzYW1l"}, None),
        ({"Authorization": "Bearer"}, "invalid_token"),
        (bearer("wrong-key-0123456789"), "invalid_token"),
        (bearer(KEY_A[:-1]), "invalid_token"),
        (bearer(KEY_A + "x"), "invalid_token"),
        ({"Authorization": f"Bearer {KEY_A} {KEY_B}"}, "invalid_token"),
    ],
)
def test_v1_needs_a_valid_key(
    client: FlaskClient, headers: dict[str, str], error: str | None
) -> None:
    response = client.post("/v1/hands/score", json=HAND, headers=headers)
    doc = problem(response, 401, "UNAUTHORIZED")
    assert doc["title"] == "Unauthorized"
    challenge = response.headers["WWW-Authenticate"]
    assert challenge.startswith('Bearer realm="quart-bezique"')
    assert (f'error="{error}"' in challenge) if error else ("error=" not in challenge)
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["X-Request-ID"]
    assert KEY_A not in response.get_data(as_text=True)


@pytest.mark.parametrize("key", [KEY_A, KEY_B])
@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_each_configured_key_is_accepted(client: FlaskClient, key: str, scheme: str) -> None:
    response = client.post(
        "/v1/hands/score", json=HAND, headers={"Authorization": f"{scheme} {key}"}
    )
    assert response.status_code == 200
    assert client.get("/v1/rules", headers=bearer(key)).status_code == 200


def test_every_v1_path_is_protected_even_unknown_ones(client: FlaskClient) -> None:
    """No 404 or 405 before authentication: they would tell a stranger which routes exist."""
    for method, path in [("GET", "/v1/nope"), ("GET", "/v1/hands/score"), ("GET", "/v1"),
                         ("DELETE", "/v1/rules"), ("OPTIONS", "/v1/showdown")]:  # fmt: skip
        problem(client.open(path, method=method), 401, "UNAUTHORIZED")
    assert client.get("/v1/nope", headers=bearer(KEY_A)).status_code == 404


@pytest.mark.parametrize("path", OPEN_PATHS)
def test_operations_endpoints_stay_open(client: FlaskClient, path: str) -> None:
    assert client.get(path).status_code == 200


def test_keys_are_never_logged(client: FlaskClient, lines: list[bytes]) -> None:
    del lines[:]
    client.post("/v1/hands/score", json=HAND, headers=bearer(KEY_A))
    client.post("/v1/hands/score", json=HAND, headers=bearer(KEY_B))
    client.post("/v1/hands/score", json=HAND, headers=bearer("not-a-key-but-long-enough"))
    client.post("/v1/hands/score", json=HAND)
    records = [orjson.loads(line) for line in lines]
    assert [r["status"] for r in records] == [200, 200, 401, 401]
    assert records[0]["key_id"] == auth.key_id(KEY_A) != records[1]["key_id"] == auth.key_id(KEY_B)
    assert len(records[0]["key_id"]) == 12
    assert "key_id" not in records[2] and "key_id" not in records[3]
    assert records[2]["verdict"] == {"code": "UNAUTHORIZED"}
    everything = b"".join(lines)
    for secret in (KEY_A, KEY_B, "not-a-key-but-long-enough", "Bearer"):
        assert secret.encode() not in everything


def test_every_key_is_compared_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Constant time: the loop never stops at the first match (or mismatch)."""
    calls: list[tuple[Any, Any]] = []
    real = hmac.compare_digest

    def counting(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", counting)  # the module auth calls it through
    keys = [f"key-number-{i:02d}-abcdefgh" for i in range(5)]
    checker = auth.ApiKeys(tuple(hashlib.sha256(k.encode()).digest() for k in keys))
    for presented in (keys[0], keys[4], "no-such-key-0123456789"):
        calls.clear()
        checker.check(f"Bearer {presented}")
        assert len(calls) == 5
        assert all(len(a) == len(b) == 32 for a, b in calls), "equal lengths: digests compared"
