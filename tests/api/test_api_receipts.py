"""Verdict receipts over HTTP: every verdict signed when a key is configured, none otherwise; the
keys published; the running build described; stored verdicts re-adjudicated on demand."""

from __future__ import annotations

import copy
from typing import Any

import jwt
import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from flask import Flask
from flask.testing import FlaskClient
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.envelope import audit
from quart_bezique.api.envelope.road import Road
from quart_bezique.game.ruleset import RULESET
from quart_bezique.integrity import build_digest
from quart_bezique.receipts import Keyring, Signer, SigningKey, thumbprint

from tests.api.api_support import ok, problem
from tests.api.registry_support import VERDICT_ENDPOINTS, all_examples

VERDICTS = all_examples(VERDICT_ENDPOINTS)
"""Every request example of every verdict endpoint of the registry, by "<path> <name>"."""
SCORE_BODY: dict[str, Any] = {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}


def _key() -> SigningKey:
    private = Ed25519PrivateKey.generate()
    return SigningKey(thumbprint(private.public_key()), private)


class Signed:
    """An app signing with a fresh key (and knowing an older one, for rotation)."""

    def __init__(self) -> None:
        self.key = _key()
        self.old = _key()
        keyring = Keyring(self.key, (self.key.public, self.old.public))
        signer = Signer(self.key, version="1.0.0", build=build_digest())
        self.lines: list[bytes] = []
        self.app: Flask = create_app(
            Config(), audit_sink=self.lines.append, signing=(signer, keyring)
        )
        self.client: FlaskClient = self.app.test_client()

    def record(self) -> dict[str, Any]:
        line: dict[str, Any] = orjson.loads(self.lines[-1])
        return line


@pytest.fixture(scope="module")
def signed() -> Signed:
    return Signed()


@pytest.mark.parametrize("example", sorted(VERDICTS))
def test_every_verdict_carries_a_receipt_an_independent_library_verifies(
    signed: Signed, example: str
) -> None:
    path, body = VERDICTS[example]
    response = signed.client.post(path, json=body)
    assert response.status_code == 200
    receipt = response.headers["Verdict-Receipt"]
    record = signed.record()
    jwk = jwt.PyJWK.from_dict(signed.client.get("/.well-known/jwks.json").get_json()["keys"][0])
    claims = jwt.decode(receipt, key=jwk, algorithms=["EdDSA"])
    assert claims["endpoint"] == path == record["endpoint"]
    assert claims["request_sha256"] == record["body_sha256"]
    assert claims["response_sha256"] == audit.sha256(response.get_data())
    assert claims["ruleset"] == response.get_json()["ruleset"] == record["ruleset"]
    assert claims["build"] == build_digest()
    assert record["receipt"] == {
        "kid": signed.key.kid,
        "sha256": audit.sha256(receipt.encode("ascii")),
    }


def test_a_refusal_carries_no_receipt(signed: Signed) -> None:
    response = signed.client.post("/v1/hands/score", json={"cards": ["KS"]})
    assert response.status_code == 422
    assert "Verdict-Receipt" not in response.headers
    assert "receipt" not in signed.record()


def test_without_a_key_nothing_is_signed(client: FlaskClient) -> None:
    response = client.post("/v1/hands/score", json=SCORE_BODY)
    assert response.status_code == 200
    assert "Verdict-Receipt" not in response.headers
    assert orjson.loads(client.get("/.well-known/jwks.json").get_data()) == {"keys": []}


def test_the_jwks_lists_every_key_the_active_first(signed: Signed) -> None:
    response = signed.client.get("/.well-known/jwks.json")
    assert response.headers["Content-Type"] == "application/jwk-set+json"
    keys = response.get_json()["keys"]
    assert [k["kid"] for k in keys] == [signed.key.kid, signed.old.kid]
    assert all(k["kty"] == "OKP" and k["crv"] == "Ed25519" and "d" not in k for k in keys)


def test_the_build_is_described_and_matches_the_index(client: FlaskClient) -> None:
    build = ok(client.get("/v1/build"))
    assert build["build"] == build_digest() == ok(client.get("/"))["build"]
    assert build["ruleset"] == RULESET
    assert "quart_bezique/game/scoring.py" in build["manifest"]["files"]
    assert (
        audit.sha256(orjson.dumps(build["manifest"], option=orjson.OPT_SORT_KEYS))
        == (build["build"])
    )


def _verify(client: FlaskClient, **fields: Any) -> dict[str, Any]:
    body = {"endpoint": "/v1/hands/score", "ruleset": RULESET, **fields}
    answer: dict[str, Any] = ok(client.post("/v1/verdicts/verify", json=body))
    return answer


