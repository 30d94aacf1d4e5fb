"""Where a request's body ends on the wire, found without reading it on a thread.

The worker's poller collects a whole request (head and body) before a thread is given it, so a
client that trickles its body holds no thread. For a sized body the end is a count; for a chunked
one, ``ChunkedEnd`` follows the chunk framing as bytes arrive (once over each byte, never back)
the way gunicorn's ``ChunkedReader`` will read it on the thread: what it cannot follow it leaves
to that reader, which refuses it with the right 400.
"""

from __future__ import annotations

from typing import Final

HEX: Final = frozenset(b"0123456789abcdefABCDEF")

SIZE = 0
"""Reading a chunk-size line (up to its CRLF)."""
DATA = 1
"""Inside a chunk's data, ``need`` bytes to go."""
DATA_END = 2
"""The CRLF after a chunk's data, ``need`` bytes of it to go."""
TRAILERS = 3
"""After the last chunk: an empty line, or trailer fields up to an empty line."""
DONE = 4
BROKEN = 5
"""Framing gunicorn's reader will refuse: nothing more is worth collecting."""


class ChunkedEnd:
    """Follows a chunked body; ``feed`` returns the state after the new bytes (``DONE`` once the
    last chunk and trailers are complete, ``BROKEN`` at the first framing error)."""

    __slots__ = ("_line", "_trailers", "data_bytes", "line_limit", "need", "state", "trailer_limit")

    def __init__(self, line_limit: int, trailer_limit: int) -> None:
        self.state = SIZE
        self.need = 0
        self.data_bytes = 0
        """Decoded body bytes received so far."""
        self._line = bytearray()
        self._trailers = 0
        self.line_limit = line_limit
        self.trailer_limit = trailer_limit

    def feed(self, data: bytes | bytearray | memoryview) -> int:
        view = memoryview(data)
        at = 0
        while at < len(view) and self.state < DONE:
            if self.state == DATA:
                take = min(self.need, len(view) - at)
                self.data_bytes += take
                self.need -= take
                at += take
                if self.need == 0:
                    self.state, self.need = DATA_END, 2
            elif self.state == DATA_END:
                if view[at] != b"\r\n"[2 - self.need]:
                    self.state = BROKEN
                    break
                at += 1
                self.need -= 1
                if self.need == 0:
                    self.state = SIZE
            else:
                at = self._line_bytes(view, at)
        return self.state

    def _line_bytes(self, view: memoryview, at: int) -> int:
        """Take bytes of a size or trailer line from ``view[at:]``; the index after them."""
        end = _find_crlf(self._line, view, at)
        stop = len(view) if end < 0 else end
        self._line += view[at:stop]
        if self.state == TRAILERS:
            self._trailers += stop - at
            if self._trailers > self.trailer_limit:
                self.state = BROKEN
        elif len(self._line) > self.line_limit:
            self.state = BROKEN
        if end >= 0 and self.state != BROKEN:
            line = bytes(self._line[:-2])
            self._line.clear()
            self._end_of_line(line)
        return stop

    def _end_of_line(self, line: bytes) -> None:
        if self.state == TRAILERS:
            if line == b"":
                self.state = DONE
            return
        size = _chunk_size(line)
        if size is None:
            self.state = BROKEN
        elif size == 0:
            self.state = TRAILERS
        else:
            self.state, self.need = DATA, size


def _find_crlf(held: bytearray, view: memoryview, at: int) -> int:
    """The index in ``view`` just past the first CRLF ending the line ``held`` + ``view[at:]``,
    or -1."""
    if held.endswith(b"\r") and at < len(view) and view[at] == 0x0A:
        return at + 1
    index = bytes(view[at:]).find(b"\r\n")
    return -1 if index < 0 else at + index + 2


def _chunk_size(line: bytes) -> int | None:
    """The size a chunk-size line declares, as gunicorn reads it, or None where it refuses."""
    size, semicolon, _extension = line.partition(b";")
    if semicolon:
        size = size.rstrip(b" \t")
    if not size or any(byte not in HEX for byte in size):
        return None
    return int(size, 16)
