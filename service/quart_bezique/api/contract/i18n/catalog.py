"""English messages to their translation, by the catalog's templates.

The core and marshmallow hand over finished English text, which knows nothing of languages: each
msgid is compiled to an expression that recognises the messages made from it and captures their
values; a value named in ``NESTED`` (or ``LISTS``) is a message of its own, translated in turn.
Text taken from the request (a path, a header) is never parsed so: a detail quoting it is a
``problems.Detail``, its template filled with the values as they are (``Translator.fill``). A
message no template matches within ``MAX_DEPTH`` levels and ``MAX_ATTEMPTS`` expressions stays
English, as does a partly translatable one. The ``.po`` is read once per process (``po``).
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Final

from . import po

LOCALE_DIR: Final = Path(__file__).resolve().parent.parent / "locale"
DOMAIN: Final = "messages"
NESTED: Final = frozenset(
    {
        "message",
        "reason",
        "fix",
        "why",
        "how",
        "what",
        "where",
        "subject",
        "items",
        "ranks",
        "suits",
        "rank",
        "meaning",
        "name",
        "other",
    }
)
"""Placeholders whose value is a message of its own, translated in turn."""
LISTS: Final[Mapping[str, str]] = {"readings": ", or ", "parts": " with ", "alike": ", "}
"""Placeholders holding messages joined by a separator (each translated, the separator too)."""
_INTEGER: Final = "-?[0-9]+"
_WORD: Final = "\\S+?"
PATTERNS: Final[Mapping[str, str]] = {
    **dict.fromkeys(
        ("count", "min", "max", "length", "position", "bound", "budget", "limit", "depth",
         "index", "equal", "times", "copies"),
        _INTEGER,
    ),
    **dict.fromkeys(("code", "russian", "letter", "card"), _WORD),
    "before": ".",
    "word": "[^()]+?",
}  # fmt: skip
"""What a placeholder can hold, where it is narrower than any text: an integer, one word (a card
code, a letter, a hexadecimal code point), one character, text without parentheses. The narrower
the pattern, the fewer messages a template beginning with a placeholder can mistake for its own:
"{code} or {russian} for the {rank} of hearts" cannot take a whole sentence for its ``code``."""
CACHED: Final = 4096
"""Translated messages remembered: a refusal repeated by a busy client is matched once."""
MAX_DEPTH: Final = 8
"""Messages nested in one another that one translation follows (the card look-alikes, the
deepest the service writes, nest four levels)."""
MAX_ATTEMPTS: Final = 256
"""Template expressions tried on one message and the messages nested in it, all told."""
MAX_TEXT: Final = 1024
"""Longest text matched against the templates (the reported messages are clipped far shorter)."""


class _OverBudget(Exception):
    """A message nests deeper, or costs more attempts, than one translation may follow."""


class _Work:
    """What is left of one message's budget, and the nested values it has already translated."""

    __slots__ = ("done", "left")

    def __init__(self) -> None:
        self.left = MAX_ATTEMPTS
        self.done: dict[str, str | None] = {}


class _Template:
    """One template entry; its expression is compiled the first time a message starts with its
    prefix (most never do in a process: compiling them all is a cost at every start)."""

    __slots__ = ("_pattern", "msgid", "prefix", "translation")

    def __init__(self, msgid: str, translation: str) -> None:
        self.msgid = msgid
        self.prefix = _prefix(msgid)
        self.translation = translation
        self._pattern: re.Pattern[str] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = _compile(self.msgid)
        return self._pattern


def _compile(msgid: str) -> re.Pattern[str]:
    parts: list[str] = []
    seen: set[str] = set()
    for literal, name, _, _ in string.Formatter().parse(msgid):
        parts.append(re.escape(literal))
        if name is None:
            continue
        if name in seen:
            parts.append(f"(?P={name})")
            continue
        seen.add(name)
        parts.append(f"(?P<{name}>{PATTERNS.get(name, '.+?')})")
    return re.compile("".join(parts), re.DOTALL)


def _precedence(msgid: str) -> tuple[int, int]:
    """Sort key: templates that begin with literal text first, longest beginning first, then
    those that begin with a placeholder (which could swallow any message), most literal text
    first; so "invalid card {value}: {reason}" is tried before "{alike}: write {readings}". A match
    counts only if each of its ``NESTED`` values is a message the catalog translates, else the
    next template is tried."""
    parsed = list(string.Formatter().parse(msgid))
    return -len(parsed[0][0]), -sum(len(literal) for literal, *_ in parsed)


