"""Raw HTTP/1.1 over a socket: the request goes out byte for byte as written, the answer is parsed
without being normalised.

``http.client`` and ``requests`` repair what a fuzz must send broken: they refuse control bytes in
a request line, compute ``Content-Length``, add ``Host`` and ``Accept-Encoding``, fold duplicate
headers. Here nothing is checked or added, so a test can put any bytes in front of gunicorn, and
it sees the answer as sent: every header in order (duplicates kept), the body as framed.
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass

__all__ = ["NoAnswer", "RawResponse", "exchange", "parse_response"]

_RECV_SIZE = 65536


class NoAnswer(Exception):
    """The server closed the connection without a complete status line and header block."""

    def __init__(self, received: bytes) -> None:
        super().__init__(f"no HTTP answer; received {received[:200]!r}")
        self.received = received


@dataclass(frozen=True, slots=True)
class RawResponse:
    """One answer as it came over the wire."""

    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    """Every header in order, names as sent (duplicates kept)."""
    body: bytes
    """The body after its framing (``Content-Length`` or chunked) is removed."""
    raw: bytes
    """Everything received, status line included."""
    seconds: float
    """From connecting to the server's close."""

    def header(self, name: str) -> str | None:
        """The first header called ``name`` (case-insensitive), or None."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)

    def header_values(self, name: str) -> list[str]:
        wanted = name.lower()
        return [value for key, value in self.headers if key.lower() == wanted]


def exchange(host: str, port: int, request: bytes, *, timeout: float) -> RawResponse:
    """Send ``request`` on a fresh connection, half-close it, and read the answer until the
    server closes: ``timeout`` bounds the whole exchange (``TimeoutError`` past it), so a server
    that hangs fails the test instead of stalling it.

    Half-closing after the request means a body shorter than its declared length ends at EOF
    instead of keeping the server waiting for bytes that never come. A server that answers before
    reading everything (a 400 on the request line) may reset the connection while we still send:
    that is not an error here, whatever it answered is read."""
    started = time.monotonic()
    deadline = started + timeout
    chunks: list[bytes] = []
    with socket.create_connection((host, port), timeout=timeout) as sock:
        try:
            sock.sendall(request)
            sock.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no close from the server within {timeout} s")
            sock.settimeout(remaining)
            try:
                chunk = sock.recv(_RECV_SIZE)
            except ConnectionResetError:
                break
            except TimeoutError:
                raise TimeoutError(f"no close from the server within {timeout} s") from None
            if not chunk:
                break
            chunks.append(chunk)
    return parse_response(b"".join(chunks), time.monotonic() - started)


def parse_response(data: bytes, seconds: float = 0.0) -> RawResponse:
    """Parse one HTTP/1.x answer (the whole of what a ``Connection: close`` exchange received),
    after any interim ``1xx`` answers (``Expect: 100-continue``), which are skipped."""
    head, sep, rest = data.partition(b"\r\n\r\n")
    while sep and head.startswith(b"HTTP/1.1 1") and rest.startswith(b"HTTP/"):
        head, sep, rest = rest.partition(b"\r\n\r\n")
    if not sep:
        raise NoAnswer(data)
    lines = head.decode("latin-1").split("\r\n")
    version, _, tail = lines[0].partition(" ")
    code, _, reason = tail.partition(" ")
    if not version.startswith("HTTP/") or len(code) != 3 or not code.isdigit():
        raise NoAnswer(data)
    headers = []
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.append((name.strip(), value.strip()))
    response = RawResponse(int(code), reason, tuple(headers), rest, data, seconds)
    if (response.header("Transfer-Encoding") or "").lower() == "chunked":
        body = _dechunk(rest)
    else:
        length = response.header("Content-Length")
        body = rest[: int(length)] if length is not None and length.isdigit() else rest
    return RawResponse(response.status, reason, tuple(headers), body, data, seconds)


def _dechunk(data: bytes) -> bytes:
    """The payload of a chunked body (as much as arrived: a cut stream gives what it holds)."""
    out = bytearray()
    while data:
        size_line, sep, data = data.partition(b"\r\n")
        if not sep:
            break
        size = int(size_line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            break
        out += data[:size]
        data = data[size + 2 :]
    return bytes(out)


def read_answers(sock: socket.socket, count: int) -> list[bytes]:
    """``count`` answers (each with its Content-Length body) read from ``sock``."""
    data = b""
    answers: list[bytes] = []
    while len(answers) < count:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            assert chunk, data
            data += chunk
        head, rest = data.split(b"\r\n\r\n", 1)
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        while len(rest) < length:
            chunk = sock.recv(65536)
            assert chunk
            rest += chunk
        answers.append(head + b"\r\n\r\n" + rest[:length])
        data = rest[length:]
    return answers
