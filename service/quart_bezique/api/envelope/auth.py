"""Optional API keys: ``Authorization: Bearer <key>`` on every ``/v1`` request (RFC 6750).

An adjudicator reachable by anyone on the network must be able to refuse strangers without
telling them anything, in constant time and cheaply. A presented key is hashed once and compared
with **every** configured digest (``config.py`` keeps no key), so the time taken depends neither
on how much of a key is right, nor on which key matched, nor on its length; the 401 is prepared
once as bytes in each served language, so refusing costs less than serving. Which requests need a
key is the route's decision (``routes.py``), never the path's spelling. docs/operations.md, "API
keys", states the rules integrators and operators see.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Final

from quart_bezique.api.contract.i18n import ENGLISH, LANGUAGES, N_
from quart_bezique.api.contract.problems import UNAUTHORIZED, Problem

REALM: Final = "quart-bezique"
KEY_ID_LENGTH: Final = 12
"""Hex digits of a key's SHA-256 naming it in the audit line (``key_id``): enough to tell
integrators apart, useless to recover the key."""


@dataclass(frozen=True, slots=True)
class Denial:
    """A prepared 401: status line, headers and body (in English), and the same answer in every
    served language (``in_language``)."""

    status: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    languages: dict[str, Denial] = field(repr=False, compare=False)

    def in_language(self, language: str) -> Denial:
        """This denial in ``language`` (``i18n.negotiate``'s choice); English if not served."""
        return self.languages.get(language, self)


def _denial(detail: str, challenge: str) -> Denial:
    problem = Problem(UNAUTHORIZED, detail, headers={"WWW-Authenticate": challenge})
    languages: dict[str, Denial] = {}
    for language in LANGUAGES:
        status, headers, body = problem.prepared(language)
        languages[language] = Denial(status, tuple(headers), body, languages)
    return languages[ENGLISH]


MISSING: Final = _denial(
    N_("this service needs an API key: send Authorization: Bearer <key>"),
    f'Bearer realm="{REALM}"',
)
"""No credentials (or not the Bearer scheme): RFC 6750 says the challenge then names no error."""
INVALID: Final = _denial(
    N_("the API key is not valid"),
    f'Bearer realm="{REALM}", error="invalid_token", error_description="the API key is not valid"',
)
"""A key that is not configured. The challenge's ``error_description`` stays English in every
language: RFC 6750 allows it ASCII characters only."""


class ApiKeys:
    """The configured keys (as digests) and the check of one request's ``Authorization``."""

    __slots__ = ("_digests",)

    def __init__(self, digests: tuple[bytes, ...]) -> None:
        if not digests:
            raise ValueError("ApiKeys needs at least one key digest")
        self._digests = digests

    def __len__(self) -> int:
        return len(self._digests)

    def check(self, authorization: str | None) -> tuple[str | None, Denial | None]:
        """``(key_id, None)`` when the header holds a configured key, else ``(None, denial)``."""
        if authorization is None:
            return None, MISSING
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() != "bearer":
            return None, MISSING
        # WSGI hands headers over as latin-1 text: this encoding always succeeds, byte for byte.
        presented = hashlib.sha256(token.strip().encode("latin-1")).digest()
        matched = False
        for digest in self._digests:  # no early exit: every key is compared, every time
            matched |= hmac.compare_digest(presented, digest)
        if not matched:
            return None, INVALID
        return presented.hex()[:KEY_ID_LENGTH], None


def key_id(key: str) -> str:
    """The audit log's identifier of ``key`` (for operators matching log lines to integrators)."""
    return hashlib.sha256(key.encode("ascii")).hexdigest()[:KEY_ID_LENGTH]
