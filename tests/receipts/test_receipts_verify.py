"""Verification: a genuine receipt passes; each thing tampered with is refused for its reason."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quart_bezique.receipts import (
    JwksError,
    Keyring,
    Reason,
    Signer,
    SigningKey,
    Verification,
    request_digest,
    verify_receipt,
)
from quart_bezique.receipts.jose import b64encode, canonical_json
from quart_bezique.wire.canonical import canonical_text, form_of

ENDPOINT = "/v1/hands/score"
REQUEST = b'{"trump": "\xe2\x99\xa0", "cards": ["ks", "QS", "JS", "JC"]}'
RESPONSE = b'{"cards":["KS","QS","JS","JC"],"trump":"S","score":16,"ruleset":"classic/1"}'
FIXED = settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def _receipt(signer: Signer, request: bytes = REQUEST, response: bytes = RESPONSE) -> str:
    return signer.sign(ENDPOINT, request_digest(ENDPOINT, request), response)


def _check(receipt: str, keyring: Keyring, **kwargs: Any) -> Verification:
    return verify_receipt(receipt, REQUEST, RESPONSE, keyring.jwks(), **kwargs)


def _forge(key: SigningKey, header: dict[str, Any], payload: Any) -> str:
    """A receipt with any header and payload, truly signed by ``key``."""
    signing_input = b64encode(canonical_json(header)) + "." + b64encode(canonical_json(payload))
    return signing_input + "." + b64encode(key.key.sign(signing_input.encode("ascii")))


def _header(key: SigningKey, **change: str) -> dict[str, Any]:
    return {"alg": "EdDSA", "kid": key.kid, "typ": "verdict-receipt+jws", **change}


def _claims(signer: Signer, **change: str) -> dict[str, str]:
    claims = signer.claims(ENDPOINT, request_digest(ENDPOINT, REQUEST), RESPONSE).as_dict()
    return {**claims, **change}


def test_genuine_receipt_is_valid(signer: Signer, keyring: Keyring) -> None:
    result = _check(_receipt(signer), keyring, endpoint=ENDPOINT, expected_ruleset="classic/1")
    assert result.ok and result.reason is Reason.VALID
    assert result.kid == signer.kid
    assert result.claims is not None and result.claims.build == "b" * 64
    assert result.request.recorded == result.request.recomputed
    assert (
        result.request.recomputed
        == hashlib.sha256(canonical_text(form_of(ENDPOINT), orjson.loads(REQUEST))).hexdigest()
    )
    assert result.response.recomputed == hashlib.sha256(RESPONSE).hexdigest()


def test_request_may_be_given_parsed_in_any_alias(signer: Signer, keyring: Keyring) -> None:
    receipt = _receipt(signer)
    parsed = {"cards": ["K♠", "qs", "JS", "jc"], "trump": "s"}
    assert verify_receipt(receipt, parsed, RESPONSE, keyring.jwks()).ok
    other = {"cards": ["KS", "QS", "JS", "JD"], "trump": "S"}
    result = verify_receipt(receipt, other, RESPONSE, keyring.jwks())
    assert result.reason is Reason.REQUEST_MISMATCH
    assert result.request.recorded != result.request.recomputed


def test_changed_response_is_refused(signer: Signer, keyring: Keyring) -> None:
    result = verify_receipt(_receipt(signer), REQUEST, RESPONSE + b"\n", keyring.jwks())
    assert result.reason is Reason.RESPONSE_MISMATCH
    assert result.response.recorded == hashlib.sha256(RESPONSE).hexdigest()


def test_non_json_request_bytes_are_hashed_raw(signer: Signer, keyring: Keyring) -> None:
    raw = b"\xffnot json"
    receipt = signer.sign(ENDPOINT, hashlib.sha256(raw).hexdigest(), RESPONSE)
    assert verify_receipt(receipt, raw, RESPONSE, keyring.jwks()).ok


@pytest.mark.parametrize(
    "receipt",
    ["", "a.b", "a.b.c.d", "ñ.a.b", "e30.e30.", "e30=.e30.AA", "bm90IGpzb24.e30.AA"],
)
def test_malformed_receipts(keyring: Keyring, receipt: str) -> None:
    result = _check(receipt, keyring)
    assert result.reason is Reason.MALFORMED_RECEIPT and not result.ok
    assert result.request.recorded is None and result.response.recomputed is not None


@pytest.mark.parametrize(
    "change",
    [{"typ": "JWT"}, {"crit": "x"}, {"kid": 7}, {"zip": "DEF"}],
)
def test_malformed_headers(
    signer: Signer, signing_key: SigningKey, keyring: Keyring, change: dict[str, Any]
) -> None:
    receipt = _forge(signing_key, _header(signing_key, **change), _claims(signer))
    assert _check(receipt, keyring).reason is Reason.MALFORMED_RECEIPT


@pytest.mark.parametrize("alg", ["none", "HS256", "ES256", "Ed25519", "eddsa"])
def test_other_algorithms_are_not_allowed(
    signer: Signer, signing_key: SigningKey, keyring: Keyring, alg: str
) -> None:
    receipt = _forge(signing_key, _header(signing_key, alg=alg), _claims(signer))
    assert _check(receipt, keyring).reason is Reason.ALGORITHM_NOT_ALLOWED


def test_unknown_key(signer: Signer, signing_key: SigningKey, keyring: Keyring) -> None:
    receipt = _forge(signing_key, _header(signing_key, kid="retired"), _claims(signer))
    assert _check(receipt, keyring).reason is Reason.UNKNOWN_KEY


def test_key_of_another_id_does_not_verify(signer: Signer, keyring: Keyring) -> None:
    impostor = SigningKey(signer.kid, Ed25519PrivateKey.generate())
    receipt = _receipt(Signer(impostor, version="1.0.0", build="b" * 64))
    assert _check(receipt, keyring).reason is Reason.BAD_SIGNATURE


@pytest.mark.parametrize(
    "claim",
    ["build", "endpoint", "request_sha256", "response_sha256", "ruleset", "time", "version"],
)
def test_any_claim_edited_breaks_the_signature(
    signer: Signer, keyring: Keyring, claim: str
) -> None:
    header, _, signature = _receipt(signer).split(".")
    edited = _claims(signer, **{claim: "0" * 64 if claim.endswith(("sha256", "build")) else "x"})
    receipt = f"{header}.{b64encode(canonical_json(edited))}.{signature}"
    result = _check(receipt, keyring)
    assert result.reason is Reason.BAD_SIGNATURE
    assert result.claims is not None and getattr(result.claims, claim) == edited[claim]


@pytest.mark.parametrize(
    "payload",
    [
        [],
        {"alg": "EdDSA"},
        {"extra": "x"},
        {"request_sha256": "A" * 64},
        {"build": 1},
        {"alg": "ES256"},
    ],
)
def test_signed_but_malformed_claims(
    signer: Signer, signing_key: SigningKey, keyring: Keyring, payload: Any
) -> None:
    if isinstance(payload, dict) and payload != {"alg": "EdDSA"}:
        payload = {**_claims(signer), **payload}
    receipt = _forge(signing_key, _header(signing_key), payload)
    assert _check(receipt, keyring).reason is Reason.MALFORMED_CLAIMS


def test_claims_naming_another_key(
    signer: Signer, signing_key: SigningKey, keyring: Keyring
) -> None:
    receipt = _forge(signing_key, _header(signing_key), _claims(signer, kid="other"))
    assert _check(receipt, keyring).reason is Reason.HEADER_MISMATCH


def test_expectations(signer: Signer, keyring: Keyring) -> None:
    receipt = _receipt(signer)
    assert _check(receipt, keyring, endpoint="/v1/showdown").reason is Reason.ENDPOINT_MISMATCH
    assert _check(receipt, keyring, expected_ruleset="classic/2").reason is Reason.RULESET_MISMATCH
    assert _check(receipt, keyring, expected_build="c" * 64).reason is Reason.BUILD_MISMATCH
    assert _check(receipt, keyring, expected_build="b" * 64).ok


def test_rotation(signer: Signer, signing_key: SigningKey) -> None:
    old_receipt = _receipt(signer)
    new = SigningKey("new", Ed25519PrivateKey.generate())
    rotated = Keyring(new, (new.public, signing_key.public))
    assert _check(old_receipt, rotated).ok
    assert _check(_receipt(Signer(new, version="1", build="b" * 64)), rotated).ok
    retired = Keyring(new, (new.public,))
    assert _check(old_receipt, retired).reason is Reason.UNKNOWN_KEY


def test_foreign_keys_in_a_jwks_are_ignored(signer: Signer, keyring: Keyring) -> None:
    jwks = {
        "keys": [
            {"kty": "RSA", "kid": signer.kid, "n": "AQAB", "e": "AQAB"},
            *keyring.jwks()["keys"],
        ]
    }
    assert verify_receipt(_receipt(signer), REQUEST, RESPONSE, jwks).ok


@pytest.mark.parametrize(
    "jwks",
    [
        {},
        {"keys": {}},
        {"keys": [1]},
        {"keys": [{"kty": "OKP", "crv": "Ed25519", "x": "AA", "kid": "k"}]},
    ],
)
def test_unusable_jwks_is_an_input_error(signer: Signer, jwks: Any) -> None:
    with pytest.raises(JwksError):
        verify_receipt(_receipt(signer), REQUEST, RESPONSE, jwks)


# ---------------------------------------------------------------------------- any byte flipped


def _flip(data: bytes, index: int, mask: int) -> bytes:
    index %= len(data)
    return data[:index] + bytes([data[index] ^ mask]) + data[index + 1 :]


flips = st.tuples(st.integers(min_value=0), st.integers(min_value=1, max_value=255))


@FIXED
@given(flip=flips)
def test_any_byte_of_the_receipt_flipped_is_refused(
    signer: Signer, keyring: Keyring, flip: tuple[int, int]
) -> None:
    receipt = _receipt(signer).encode("ascii")
    tampered = _flip(receipt, *flip).decode("latin-1")
    result = _check(tampered, keyring)
    assert not result.ok
    assert result.reason in {
        Reason.MALFORMED_RECEIPT,
        Reason.ALGORITHM_NOT_ALLOWED,
        Reason.UNKNOWN_KEY,
        Reason.BAD_SIGNATURE,
    }


@FIXED
@given(flip=flips)
def test_any_byte_of_the_response_flipped_is_refused(
    signer: Signer, keyring: Keyring, flip: tuple[int, int]
) -> None:
    result = verify_receipt(_receipt(signer), REQUEST, _flip(RESPONSE, *flip), keyring.jwks())
    assert result.reason is Reason.RESPONSE_MISMATCH


def _canonical(body: bytes) -> bytes | None:
    try:
        return canonical_text(form_of(ENDPOINT), orjson.loads(body))
    except orjson.JSONDecodeError:
        return None


@FIXED
@given(flip=flips)
def test_any_byte_of_the_request_flipped_is_refused_unless_equivalent(
    signer: Signer, keyring: Keyring, flip: tuple[int, int]
) -> None:
    """A flip that only changes spacing or a card's spelling (``KS`` to ``ks``) leaves the
    canonical form, and so the verdict, the same: that receipt still covers the request."""
    tampered = _flip(REQUEST, *flip)
    result = verify_receipt(_receipt(signer), tampered, RESPONSE, keyring.jwks())
    if _canonical(tampered) == _canonical(REQUEST):
        assert result.ok
    else:
        assert result.reason is Reason.REQUEST_MISMATCH