@pytest.mark.parametrize("example", sorted(VERDICTS))
def test_a_stored_verdict_replays_to_the_same_bytes(signed: Signed, example: str) -> None:
    path, body = VERDICTS[example]
    response = signed.client.post(path, json=body)
    receipt = response.headers["Verdict-Receipt"]
    ruleset = response.get_json()["ruleset"]
    result = _verify(signed.client, endpoint=path, ruleset=ruleset, request=body, receipt=receipt)
    assert result["match"] is True
    assert result["receipt"] == {"valid": True, "reason": "VALID", "kid": signed.key.kid}
    assert result["response_sha256"]["recomputed"] == audit.sha256(response.get_data())
    assert result["status"] == 200
    assert result["ruleset"] == ruleset


def test_a_receipt_names_the_ruleset_its_verdict_followed(signed: Signed) -> None:
    """docs/rules.md §13.6: the receipt, the answer and the audit line name one ruleset, and a
    verification that expects another is refused; the replay follows the stored request's own."""
    body = {**SCORE_BODY, "ruleset": {"base": "literal/1", "tie": "split"}}
    response = signed.client.post("/v1/hands/score", json=body)
    answer = response.get_json()
    custom = "classic/1:coronka=from_king,three_aces=0,trump_doubles=any_trump_card"
    assert answer["ruleset"] == custom and answer["score"] == 20
    receipt = response.headers["Verdict-Receipt"]
    claims = jwt.decode(receipt, options={"verify_signature": False})
    record = signed.record()
    assert claims["ruleset"] == custom == record["ruleset"]
    assert record["ruleset_sha256"] == answer["ruleset_sha256"]
    result = _verify(signed.client, ruleset=custom, request=body, receipt=receipt)
    assert result["match"] is True and result["ruleset"] == custom
    refused = _verify(signed.client, request=body, receipt=receipt)  # expects classic/1
    assert refused["match"] is False
    assert refused["receipt"]["reason"] == "RULESET_MISMATCH"
    assert refused["ruleset"] == custom  # what the replay followed


def test_the_request_may_be_spelled_differently(signed: Signed) -> None:
    response = signed.client.post("/v1/hands/score", json=SCORE_BODY)
    respelled = {"trump": "♠", "cards": ["ks", "Q♠", "js", "JC"]}
    result = _verify(signed.client, request=respelled, receipt=response.headers["Verdict-Receipt"])
    assert result["match"] is True


def test_a_receipt_for_another_request_is_refused(signed: Signed) -> None:
    response = signed.client.post("/v1/hands/score", json=SCORE_BODY)
    other = {"cards": ["KS", "QS", "JS", "JD"], "trump": "S"}
    result = _verify(signed.client, request=other, receipt=response.headers["Verdict-Receipt"])
    assert result["match"] is False
    assert result["receipt"]["reason"] == "REQUEST_MISMATCH"


def test_a_receipt_from_an_unknown_key_is_refused(signed: Signed) -> None:
    stranger = Signer(_key(), version="1.0.0", build=build_digest())
    body = SCORE_BODY
    answer = signed.client.post("/v1/hands/score", json=body).get_data()
    receipt = stranger.sign("/v1/hands/score", audit.sha256(b"x"), answer)
    result = _verify(signed.client, request=body, receipt=receipt)
    assert result["match"] is False and result["receipt"]["reason"] == "UNKNOWN_KEY"


def test_a_receipt_by_a_rotated_out_key_still_verifies(signed: Signed) -> None:
    body = SCORE_BODY
    response = signed.client.post("/v1/hands/score", json=body)
    digest = signed.record()["body_sha256"]
    old = Signer(signed.old, version="1.0.0", build=build_digest())
    receipt = old.sign("/v1/hands/score", digest, response.get_data())
    result = _verify(signed.client, request=body, receipt=receipt)
    assert result["receipt"] == {"valid": True, "reason": "VALID", "kid": signed.old.kid}


def test_a_receipt_under_another_ruleset_is_refused(signed: Signed) -> None:
    body = SCORE_BODY
    response = signed.client.post("/v1/hands/score", json=body)
    digest = signed.record()["body_sha256"]
    other = Signer(signed.key, version="1.0.0", build=build_digest(), ruleset="classic/0")
    receipt = other.sign("/v1/hands/score", digest, response.get_data())
    result = _verify(signed.client, request=body, receipt=receipt)
    assert result["match"] is False and result["receipt"]["reason"] == "RULESET_MISMATCH"


