"""What a receipt asserts, and the exact bytes it is signed as.

A verifier years later must rebuild the very bytes that were signed, with any JOSE library, so
the claims are exactly nine strings and the payload and protected header are canonical JSON
(``jose.canonical_json``: keys sorted, no whitespace, UTF-8). Anything else in a payload makes it
not a receipt (``Claims.from_payload``). docs/verification.md, "The receipt", defines each claim
and shows a payload and its header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any, Final

from .jose import ALGORITHM

TYPE: Final = "verdict-receipt+jws"
"""The ``typ`` header (RFC 7515 section 4.1.9): tells a receipt from any other JWS a key signs."""
HEADER_NAMES: Final = frozenset({"alg", "kid", "typ"})
CLAIM_NAMES: Final = frozenset(
    {
        "alg",
        "build",
        "endpoint",
        "kid",
        "request_sha256",
        "response_sha256",
        "ruleset",
        "time",
        "version",
    }
)
HEX_DIGEST: Final = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class Claims:
    """One verdict's receipt: who signed (``kid``, ``alg``), when, which software (``version``,
    ``ruleset``, ``build``), and what was asked and answered (the two digests)."""

    kid: str
    alg: str
    time: str
    """UTC, RFC 3339 with ``Z`` and microseconds, like the audit record's ``ts``."""
    version: str
    ruleset: str
    build: str
    endpoint: str
    request_sha256: str
    """SHA-256 (hex) of the request body's canonical form
    (``quart_bezique.wire.canonical.request_digest``): the audit record's ``body_sha256``."""
    response_sha256: str
    """SHA-256 (hex) of the exact response body bytes."""

    def as_dict(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in _FIELDS}

    @classmethod
    def from_payload(cls, payload: Any) -> Claims | None:
        """The claims of a decoded payload, or None unless it holds exactly these names, every
        value a string, the digests 64 lower-case hex digits and ``alg`` EdDSA."""
        if not isinstance(payload, dict) or payload.keys() != CLAIM_NAMES:
            return None
        if not all(isinstance(value, str) for value in payload.values()):
            return None
        claims = cls(**payload)
        digests = (claims.request_sha256, claims.response_sha256, claims.build)
        if claims.alg != ALGORITHM or not all(HEX_DIGEST.fullmatch(d) for d in digests):
            return None
        return claims


_FIELDS: Final = tuple(f.name for f in fields(Claims))
