"""Untrusted text made safe to print on a terminal.

Player ids, receipt claims, card spellings and error details come from files and receipts the
command line did not write: an ESC sequence in one could repaint the screen (a forged receipt
showing "VALID receipt"), retitle the window or hide text behind a bidi override. Every such
string is shown with its control characters as escapes (``\\x1b``, ``\\u202e``), never raw.
"""

from __future__ import annotations

from itertools import chain
from typing import Final

CONTROLS: Final = frozenset(
    chr(c)
    for c in chain(
        range(0x00, 0x20),  # C0
        (0x7F,),  # DEL
        range(0x80, 0xA0),  # C1 (U+009B is a CSI to some terminals)
        (0x061C, 0x200E, 0x200F),  # bidi marks
        range(0x202A, 0x202F),  # bidi embeddings and overrides
        range(0x2066, 0x206A),  # bidi isolates
        (0x2028, 0x2029),  # line and paragraph separators
    )
)
"""Characters never printed raw."""
_ESCAPES: Final = {
    ord(c): f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}" for c in CONTROLS
}


def shown(text: str) -> str:
    """``text`` with each control character as its escape (``\\x1b``, ``\\u202e``)."""
    return text.translate(_ESCAPES)


def shown_lines(text: str) -> str:
    """Every line of ``text`` made safe, its line breaks kept: the last guard before output (each
    untrusted value is already escaped where it is put in, so it holds no line break of its own)."""
    return "\n".join(shown(line) for line in text.split("\n"))
