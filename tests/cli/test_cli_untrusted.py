"""What the command line prints of input it did not write.

``verify`` proves a record only when its request is bytes the service would read: a genuine
receipt over bytes that repeat ``"cards"`` (the service refuses them with 400; two parsers would
read two different hands from them) is refused, and says why. And no control character of a
player id, a receipt's claim or an error detail reaches the terminal raw: each is shown escaped.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, Final

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quart_bezique.cli import ExitCode
from quart_bezique.cli.safe import CONTROLS, shown
from quart_bezique.receipts import Signer, SigningKey, thumbprint
from quart_bezique.receipts.jose import b64encode, canonical_json, public_jwk
from quart_bezique.receipts.verify import request_digest

from tests.cli.cli_support import Run, run
from tests.receipts.receipt_keys import BUILD

ENDPOINT: Final = "/v1/hands/score"
CLEAN: Final = b'{"cards":["KS","QS","JS","JC"],"trump":"S"}'
REPEATED: Final = b'{"cards":["9S","9C","9H","9D"],"cards":["KS","QS","JS","JC"],"trump":"S"}'
"""orjson (and so the receipt's canonical form) keeps the last hand; a first-wins reader sees
four nines."""
PROPERTY: Final = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _raw_controls(result: Run) -> set[str]:
    """Control characters printed raw (line breaks between lines are the output's own)."""
    return {c for c in result.out.replace("\n", "") + result.err.replace("\n", "") if c in CONTROLS}


# ------------------------------------------------------------------------------ verify


@pytest.fixture(scope="module")
def key() -> SigningKey:
    private = Ed25519PrivateKey.generate()
    return SigningKey(thumbprint(private.public_key()), private)


def _files(tmp_path: Path, key: SigningKey, record: dict[str, Any]) -> tuple[str, str]:
    jwks = {"keys": [public_jwk(key.key.public_key(), key.kid)]}
    (tmp_path / "jwks.json").write_text(json.dumps(jwks))
    (tmp_path / "record.json").write_text(json.dumps(record))
    return str(tmp_path / "record.json"), str(tmp_path / "jwks.json")


def _genuine(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, key: SigningKey, request: bytes
) -> dict[str, Any]:
    """A record of ``request`` with a receipt the key really signed over it (as the service signs:
    the canonical form's digest, the exact answer's bytes)."""
    answer = run(capsys, "--json", "score", "KS", "QS", "JS", "JC", "--trump", "S")
    response = answer.out.encode()[:-1]
    signer = Signer(key, version="1.0.0", build=BUILD)
    receipt = signer.sign(ENDPOINT, request_digest(ENDPOINT, request), response)
    return {
        "endpoint": ENDPOINT,
        "request_base64": base64.b64encode(request).decode(),
        "response_base64": base64.b64encode(response).decode(),
        "receipt": receipt,
    }


def test_a_genuine_receipt_over_clean_bytes_verifies(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, key: SigningKey
) -> None:
    record, jwks = _files(tmp_path, key, _genuine(capsys, tmp_path, key, CLEAN))
    result = run(capsys, "verify", record, "--jwks", jwks)
    assert result.code == ExitCode.OK and result.out.startswith("VALID receipt")


def test_a_genuine_receipt_over_a_repeated_key_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, key: SigningKey
) -> None:
    record, jwks = _files(tmp_path, key, _genuine(capsys, tmp_path, key, REPEATED))
    result = run(capsys, "verify", record, "--jwks", jwks)
    assert result.code == ExitCode.REFUSED
    first, why = result.out.splitlines()[:2]
    assert first == "INVALID receipt: REQUEST_REFUSED"
    assert 'repeats the key "cards"' in why
    answer = run(capsys, "--json", "verify", record, "--jwks", jwks)
    payload = answer.json()
    assert answer.code == ExitCode.REFUSED and isinstance(payload, dict)
    assert payload["ok"] is False and payload["reason"] == "REQUEST_REFUSED"
    assert payload["request_problem"]["code"] == "MALFORMED_JSON"
    assert payload["request_sha256"]["recorded"] == payload["request_sha256"]["recomputed"]


def test_a_record_that_repeats_a_key_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, key: SigningKey
) -> None:
    """The record itself is read as strictly: a second ``request`` never silently wins."""
    record, jwks = _files(tmp_path, key, _genuine(capsys, tmp_path, key, CLEAN))
    text = Path(record).read_text()
    Path(record).write_text(text[:-1] + ', "endpoint": "/v1/showdown"}')
    result = run(capsys, "--json", "verify", record, "--jwks", jwks)
    assert result.code == ExitCode.INPUT_ERROR
    assert result.json()["code"] == "MALFORMED_JSON"  # type: ignore[index]


