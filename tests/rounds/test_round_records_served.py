"""``POST /v1/rounds/adjudicate`` and ``quart-bezique adjudicate``: the same verdict, byte for
byte, audited and signed like every verdict; refusals are the API's 422."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from flask import Flask
from flask.testing import FlaskClient
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.envelope import audit
from quart_bezique.integrity import build_digest
from quart_bezique.receipts import Keyring, Signer, SigningKey, thumbprint
from quart_bezique.wire.canonical import request_digest

from tests.cli.cli_support import run

PATH: Final = "/v1/rounds/adjudicate"
EXAMPLES: Final = Path(__file__).resolve().parents[2] / "examples" / "rounds"
NAMES: Final = sorted(p.stem for p in EXAMPLES.glob("*.json"))


def record(name: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((EXAMPLES / f"{name}.json").read_text("utf-8"))
    return found


@pytest.fixture(scope="module")
def lines() -> list[bytes]:
    return []


@pytest.fixture(scope="module")
def app(lines: list[bytes]) -> Flask:
    return create_app(Config(), audit_sink=lines.append)


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.mark.parametrize("name", NAMES)
def test_every_example_gets_a_verdict_and_an_audit_line(
    client: FlaskClient, lines: list[bytes], name: str
) -> None:
    body = record(name)
    response = client.post(PATH, json=body)
    assert response.status_code == 200, response.get_data(as_text=True)
    answer = response.get_json()
    line = orjson.loads(lines[-1])
    assert line["endpoint"] == PATH and line["status"] == 200
    assert line["verdict"]["round_id"] == body["context"]["round_id"] == answer["round_id"]
    assert line["verdict"]["valid"] is answer["betting"]["valid"]
    assert line["verdict"]["matches"] is answer["claim"]["matches"]
    assert line["response_sha256"] == audit.sha256(response.get_data())


def test_trace_is_a_request_option(client: FlaskClient) -> None:
    body = {**record("showdown-claim-matches"), "trace": True}
    answer = client.post(PATH, json=body).get_json()
    assert len(answer["betting"]["trace"]) == len(body["actions"])


def test_a_refusal_is_the_apis_422_with_every_field(client: FlaskClient) -> None:
    body = {**record("showdown-claim-matches"), "players": list("abcde"), "zzz": 1}
    response = client.post(PATH, json=body)
    assert response.status_code == 422
    errors = {(e["pointer"], e["code"]) for e in response.get_json()["errors"]}
    assert errors == {("/players", "WRONG_LENGTH"), ("/zzz", "UNKNOWN_FIELD")}


def test_a_rules_refusal_is_the_cores_code(client: FlaskClient) -> None:
    body = record("showdown-claim-matches")
    body["hands"]["ann"] = ["JC"] * 4
    body["hands"]["bob"] = ["JC", "JC", "JC", "KS"]
    problem = client.post(PATH, json=body).get_json()
    assert (problem["code"], problem["errors"][0]["pointer"]) == ("SHOE_EXCEEDED", "/hands")


def _key() -> SigningKey:
    private = Ed25519PrivateKey.generate()
    return SigningKey(thumbprint(private.public_key()), private)


def test_a_verdict_is_signed_and_its_receipt_covers_the_round_id() -> None:
    import jwt

    key = _key()
    signed_lines: list[bytes] = []
    app = create_app(
        Config(),
        audit_sink=signed_lines.append,
        signing=(Signer(key, version="1.0.0", build=build_digest()), Keyring(key, (key.public,))),
    )
    client = app.test_client()
    body = record("showdown-claim-matches")
    response = client.post(PATH, json=body)
    receipt = response.headers["Verdict-Receipt"]
    jwk = jwt.PyJWK.from_dict(client.get("/.well-known/jwks.json").get_json()["keys"][0])
    claims = jwt.decode(receipt, key=jwk, algorithms=["EdDSA"])
    assert claims["endpoint"] == PATH
    assert claims["request_sha256"] == request_digest(PATH, body)
    assert claims["response_sha256"] == audit.sha256(response.get_data())
    other = {**body, "context": {"round_id": "table-7/round-9999"}}
    again = jwt.decode(
        client.post(PATH, json=other).headers["Verdict-Receipt"], key=jwk, algorithms=["EdDSA"]
    )
    assert again["request_sha256"] != claims["request_sha256"]
    assert again["response_sha256"] != claims["response_sha256"]


@pytest.mark.parametrize("name", NAMES)
def test_the_command_prints_the_http_answers_bytes(
    client: FlaskClient, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    path = EXAMPLES / f"{name}.json"
    response = client.post(PATH, data=path.read_bytes(), content_type="application/json")
    done = run(capsys, "adjudicate", str(path), "--json")
    assert done.out.encode() == response.get_data() + b"\n"
    answer = response.get_json()
    failed = not answer["betting"]["valid"] or answer["claim"]["matches"] is False
    assert done.code == (1 if failed else 0)


def test_the_command_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    done = run(capsys, "adjudicate", str(EXAMPLES / "trump-claim-differs.json"))
    assert done.code == 1
    assert "table-7/round-1043" in done.out
    assert "/players/1/payout" in done.out and "/scores/cid" in done.out
    done = run(capsys, "adjudicate", str(EXAMPLES / "showdown-claim-matches.json"))
    assert done.code == 0 and "the claim matches the verdict" in done.out


def test_the_command_reads_stdin_and_takes_a_ruleset(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    data = (EXAMPLES / "tie-carried.json").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    done = run(capsys, "adjudicate", "-", "--json", "--ruleset", "classic/1")
    answer: Any = done.json()
    assert answer["ruleset"] == "classic/1" and answer["settlement"]["carried"] == 0
    assert answer["claim"]["matches"] is False  # the claim carried the pot; classic splits it
    assert done.code == 1


def test_the_command_refuses_a_bad_record_with_the_apis_problem(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**record("tie-carried"), "players": ["ann"]}), "utf-8")
    done = run(capsys, "adjudicate", str(bad), "--json")
    assert done.code == 2
    problem: Any = done.json()
    assert problem["errors"][0] == {
        "pointer": "/players",
        "message": "a table seats 2 to 4 players",
        "code": "WRONG_LENGTH",
    }
