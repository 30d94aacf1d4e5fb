"""Checking a receipt with nothing but the exchange it covers and the published keys.

A receipt is worth something only if anyone can check it without trusting the service: this
module needs no server, no secret and no state, only the receipt, the request and response of
the exchange, and the published JWKS. The checks run in a fixed order and the first that fails
names the reason (``Reason``, listed in ``verify_receipt``); the digests are reported recorded and
recomputed whenever the payload can be read, even when an earlier step failed, to show what
changed. docs/verification.md, "Verifying a receipt", states the steps for verifiers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from cryptography.exceptions import InvalidSignature

from quart_bezique.wire.canonical import request_digest as canonical_digest

from .claims import HEADER_NAMES, TYPE, Claims
from .header import Reason
from .jose import ALGORITHM, EncodingError, b64decode
from .keys import VerificationKey, jwks_keys


@dataclass(frozen=True, slots=True)
class DigestCheck:
    """A digest as the receipt records it and as recomputed from what the verifier holds."""

    recorded: str | None
    recomputed: str | None

    @property
    def matches(self) -> bool:
        return self.recorded is not None and self.recorded == self.recomputed


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome: ``ok`` exactly when ``reason`` is ``VALID``; ``claims`` once readable (they
    are only trustworthy when the signature verified, i.e. ``reason`` is past BAD_SIGNATURE)."""

    reason: Reason
    kid: str | None
    claims: Claims | None
    request: DigestCheck
    response: DigestCheck

    @property
    def ok(self) -> bool:
        return self.reason is Reason.VALID


class JwksError(ValueError):
    """The verifier's own JWKS is unusable (not the receipt's fault: an input error)."""


def trusted_keys(jwks: Mapping[str, Any]) -> dict[str, VerificationKey]:
    """The Ed25519 keys of a JWKS by ``kid``; keys of other types are ignored."""
    try:
        return {key.kid: key for key in jwks_keys(jwks, "JWKS", skip_foreign=True)}
    except ValueError as error:
        raise JwksError(str(error)) from None


def request_digest(endpoint: str, request_body: bytes | Any) -> str:
    """SHA-256 (hex) of the request's canonical form, as the audit record's ``body_sha256``:
    raw bytes are parsed first (bytes that are not JSON are hashed as they are)."""
    if isinstance(request_body, bytes | bytearray | memoryview):
        raw = bytes(request_body)
        try:
            parsed = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return hashlib.sha256(raw).hexdigest()
        return canonical_digest(endpoint, parsed)
    return canonical_digest(endpoint, request_body)


@dataclass(frozen=True, slots=True)
class _Parts:
    header: Any
    payload: Any
    signing_input: bytes
    signature: bytes


def _split(receipt: str) -> _Parts | None:
    if not isinstance(receipt, str) or not receipt.isascii():
        return None
    segments = receipt.split(".")
    if len(segments) != 3:
        return None
    try:
        header_bytes, payload_bytes, signature = (b64decode(s) for s in segments)
        header, payload = orjson.loads(header_bytes), orjson.loads(payload_bytes)
    except (EncodingError, orjson.JSONDecodeError):
        return None
    signing_input = f"{segments[0]}.{segments[1]}".encode("ascii")
    return _Parts(header, payload, signing_input, signature)


def claimed(receipt: str) -> Claims | None:
    """What a receipt states, read without checking its signature (a caller that acts on it
    checks it afterwards with ``verify_receipt``): None unless it is shaped as a receipt."""
    parts = _split(receipt)
    return None if parts is None else Claims.from_payload(parts.payload)


def _header_ok(header: Any) -> bool:
    return (
        isinstance(header, dict)
        and header.keys() == HEADER_NAMES
        and header["typ"] == TYPE
        and isinstance(header["kid"], str)
        and isinstance(header["alg"], str)
    )


