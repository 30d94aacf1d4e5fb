"""Each served language's compiled catalog, read by the standard library's ``gettext``.

The ``.mo`` files are built from the ``.po`` by ``pybabel compile`` (``make catalogs``) and
shipped; a test checks each equals its ``.po``. English needs no catalog: the templates are
English. A missing or unreadable catalog is an error at start-up (``load_all``), never a
half-translated answer.
"""

from __future__ import annotations

import gettext
from functools import cache
from pathlib import Path
from typing import Final

from quart_bezique.game.messages import Message, render

from .language import ENGLISH, LANGUAGES

LOCALE_DIR: Final = Path(__file__).resolve().parent.parent / "locale"
DOMAIN: Final = "messages"


def catalog_path(language: str, suffix: str = ".mo") -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / (DOMAIN + suffix)


@cache
def translations(language: str) -> gettext.NullTranslations:
    """The catalog of ``language`` (one of ``LANGUAGES``), read once per process."""
    if language == ENGLISH:
        return gettext.NullTranslations()
    if language not in LANGUAGES:
        raise LookupError(f"no catalog for {language!r}")
    with catalog_path(language).open("rb") as mo:
        return gettext.GNUTranslations(mo)


def load_all() -> None:
    """Read every catalog now (at start-up), so a broken one stops the service from starting."""
    for language in LANGUAGES:
        translations(language)


def localize(payload: object, language: str) -> tuple[object, bool]:
    """``payload`` with every message among its values (and its values' values: a verdict's
    ``error.message``) rendered in ``language``, and whether it held any. Lists are not entered:
    no verdict keeps a sentence in one, and a batch's thousands of results stay unread."""
    if not isinstance(payload, dict):
        return payload, False
    found = False
    out: dict[str, object] = {}
    for key, value in payload.items():
        if isinstance(value, Message):
            found = True
            value = render(value, translations(language))
        elif isinstance(value, dict) and any(isinstance(v, Message) for v in value.values()):
            found = True
            words = translations(language)
            value = {k: render(v, words) if isinstance(v, Message) else v for k, v in value.items()}
        out[key] = value
    return (out if found else payload), found
