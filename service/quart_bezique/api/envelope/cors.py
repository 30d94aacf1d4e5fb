"""Cross-origin requests (CORS), off unless the operator names the origins allowed.

An adjudicator that any web page could call from a player's browser is not what most platforms
want, so a browser game client served from another origin may call the service only when
``CORS_ORIGINS`` lists its origin (or is ``*``). The decision is the route's (``routes.py``); a
preflight is answered by the envelope itself, before authentication, because browsers never send
credentials on one (the real request still needs its key), and a refused preflight reveals
nothing beyond what an ``OPTIONS`` already says. docs/operations.md, "Cross-origin calls
(CORS)", states what a browser gets.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from quart_bezique.api.config import ANY_ORIGIN

ALLOWED_HEADERS: Final = "Authorization, Content-Type, X-Request-ID"
"""Named one by one: a ``*`` there does not cover ``Authorization``, where keys travel (never in
cookies, so ``Access-Control-Allow-Credentials`` is never sent)."""
EXPOSED_HEADERS: Final = "X-Request-ID, Retry-After, Verdict-Receipt"
MAX_AGE_SECONDS: Final = 600
ANY: Final = ANY_ORIGIN


class Cors:
    """The allowed origins, and the headers an allowed request or preflight gets."""

    __slots__ = ("_any", "_origins")

    def __init__(self, origins: Iterable[str]) -> None:
        listed = tuple(origins)
        self._any = ANY in listed
        self._origins = frozenset(o for o in listed if o != ANY)

    def allows(self, origin: str | None) -> bool:
        return origin is not None and (self._any or origin in self._origins)

    def headers(self, origin: str) -> list[tuple[str, str]]:
        """On an allowed origin's actual request: which origin may read the answer."""
        return [
            ("Access-Control-Allow-Origin", ANY if self._any else origin),
            ("Access-Control-Expose-Headers", EXPOSED_HEADERS),
            ("Vary", "Origin"),
        ]

    def preflight(
        self, origin: str | None, method: str, allowed: Iterable[str]
    ) -> list[tuple[str, str]]:
        """The answer's headers to a preflight of ``method`` on a route taking ``allowed``."""
        methods = sorted(set(allowed) - {"HEAD", "OPTIONS"})
        if origin is None or not self.allows(origin) or method not in methods:
            return [("Vary", "Origin"), ("Content-Length", "0")]
        return [
            ("Access-Control-Allow-Origin", ANY if self._any else origin),
            ("Access-Control-Allow-Methods", ", ".join(methods)),
            ("Access-Control-Allow-Headers", ALLOWED_HEADERS),
            ("Access-Control-Max-Age", str(MAX_AGE_SECONDS)),
            ("Vary", "Origin"),
            ("Content-Length", "0"),
        ]