# ------------------------------------------------------------------------------ escaping


def _with_a_control(size: int) -> st.SearchStrategy[str]:
    """Text holding at least one character of ``CONTROLS`` (no lone surrogates: not JSON)."""
    plain = st.text(st.characters(exclude_categories=["Cs"]), max_size=size // 2)
    control = st.sampled_from(sorted(CONTROLS))
    return st.tuples(plain, control, plain).map("".join)


def _forged(claims: dict[str, str], kid: str) -> str:
    header = b64encode(canonical_json({"alg": "EdDSA", "kid": kid, "typ": "verdict-receipt+jws"}))
    payload = b64encode(canonical_json(claims))
    return f"{header}.{payload}.{b64encode(b'x' * 64)}"


@PROPERTY
@given(claim=_with_a_control(40), kid=_with_a_control(20))
def test_a_forged_receipts_claims_reach_the_terminal_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, key: SigningKey, claim: str, kid: str
) -> None:
    claims = {
        "alg": "EdDSA",
        "build": BUILD,
        "endpoint": ENDPOINT,
        "kid": kid,
        "request_sha256": "a" * 64,
        "response_sha256": "b" * 64,
        "ruleset": claim,
        "time": "\x1b[1A\x1b[2K\rVALID receipt",
        "version": claim,
    }
    record = {
        "endpoint": ENDPOINT,
        "request_base64": base64.b64encode(CLEAN).decode(),
        "response": "{}",
        "receipt": _forged(claims, kid),
    }
    path, jwks = _files(tmp_path, key, record)
    result = run(capsys, "verify", path, "--jwks", jwks)
    assert result.code == ExitCode.REFUSED
    assert _raw_controls(result) == set()
    assert result.out.startswith("INVALID receipt: ")
    assert shown(claim).rstrip() in result.out  # (a table's lines end with no space)


@PROPERTY
@given(player=_with_a_control(60))
def test_player_ids_reach_the_terminal_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, player: str
) -> None:
    if not 1 <= len(player) <= 60 or player == "bob":
        return
    path = tmp_path / "round.json"
    body = {
        "players": [player, "bob"],
        "dealer": "bob",
        "ante": 10,
        "actions": [{"player": player + "?", "type": "fold"}],
    }
    path.write_text(json.dumps(body))
    for command in ("validate", "settle"):
        result = run(capsys, command, str(path))
        assert _raw_controls(result) == set()
    table = run(capsys, "validate", str(path))
    assert table.code == ExitCode.REFUSED
    assert shown(player) in table.out
    plain = run(capsys, "validate", str(_plain(tmp_path, body, player)))
    assert len(table.out.splitlines()) == len(plain.out.splitlines())  # no line of its own


def _plain(tmp_path: Path, body: dict[str, Any], player: str) -> Path:
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(body).replace(json.dumps(player)[1:-1], "ann"))
    return path


def test_an_error_detail_reaches_the_terminal_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The schema's refusal points at the unknown member by its name: a title-setting OSC."""
    path = tmp_path / "round.json"
    path.write_text(
        json.dumps({"players": ["a", "b"], "dealer": "b", "ante": 1, "\x1b]0;x\x07": 1})
    )
    result = run(capsys, "validate", str(path))
    assert result.code == ExitCode.INPUT_ERROR
    assert _raw_controls(result) == set()
    assert "/\\x1b]0;x\\x07: is not a field of this request" in result.err