def _split(text: str, separator: str) -> list[str]:
    """``text`` split at each ``separator`` outside parentheses: an item such as
    "Cyrillic К (U+041A, король = king)" holds the separator ", " of its own list."""
    items, depth, start, at = [], 0, 0, 0
    while at < len(text):
        char = text[at]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0 and text.startswith(separator, at):
            items.append(text[start:at])
            at = start = at + len(separator)
            continue
        at += 1
    items.append(text[start:])
    return items


def _prefix(msgid: str) -> str:
    """The literal text a template begins with (a cheap test before its expression is tried)."""
    for literal, *_ in string.Formatter().parse(msgid):
        return literal
    return ""


def is_template(msgid: str) -> bool:
    """Whether ``msgid`` has placeholders (else it is matched as exact text)."""
    return any(name is not None for _, name, _, _ in string.Formatter().parse(msgid))


class Translator:
    """Translates English messages with one language's catalog (``entries``: msgid → msgstr)."""

    def __init__(self, entries: Mapping[str, str]) -> None:
        self._exact = {k: v for k, v in entries.items() if not is_template(k)}
        templates = sorted((k for k in entries if is_template(k)), key=_precedence)
        self._templates = tuple(_Template(k, entries[k]) for k in templates)
        self.translated = lru_cache(maxsize=CACHED)(self._translated)
        """The translation of one message, or None when no entry of the catalog makes it."""
        self._entries = dict(entries)
        self.attempts = 0
        """Template expressions tried so far, by every message (read by tests and the cost
        script: the work a message costs is the difference)."""

    def fill(self, msgid: str, data: Mapping[str, str], messages: Mapping[str, str]) -> str:
        """``msgid``'s translation filled with ``data`` as it is (values taken from the request:
        never parsed nor translated) and ``messages`` each translated in turn; English when the
        catalog does not translate ``msgid``."""
        target = self._entries.get(msgid, msgid)
        return target.format(
            **data, **{name: self.message(text) for name, text in messages.items()}
        )

    def message(self, text: str) -> str:
        """The translation of one message, or the message itself when nothing matches it."""
        found = self.translated(text)
        return text if found is None else found

    def _translated(self, text: str) -> str | None:
        try:
            return self._match(text, 0, _Work())
        except _OverBudget:
            return None

    def _match(self, text: str, depth: int, work: _Work) -> str | None:
        exact = self._exact.get(text)
        if exact is not None:
            return exact
        if len(text) > MAX_TEXT:
            return None
        if depth >= MAX_DEPTH:
            raise _OverBudget
        for template in self._templates:
            if not text.startswith(template.prefix):
                continue
            if work.left <= 0:
                raise _OverBudget
            work.left -= 1
            self.attempts += 1
            match = template.pattern.fullmatch(text)
            if match is None:
                continue
            values = {}
            for name, value in match.groupdict().items():
                found = self._value(name, value, depth + 1, work)
                if found is None:
                    break
                values[name] = found
            else:
                return template.translation.format(**values)
        return None

    def _value(self, name: str, value: str, depth: int, work: _Work) -> str | None:
        """A captured value as the translation shows it; None if it is a message (or a list of
        messages) the catalog cannot translate."""
        separator = LISTS.get(name)
        if separator is not None:
            items = []
            for item in _split(value, separator):
                found = self._nested(item, depth, work)
                if found is None:
                    return None
                items.append(found)
            return self._exact.get(separator, separator).join(items)
        return self._nested(value, depth, work) if name in NESTED else value

    def _nested(self, value: str, depth: int, work: _Work) -> str | None:
        if value in work.done:
            return work.done[value]
        found = work.done[value] = self._match(value, depth, work)
        return found


def entries(language: str) -> dict[str, str]:
    """The translated, non-fuzzy entries of ``language``'s catalog (msgid → msgstr)."""
    path = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    catalog = po.read(path.read_bytes(), str(path))
    return {e.msgid: e.msgstr for e in catalog if e.msgid and e.msgstr and not e.fuzzy}


@cache
def translator(language: str) -> Translator:
    """The translator of ``language`` (read and compiled once per process)."""
    return Translator(entries(language))
