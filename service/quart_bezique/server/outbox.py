"""A connection's socket as the worker's threads see it: writes never wait for the client.

gunicorn writes an answer with ``sendall`` and static files with ``sendfile``; on a client that
does not read, either blocks the thread until a timeout. ``Outbox`` wraps the real socket (kept
non-blocking for its whole life) and takes what the kernel accepts now; the rest is queued, as
views of the answer's own bytes or as a duplicated file descriptor and a range, and the worker's
poller writes it as the client makes room. Everything else is the real socket's.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections import deque
from dataclasses import dataclass
from typing import Any, BinaryIO

SENDFILE_SLICE = 1024 * 1024
"""Most bytes one ``os.sendfile`` call is asked for (the poller writes in turns)."""


@dataclass(slots=True)
class _FileRange:
    """The rest of a file answer: a descriptor of its own (the app closes its file object)."""

    fd: int
    offset: int
    remaining: int


class Outbox:
    """The socket a connection is served through; see the module docstring."""

    __slots__ = ("_pending", "buffered", "sock")

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        sock.setblocking(False)
        self._pending: deque[memoryview | _FileRange] = deque()
        self.buffered = 0
        """Bytes held in memory (not counting file ranges) until the client takes them."""

    # --- what gunicorn's response and error pages call -------------------------------------------

    def sendall(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(data).cast("B")
        if not self._pending:
            view = view[self._send_now(view) :]
        if view:
            held = view if isinstance(data, bytes) else memoryview(bytes(view))
            self._pending.append(held)
            self.buffered += len(held)

    def send(self, data: bytes | bytearray | memoryview, flags: int = 0) -> int:
        """Everything is accepted (the rest queued): a caller never loops on a short send."""
        self.sendall(data)
        return len(data)

    def sendfile(self, file: BinaryIO, offset: int = 0, count: int | None = None) -> int:
        fd = file.fileno()
        if count is None:
            count = os.fstat(fd).st_size - offset
        part = _FileRange(os.dup(fd), offset, count)
        self._pending.append(part)
        if len(self._pending) == 1:
            self.flush()
        return count

    def setblocking(self, flag: bool) -> None:
        """Ignored: the socket stays non-blocking (a thread must never wait on it)."""

    def settimeout(self, value: float | None) -> None:
        """Ignored, as ``setblocking``."""

    def gettimeout(self) -> float | None:
        return 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sock, name)

    # --- the poller's side ------------------------------------------------------------------------

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def flush(self) -> bool:
        """Write as much as the kernel takes now; True when nothing is left. A connection that is
        gone raises ``OSError`` (the caller closes it)."""
        pending = self._pending
        while pending:
            part = pending[0]
            if isinstance(part, memoryview):
                sent = self._send_now(part)
                self.buffered -= sent
                if sent < len(part):
                    pending[0] = part[sent:]
                    return False
            else:
                if not self._send_file_now(part):
                    return False
                os.close(part.fd)
            pending.popleft()
        return True

    def discard(self) -> None:
        """Drop what was not sent (the connection is being closed)."""
        for part in self._pending:
            if isinstance(part, _FileRange):
                with contextlib.suppress(OSError):
                    os.close(part.fd)
        self._pending.clear()
        self.buffered = 0

    def close(self) -> None:
        self.discard()
        self.sock.close()

    def _send_now(self, view: memoryview) -> int:
        sent = 0
        while sent < len(view):
            try:
                sent += self.sock.send(view[sent:])
            except (BlockingIOError, InterruptedError):
                break
        return sent

    def _send_file_now(self, part: _FileRange) -> bool:
        while part.remaining > 0:
            try:
                sent = os.sendfile(
                    self.sock.fileno(), part.fd, part.offset, min(part.remaining, SENDFILE_SLICE)
                )
            except (BlockingIOError, InterruptedError):
                return False
            if sent == 0:  # the file is shorter than announced: the answer cannot be completed
                raise BrokenPipeError("file ended before its announced length")
            part.offset += sent
            part.remaining -= sent
        return True
