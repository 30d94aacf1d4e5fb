"""Which language a request's problem document is written in, from its ``Accept-Language``.

Quality-ranked (RFC 9110 §12.5.4): the highest-ranked range naming a language served here wins,
ties going to the one listed first; ``*`` stands for the default (English); ``q=0`` excludes.
A header that contains neither ``ru`` nor ``uk`` (in any letter case) is English without being
parsed, so the English answers (most of them) pay a lowercase copy and two substring tests.
"""

from __future__ import annotations

from typing import Final

ENGLISH: Final = "en"
RUSSIAN: Final = "ru"
UKRAINIAN: Final = "uk"
LANGUAGES: Final = (ENGLISH, RUSSIAN, UKRAINIAN)
"""Served languages, the default first."""
MAX_RANGES: Final = 32
"""Ranges of one header looked at: a real browser sends a handful; a hostile header is cut."""


def negotiate(header: str | None) -> str:
    """The language to answer in (``ENGLISH`` unless the header ranks another served one first)."""
    if not header:
        return ENGLISH
    lowered = header.lower()
    if "ru" not in lowered and "uk" not in lowered:
        return ENGLISH
    return _ranked(header)


def _ranked(header: str) -> str:
    best, best_q = ENGLISH, 0.0
    for item in header.split(",", MAX_RANGES)[:MAX_RANGES]:
        tag, _, params = item.partition(";")
        q = _quality(params)
        if q is None or q <= best_q:
            continue
        primary = tag.strip().partition("-")[0].lower()
        if primary == "*":
            best, best_q = ENGLISH, q
        elif primary in LANGUAGES:
            best, best_q = primary, q
    return best


def _quality(params: str) -> float | None:
    """The range's weight: 1 without ``q``, None when ``q`` is not a number from 0 to 1."""
    for param in params.split(";"):
        name, _, value = param.strip().partition("=")
        if name.strip().lower() == "q":
            try:
                q = float(value.strip())
            except ValueError:
                return None
            return q if 0.0 <= q <= 1.0 else None
    return 1.0
