"""The connection-level limits of the worker, read from the environment.

The head-first worker holds every connection that has not yet sent a whole request, so what a
connection may cost in time and memory before it reaches a thread must be bounded, and a bad
bound must stop the start rather than show in a request: the master reads them once
(``gunicorn.conf.py``), each worker again from the same environment. The body's own limits
(``MAX_BODY_BYTES``, ``BODY_READ_TIMEOUT``) are the app's, only read here. docs/operations.md,
"Slow clients", lists each variable, its default and the values accepted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from quart_bezique.api.config import DEFAULT_BODY_READ_TIMEOUT, DEFAULT_MAX_BODY_BYTES

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
