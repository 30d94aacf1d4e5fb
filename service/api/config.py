"""Service configuration: read from the environment once, at start-up, and validated.

| variable          | default   | meaning                                                        |
|-------------------|-----------|----------------------------------------------------------------|
| MAX_BODY_BYTES    | 1048576   | largest request body accepted (bigger: 413)                    |
| MAX_BATCH_HANDS   | 10000     | most hands in one ``/v1/hands/batch-score`` request            |
| MAX_ACTIONS       | 1000      | most actions in one betting sequence                           |
| BUILD_TABLES      | true      | build the scoring tables when the app is created (else lazily) |

Gunicorn's own settings (HOST, PORT, WEB_CONCURRENCY, ...) are read by ``gunicorn.conf.py``.
The batch and action limits are part of the published contract: the OpenAPI document is generated
from the configuration in force, and the committed ``openapi.yaml`` is generated from the defaults.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

MIB: Final = 1024 * 1024
DEFAULT_MAX_BODY_BYTES: Final = MIB
DEFAULT_MAX_BATCH_HANDS: Final = 10_000
DEFAULT_MAX_ACTIONS: Final = 1_000


class ConfigError(ValueError):
    """An environment variable holds a value the service cannot run with."""


def _int(env: Mapping[str, str], name: str, default: int, *, low: int, high: int) -> int:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip(), 10)
    except ValueError:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, got {value}")
    return value


def _bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    text = raw.strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name} must be a boolean (true/false), got {raw!r}")


@dataclass(frozen=True, slots=True)
class Config:
    """Everything the HTTP layer needs to know about its deployment; immutable once built."""

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_batch_hands: int = DEFAULT_MAX_BATCH_HANDS
    max_actions: int = DEFAULT_MAX_ACTIONS
    build_tables: bool = True

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Read and validate the environment (``os.environ`` unless given)."""
        env = os.environ if env is None else env
        return cls(
            max_body_bytes=_int(
                env, "MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES, low=1024, high=64 * MIB
            ),
            max_batch_hands=_int(
                env, "MAX_BATCH_HANDS", DEFAULT_MAX_BATCH_HANDS, low=1, high=1_000_000
            ),
            max_actions=_int(env, "MAX_ACTIONS", DEFAULT_MAX_ACTIONS, low=1, high=100_000),
            build_tables=_bool(env, "BUILD_TABLES", True),
        )
