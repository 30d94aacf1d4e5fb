"""One byte form for every line of the corpus, and digests that a sample can be checked against:
a file's SHA-256 proves the whole, a chunk's SHA-256 lets a few regenerated lines be compared
with the shipped manifest without writing the rest."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

CHUNK_LINES: Final = 1000
"""Lines per chunk digest: chunk ``k`` holds lines ``k * CHUNK_LINES`` to ``(k + 1) *
CHUNK_LINES - 1`` (counted from 0), each with its ``\\n``; the last chunk may be shorter."""


def line(value: Any) -> bytes:
    """``value`` as one line: JSON with sorted keys, no spaces, UTF-8 (cards and trumps may be
    written in Russian or with suit symbols), ending in ``\\n``. Sorted keys make the bytes a
    function of the value alone, whatever order a dict was built in."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8") + b"\n"


@dataclass(slots=True)
class Digester:
    """The running digests of one file as its lines are written."""

    lines: int = 0
    whole: Any = field(default_factory=hashlib.sha256)
    chunk: Any = field(default_factory=hashlib.sha256)
    chunks: list[str] = field(default_factory=list)

    def add(self, data: bytes) -> None:
        self.whole.update(data)
        self.chunk.update(data)
        self.lines += 1
        if self.lines % CHUNK_LINES == 0:
            self.chunks.append(self.chunk.hexdigest())
            self.chunk = hashlib.sha256()

    def entry(self) -> dict[str, Any]:
        """The file's entry in the manifest."""
        chunks = list(self.chunks)
        if self.lines % CHUNK_LINES:
            chunks.append(self.chunk.hexdigest())
        return {"lines": self.lines, "sha256": self.whole.hexdigest(), "chunks": chunks}


def chunk_digest(lines: Iterable[bytes]) -> str:
    """The SHA-256 of consecutive lines, as a manifest's ``chunks`` records them."""
    digest = hashlib.sha256()
    for data in lines:
        digest.update(data)
    return digest.hexdigest()
