"""Signing: the receipt is the documented compact JWS, and independent implementations agree."""

from __future__ import annotations

import base64
import hashlib
import json
import re

import jwt
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from quart_bezique.game.ruleset import RULESET
from quart_bezique.receipts import RECEIPT_HEADER, Keyring, Signer, SigningKey, thumbprint
from quart_bezique.receipts.jose import EncodingError, b64decode, b64encode
from quart_bezique.receipts.signer import utc_now

ENDPOINT = "/v1/hands/score"
REQUEST_SHA256 = hashlib.sha256(b'{"cards":["KS","QS","JS","JC"],"trump":"S"}').hexdigest()
RESPONSE = b'{"cards":["KS","QS","JS","JC"],"score":16,"ruleset":"classic/1"}'
RFC3339_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


def _decode(segment: str) -> bytes:
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def test_receipt_is_the_documented_compact_jws(signer: Signer, signing_key: SigningKey) -> None:
    receipt = signer.sign(ENDPOINT, REQUEST_SHA256, RESPONSE)
    header, payload, signature = receipt.split(".")
    assert _decode(header) == (
        b'{"alg":"EdDSA","kid":"' + signing_key.kid.encode() + b'","typ":"verdict-receipt+jws"}'
    )
    claims = json.loads(_decode(payload))
    assert _decode(payload) == json.dumps(claims, sort_keys=True, separators=(",", ":")).encode()
    assert claims == {
        "alg": "EdDSA",
        "build": "b" * 64,
        "endpoint": ENDPOINT,
        "kid": signing_key.kid,
        "request_sha256": REQUEST_SHA256,
        "response_sha256": hashlib.sha256(RESPONSE).hexdigest(),
        "ruleset": RULESET,
        "time": claims["time"],
        "version": "1.0.0",
    }
    assert RFC3339_UTC.fullmatch(claims["time"])
    assert len(_decode(signature)) == 64


def test_plain_cryptography_verifies_the_documented_signing_input(
    signer: Signer, private_key: Ed25519PrivateKey
) -> None:
    receipt = signer.sign(ENDPOINT, REQUEST_SHA256, RESPONSE)
    header, payload, signature = receipt.split(".")
    public = private_key.public_key()
    public.verify(_decode(signature), f"{header}.{payload}".encode("ascii"))
    with pytest.raises(InvalidSignature):
        public.verify(_decode(signature), f"{header}.{payload}x".encode("ascii"))


def test_pyjwt_verifies_with_the_published_jwks(signer: Signer, keyring: Keyring) -> None:
    receipt = signer.sign(ENDPOINT, REQUEST_SHA256, RESPONSE)
    kid = jwt.get_unverified_header(receipt)["kid"]
    key = jwt.PyJWKSet.from_dict(keyring.jwks())[kid]
    decoded = jwt.api_jws.PyJWS().decode_complete(receipt, key=key, algorithms=["EdDSA"])
    assert decoded["header"] == {"alg": "EdDSA", "kid": signer.kid, "typ": "verdict-receipt+jws"}
    assert json.loads(decoded["payload"])["response_sha256"] == hashlib.sha256(RESPONSE).hexdigest()


def test_pyjwt_refuses_a_receipt_under_another_key(signer: Signer) -> None:
    other = Ed25519PrivateKey.generate()
    other_key = SigningKey(signer.kid, other)
    jwks = Keyring(other_key, (other_key.public,)).jwks()
    receipt = signer.sign(ENDPOINT, REQUEST_SHA256, RESPONSE)
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.api_jws.PyJWS().decode_complete(
            receipt, key=jwt.PyJWKSet.from_dict(jwks)[signer.kid], algorithms=["EdDSA"]
        )


def test_receipt_fits_a_header(signer: Signer) -> None:
    receipt = signer.sign("/v1/hands/batch-score", REQUEST_SHA256, RESPONSE * 1000)
    assert len(receipt) < 1024
    assert re.fullmatch(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+", receipt)
    assert RECEIPT_HEADER == "Verdict-Receipt"


def test_signing_is_stable_but_time_moves(signing_key: SigningKey) -> None:
    fixed = Signer(signing_key, version="1.0.0", build="b" * 64, clock=lambda: "T")
    first = fixed.sign(ENDPOINT, REQUEST_SHA256, RESPONSE)
    assert first == fixed.sign(ENDPOINT, REQUEST_SHA256, RESPONSE)  # Ed25519 is deterministic
    assert first != fixed.sign(ENDPOINT, REQUEST_SHA256, RESPONSE + b" ")


def test_jwks_is_rfc8037_okp(keyring: Keyring, private_key: Ed25519PrivateKey) -> None:
    (jwk,) = keyring.jwks()["keys"]
    assert set(jwk) == {"kty", "crv", "x", "kid", "alg", "use"}
    assert (jwk["kty"], jwk["crv"], jwk["alg"], jwk["use"]) == ("OKP", "Ed25519", "EdDSA", "sig")
    assert Ed25519PublicKey.from_public_bytes(b64decode(jwk["x"])) == private_key.public_key()


# RFC 8037 appendix A: the Ed25519 key of A.1, its thumbprint (A.3) and a signature (A.4).
RFC8037_D = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"
RFC8037_THUMBPRINT = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
RFC8037_JWS = (
    "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc."
    "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"
)


def test_rfc8037_vectors() -> None:
    key = Ed25519PrivateKey.from_private_bytes(b64decode(RFC8037_D))
    assert thumbprint(key.public_key()) == RFC8037_THUMBPRINT
    header, payload, _ = RFC8037_JWS.split(".")
    signature = key.sign(f"{header}.{payload}".encode("ascii"))
    assert f"{header}.{payload}.{b64encode(signature)}" == RFC8037_JWS


@settings(derandomize=True, deadline=None)
@given(st.binary(max_size=100))
def test_base64url_round_trips(data: bytes) -> None:
    assert b64decode(b64encode(data)) == data


@pytest.mark.parametrize("text", ["QQ==", "QR", "Q", "a+b/", "YQ Y", "QUI="])
def test_base64url_has_one_spelling(text: str) -> None:
    with pytest.raises(EncodingError):
        b64decode(text)


def test_every_way_of_signing_agrees(signing_key: SigningKey) -> None:
    fixed = Signer(signing_key, version="1.0.0", build="b" * 64, clock=lambda: "T")
    claims = fixed.claims(ENDPOINT, REQUEST_SHA256, RESPONSE)
    receipt = fixed.sign(ENDPOINT, REQUEST_SHA256, RESPONSE)
    assert receipt == fixed.sign_claims(claims)
    response_sha256 = hashlib.sha256(RESPONSE).hexdigest()
    assert receipt == fixed.sign_digests(ENDPOINT, REQUEST_SHA256, response_sha256)


def test_clock_is_rfc3339_utc() -> None:
    assert RFC3339_UTC.fullmatch(utc_now())
