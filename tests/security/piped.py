"""A gunicorn whose stdout or stderr is a pipe the test reads only when it chooses: what the
stalled-log tests (the audit sink, the server's log, the graceful stop) share."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable


def read_into(
    fd: int, into: bytearray, rate: Callable[[], float | None] = lambda: None
) -> threading.Thread:
    """A thread appending what ``fd`` gives to ``into`` until its end, at most ``rate()`` bytes
    per second since it started (None: as fast as it comes; read again before every read)."""

    def read() -> None:
        started = time.monotonic()
        while True:
            allowed = 65536
            limit = rate()
            if limit is not None:
                allowed = min(allowed, int(limit * (time.monotonic() - started)) - len(into))
                if allowed < 512:
                    time.sleep(0.02)
                    continue
            chunk = os.read(fd, allowed)
            if not chunk:
                return
            into.extend(chunk)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def end(process: subprocess.Popen[bytes], guard: float) -> None:
    """SIGTERM and wait for the master; SIGKILL if it is not gone within ``guard`` seconds."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(guard)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(guard)
