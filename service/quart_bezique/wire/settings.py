"""The error and reader every part of the service configures itself with from the environment.

The app, the receipt signer and the server read their settings at start-up and must refuse a bad
value the same way (one exception type, one message form), whichever of them reads it.
"""

from __future__ import annotations

from collections.abc import Mapping


class ConfigError(ValueError):
    """An environment variable holds a value the service cannot run with."""


def env_int(env: Mapping[str, str], name: str, default: int, *, low: int, high: int) -> int:
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