def test_an_altered_receipt_is_refused(signed: Signed) -> None:
    body = SCORE_BODY
    receipt = signed.client.post("/v1/hands/score", json=body).headers["Verdict-Receipt"]
    head, payload, signature = receipt.split(".")
    claims = orjson.loads(jwt.utils.base64url_decode(payload))
    altered = copy.deepcopy(claims)
    altered["time"] = "2020-01-01T00:00:00.000000Z"
    forged = ".".join(
        (head, jwt.utils.base64url_encode(orjson.dumps(altered, option=orjson.OPT_SORT_KEYS))
         .decode(), signature)
    )  # fmt: skip
    result = _verify(signed.client, request=body, receipt=forged)
    assert result["match"] is False and result["receipt"]["reason"] == "BAD_SIGNATURE"


def test_a_response_digest_alone_is_compared(signed: Signed) -> None:
    body = SCORE_BODY
    answer = signed.client.post("/v1/hands/score", json=body).get_data()
    assert _verify(signed.client, request=body, response_sha256=audit.sha256(answer))["match"]
    wrong = _verify(signed.client, request=body, response_sha256="0" * 64)
    assert wrong["match"] is False and wrong["receipt"] is None


def test_a_replay_leaves_no_trace_in_the_outer_audit_record(signed: Signed) -> None:
    before = len(signed.lines)
    _verify(signed.client, request=SCORE_BODY, response_sha256="0" * 64)
    assert len(signed.lines) == before + 1
    assert signed.record()["endpoint"] == "/v1/verdicts/verify"
    assert "receipt" not in signed.record()


@pytest.mark.parametrize(
    "body",
    [
        {"endpoint": "/v1/rules", "ruleset": RULESET, "request": {}},
        {"endpoint": "/v1/hands/score", "ruleset": "classic/9", "request": {}},
        {"endpoint": "/v1/hands/score", "ruleset": RULESET},
        {"endpoint": "/v1/hands/score", "ruleset": RULESET, "request": {}, "receipt": ""},
    ],
)
def test_a_malformed_verify_request_is_a_422(client: FlaskClient, body: dict[str, Any]) -> None:
    problem(client.post("/v1/verdicts/verify", json=body), 422, "VALIDATION_ERROR")


def test_a_replayed_refusal_is_reported_with_its_status(signed: Signed) -> None:
    result = _verify(signed.client, request={"cards": ["KS"]}, response_sha256="0" * 64)
    assert result["status"] == 422 and result["match"] is False


def test_the_documented_example_is_a_match(client: FlaskClient) -> None:
    """The contract's example of a verification is real: replayed now, it matches."""
    from quart_bezique.api.endpoints.verdicts import VERIFY

    (example,) = VERIFY.request_examples.values()
    assert ok(client.post("/v1/verdicts/verify", json=example))["match"] is True


OUT_OF_TURN = {
    "players": ["ann", "bob", "cid"],
    "dealer": "cid",
    "ante": 10,
    "actions": [{"player": "bob", "type": "stake", "amount": 20}],
}
"""An invalid sequence: its answer holds a sentence for people, in the language asked for."""


@pytest.mark.parametrize("language", ["en", "ru", "uk"])
@pytest.mark.parametrize("proof", ["receipt", "response_sha256"])
def test_a_verdict_given_in_any_language_replays_to_its_bytes(
    signed: Signed, language: str, proof: str
) -> None:
    """The replay finds the language the verdict was given in: without that, a reason given in
    Russian could never be proven again (its English replay differs in one sentence)."""
    path = "/v1/betting/validate"
    response = signed.client.post(path, json=OUT_OF_TURN, headers={"Accept-Language": language})
    assert response.headers["Content-Language"] == language
    stored = (
        {"receipt": response.headers["Verdict-Receipt"]}
        if proof == "receipt"
        else {"response_sha256": audit.sha256(response.get_data())}
    )
    result = _verify(signed.client, endpoint=path, request=OUT_OF_TURN, **stored)
    assert result["match"] is True
    assert result["language"] == language
    assert result["response_sha256"]["recomputed"] == audit.sha256(response.get_data())


def test_a_verdict_in_no_served_language_is_no_match(signed: Signed) -> None:
    path = "/v1/betting/validate"
    result = _verify(signed.client, endpoint=path, request=OUT_OF_TURN, response_sha256="0" * 64)
    assert result["match"] is False
    assert result["language"] == "en"


def test_a_verdict_without_a_sentence_is_replayed_once(
    signed: Signed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A score answer does not depend on the language: a wrong digest is not retried in others."""
    calls: list[str] = []
    replay = Road.replay

    def counted(self: Road, request: Any, language: str = "en") -> tuple[int, bytes, bool]:
        calls.append(language)
        return replay(self, request, language)

    monkeypatch.setattr(Road, "replay", counted)
    _verify(signed.client, request=SCORE_BODY, response_sha256="0" * 64)
    assert calls == ["en"]
