"""Signing receipts: one Ed25519 signature per verdict, over a compact JWS.

Per receipt the work is one SHA-256 of the response, one small JSON serialisation, two base64url
encodings and the signature; the header and everything constant about the build are encoded once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Final

from quart_bezique.game.ruleset import RULESET
from quart_bezique.wire.clock import now as audit_now

from .claims import TYPE, Claims
from .jose import ALGORITHM, b64encode, canonical_json
from .keys import SigningKey

"""The HTTP response header a receipt travels in."""


utc_now: Final = audit_now
"""RFC 3339, UTC, microseconds, ``Z``: the audit record's clock, so a receipt's ``time`` and its
audit line's ``ts`` are written alike."""


class Signer:
    """Signs receipts with one key for one build (its version, ruleset and build digest)."""

    __slots__ = ("_build", "_clock", "_header", "_key", "_ruleset", "_version")

    def __init__(
        self,
        key: SigningKey,
        *,
        version: str,
        build: str,
        ruleset: str = RULESET,
        clock: Callable[[], str] = utc_now,
    ) -> None:
        self._key = key
        self._version = version
        self._build = build
        self._ruleset = ruleset
        self._clock = clock
        header = {"alg": ALGORITHM, "kid": key.kid, "typ": TYPE}
        self._header = b64encode(canonical_json(header)) + "."

    @property
    def kid(self) -> str:
        return self._key.kid

    def claims(self, endpoint: str, request_sha256: str, response_body: bytes) -> Claims:
        return Claims(
            kid=self._key.kid,
            alg=ALGORITHM,
            time=self._clock(),
            version=self._version,
            ruleset=self._ruleset,
            build=self._build,
            endpoint=endpoint,
            request_sha256=request_sha256,
            response_sha256=hashlib.sha256(response_body).hexdigest(),
        )

    def sign(self, endpoint: str, request_sha256: str, response_body: bytes) -> str:
        """The compact JWS receipt for one answer: ``request_sha256`` is the audit record's
        ``body_sha256`` (canonical form), ``response_body`` the exact bytes sent."""
        return self.sign_digests(
            endpoint, request_sha256, hashlib.sha256(response_body).hexdigest()
        )

    def sign_digests(
        self,
        endpoint: str,
        request_sha256: str,
        response_sha256: str,
        *,
        ruleset: str | None = None,
    ) -> str:
        """``sign`` for a caller that has hashed the response already (the audit record's
        ``response_sha256``): a large batch answer is then not hashed twice. ``ruleset``: the
        id the verdict's answer names (docs/rules.md §13.6), else the signer's default."""
        payload = {
            "alg": ALGORITHM,
            "build": self._build,
            "endpoint": endpoint,
            "kid": self._key.kid,
            "request_sha256": request_sha256,
            "response_sha256": response_sha256,
            "ruleset": ruleset or self._ruleset,
            "time": self._clock(),
            "version": self._version,
        }
        return self._signed(payload)

    def sign_claims(self, claims: Claims) -> str:
        """A receipt for claims made elsewhere (tests, tools): the same bytes ``sign`` makes."""
        return self._signed(claims.as_dict())

    def _signed(self, payload: dict[str, str]) -> str:
        signing_input = self._header + b64encode(canonical_json(payload))
        signature = self._key.key.sign(signing_input.encode("ascii"))
        return f"{signing_input}.{b64encode(signature)}"
