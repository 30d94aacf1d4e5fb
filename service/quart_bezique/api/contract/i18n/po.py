"""Reading a gettext ``.po`` catalog: the part of the format ``make catalogs`` writes.

Babel writes the catalogs (``pybabel update``, a development tool), but importing it to read
them once per process would lengthen every start and enlarge the image for no other use
(docs/performance.md, "Where the time goes"). This reader takes exactly what that command
writes for this project; anything else (plural forms, contexts, a line it does not know, the same
msgid twice) raises ``CatalogError``: a catalog read differently from what its translators wrote
must stop the start, not lose translations quietly. The tests hold the reader to Babel's own
reading, of the shipped catalogs and of catalogs Babel writes.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

_ESCAPE: Final = re.compile(r'\\([\\trn"])')
_ESCAPED: Final = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"'}
_UNSUPPORTED: Final = ("msgid_plural", "msgstr[", "msgctxt")


class CatalogError(ValueError):
    """A catalog this reader cannot read exactly as its translators wrote it."""


class Entry(NamedTuple):
    """One entry (a named tuple: a dataclass would cost every start more to create)."""

    msgid: str
    msgstr: str
    fuzzy: bool


def _string(literal: str, where: str) -> str:
    """A quoted PO string's text. The escapes are Babel's (``\\n \\t \\r \\\\ \\"``); a
    backslash before any other character is kept as it stands, as Babel keeps it."""
    if len(literal) < 2 or literal[0] != '"' or literal[-1] != '"':
        raise CatalogError(f"{where}: expected a quoted string, found {literal!r}")
    return _ESCAPE.sub(lambda match: _ESCAPED[match.group(1)], literal[1:-1])


class _Reader:
    """One pass over the lines; an entry is complete at a blank line, at the next ``msgid`` or at
    the end of the file."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.entries: dict[str, Entry] = {}
        self.flags: set[str] = set()
        self.msgid: list[str] | None = None
        self.msgstr: list[str] | None = None

    def line(self, number: int, text: str) -> None:
        where = f"{self.name}, line {number}"
        if not text:
            self.finish(where)
        elif text.startswith("#~"):
            return
        elif text.startswith("#,"):
            self.flags.update(flag.strip() for flag in text[2:].split(","))
        elif text.startswith("#"):
            return
        elif text.startswith(_UNSUPPORTED):
            raise CatalogError(f"{where}: {text.split()[0]} is not supported in these catalogs")
        elif text.startswith("msgid "):
            if self.msgstr is not None:
                self.finish(where)
            if self.msgid is not None:
                raise CatalogError(f"{where}: a second msgid before a msgstr")
            self.msgid = [_string(text[len("msgid ") :].strip(), where)]
        elif text.startswith("msgstr "):
            if self.msgid is None or self.msgstr is not None:
                raise CatalogError(f"{where}: a msgstr without its msgid")
            self.msgstr = [_string(text[len("msgstr ") :].strip(), where)]
        elif text.startswith('"'):
            current = self.msgid if self.msgstr is None else self.msgstr
            if current is None:
                raise CatalogError(f"{where}: a continued string outside any entry")
            current.append(_string(text, where))
        else:
            raise CatalogError(f"{where}: not a line of a catalog: {text[:40]!r}")

    def finish(self, where: str) -> None:
        if self.msgid is None:
            self.flags = set()  # comments without an entry (the file's own, or obsolete)
            return
        if self.msgstr is None:
            raise CatalogError(f"{where}: an entry without its msgstr")
        msgid = "".join(self.msgid)
        if msgid in self.entries:
            raise CatalogError(f"{where}: the msgid {msgid[:40]!r} is in the catalog twice")
        self.entries[msgid] = Entry(msgid, "".join(self.msgstr), "fuzzy" in self.flags)
        self.flags, self.msgid, self.msgstr = set(), None, None


def read(data: bytes, name: str = "catalog") -> list[Entry]:
    """Every entry of a UTF-8 catalog in file order, the header (msgid ``""``) included.

    Read: entries of ``msgid`` and ``msgstr``, each string possibly continued on the following
    lines, flag comments (``#, fuzzy``), other comments, and obsolete entries (``#~``, skipped,
    as Babel skips them)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CatalogError(f"{name} is not UTF-8 ({error})") from None
    reader = _Reader(name)
    # Lines end at "\n" only, as a file's lines do: ``str.splitlines`` would also cut at the
    # separators Unicode knows (U+2028...), which a translation may hold unescaped.
    for number, line in enumerate(text.split("\n"), start=1):
        reader.line(number, line.strip())
    reader.finish(f"{name}, end")
    return list(reader.entries.values())
