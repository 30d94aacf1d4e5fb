"""The connection-level limits of the worker, read from the environment.

| variable            | default | range          | meaning                                        |
|---------------------|---------|----------------|------------------------------------------------|
| HEAD_READ_TIMEOUT   | 10      | 1 to 3,600     | seconds for a request head (line + fields) to  |
|                     |         |                | arrive: from accepting a new connection, or    |
|                     |         |                | from the first byte of a kept-alive one's next |
|                     |         |                | request (later: 408, closed)                   |
| HEAD_MAX_BYTES      | 65536   | 1,024 to 1 MiB | longest request head held (bigger: 431)        |
| SEND_TIMEOUT        | 10      | 1 to 3,600     | seconds a client may take to take in an answer |
|                     |         |                | (later: the connection is dropped)             |
| CLOSE_DRAIN_BYTES   | 4194304 | 0 to 256 MiB   | unread request bytes discarded before closing  |
| CLOSE_DRAIN_TIMEOUT | 5       | 0 to 60        | seconds spent discarding them, at most         |
| BODY_BUFFER_BYTES   | 64 MiB  | 1 MiB to 4 GiB | request body bytes a worker holds while bodies |
|                     |         |                | arrive (more: 503, closed)                     |
| MAX_BODY_BYTES, BODY_READ_TIMEOUT: the app's (``service/api/config.py``); the worker collects  |
| a body of up to that size, within that time, before a thread is given the request              |

They are read in the master (``gunicorn.conf.py`` reads them once so that a bad value stops the
start) and again by each worker; the two readings see the same environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from service.api.config import DEFAULT_BODY_READ_TIMEOUT, DEFAULT_MAX_BODY_BYTES

MIB: Final = 1024 * 1024


class LimitError(ValueError):
    """An environment variable holds a value the worker cannot run with."""


def _number(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw, 10)
    except ValueError:
        raise LimitError(f"{name} must be an integer, got {raw!r}") from None
    if not low <= value <= high:
        raise LimitError(f"{name} must be between {low} and {high}, got {value}")
    return value


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    head_timeout: float = 10.0
    head_max_bytes: int = 64 * 1024
    send_timeout: float = 10.0
    drain_bytes: int = 4 * MIB
    drain_timeout: float = 5.0
    body_buffer_bytes: int = 64 * MIB
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    body_timeout: float = float(DEFAULT_BODY_READ_TIMEOUT)

    @classmethod
    def from_environ(cls, env: Mapping[str, str] | None = None) -> ConnectionLimits:
        env = os.environ if env is None else env
        return cls(
            head_timeout=_number(env, "HEAD_READ_TIMEOUT", 10, 1, 3600),
            head_max_bytes=_number(env, "HEAD_MAX_BYTES", 64 * 1024, 1024, MIB),
            send_timeout=_number(env, "SEND_TIMEOUT", 10, 1, 3600),
            drain_bytes=_number(env, "CLOSE_DRAIN_BYTES", 4 * MIB, 0, 256 * MIB),
            drain_timeout=_number(env, "CLOSE_DRAIN_TIMEOUT", 5, 0, 60),
            body_buffer_bytes=_number(env, "BODY_BUFFER_BYTES", 64 * MIB, MIB, 4096 * MIB),
            # The app validates these two exactly (its own ranges); here only read.
            max_body_bytes=_number(env, "MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES, 0, 4096 * MIB),
            body_timeout=_number(
                env, "BODY_READ_TIMEOUT", DEFAULT_BODY_READ_TIMEOUT, 0, 365 * 86400
            ),
        )