def verify_receipt(
    receipt: str,
    request_body: bytes | Any,
    response_body: bytes,
    jwks: Mapping[str, Any],
    *,
    endpoint: str | None = None,
    expected_ruleset: str | None = None,
    expected_build: str | None = None,
) -> Verification:
    """Check ``receipt`` against the exchange it claims to cover.

    ``request_body``: the raw body bytes, or the parsed JSON value; ``response_body``: the exact
    bytes answered; ``jwks``: the published keys (``JwksError`` if unusable). ``endpoint``: the
    path the exchange was sent to, when the caller knows it (else the receipt's is used to
    canonicalise the request).

    Steps, in order; the first that fails names the reason:

    1. the receipt is three strict base64url segments, the header a JSON object of exactly
       ``alg``, ``kid`` and ``typ`` (``verdict-receipt+jws``)                 -- MALFORMED_RECEIPT
    2. ``alg`` is ``EdDSA``                                              -- ALGORITHM_NOT_ALLOWED
    3. the JWKS holds an Ed25519 key with that ``kid``                            -- UNKNOWN_KEY
    4. the Ed25519 signature verifies over ``header "." payload`` (ASCII)       -- BAD_SIGNATURE
    5. the payload is the claims, exactly (``Claims.from_payload``)            -- MALFORMED_CLAIMS
    6. the claims' ``kid`` and ``alg`` are the header's                          -- HEADER_MISMATCH
    7. the endpoint is the one the caller expected (when given)                -- ENDPOINT_MISMATCH
    8. SHA-256 of the request's canonical form is ``request_sha256``            -- REQUEST_MISMATCH
    9. SHA-256 of the response bytes is ``response_sha256``                    -- RESPONSE_MISMATCH
    10. the ruleset, and the build digest, are the expected ones (when given)
                                                           -- RULESET_MISMATCH, BUILD_MISMATCH
    """
    keys = trusted_keys(jwks)
    parts = _split(receipt)
    header_ok = parts is not None and _header_ok(parts.header)
    kid: str | None = parts.header["kid"] if parts is not None and header_ok else None
    claims = Claims.from_payload(parts.payload) if parts is not None and header_ok else None
    request, response = _digests(claims, request_body, response_body, endpoint)

    def verdict(reason: Reason) -> Verification:
        return Verification(reason, kid, claims, request, response)

    if parts is None or kid is None:
        return verdict(Reason.MALFORMED_RECEIPT)
    if parts.header["alg"] != ALGORITHM:
        return verdict(Reason.ALGORITHM_NOT_ALLOWED)
    key = keys.get(kid)
    if key is None:
        return verdict(Reason.UNKNOWN_KEY)
    try:
        key.key.verify(parts.signature, parts.signing_input)
    except InvalidSignature:
        return verdict(Reason.BAD_SIGNATURE)
    if claims is None:
        return verdict(Reason.MALFORMED_CLAIMS)
    if claims.kid != kid or claims.alg != parts.header["alg"]:
        return verdict(Reason.HEADER_MISMATCH)
    if endpoint is not None and endpoint != claims.endpoint:
        return verdict(Reason.ENDPOINT_MISMATCH)
    if not request.matches:
        return verdict(Reason.REQUEST_MISMATCH)
    if not response.matches:
        return verdict(Reason.RESPONSE_MISMATCH)
    if expected_ruleset is not None and claims.ruleset != expected_ruleset:
        return verdict(Reason.RULESET_MISMATCH)
    if expected_build is not None and claims.build != expected_build:
        return verdict(Reason.BUILD_MISMATCH)
    return verdict(Reason.VALID)


def _digests(
    claims: Claims | None, request_body: bytes | Any, response_body: bytes, endpoint: str | None
) -> tuple[DigestCheck, DigestCheck]:
    """Both digests, recorded and recomputed: the request's canonicalised for the caller's
    endpoint, else the receipt's (none is known when neither is)."""
    path = endpoint if endpoint is not None else None if claims is None else claims.endpoint
    request = DigestCheck(
        None if claims is None else claims.request_sha256,
        None if path is None else request_digest(path, request_body),
    )
    response = DigestCheck(
        None if claims is None else claims.response_sha256,
        hashlib.sha256(response_body).hexdigest(),
    )
    return request, response
