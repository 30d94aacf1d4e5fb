"""Service configuration: read from the environment once, at start-up, and validated.

A bad setting must stop the start, not surface in a request: every variable is read and checked
here before the app serves anything, and a ``ConfigError`` names the variable, never a key. API
keys fail closed: a set ``API_KEYS_FILE`` that is missing, unreadable or holds no key stops the
start, never silently meaning "no authentication"; only their SHA-256 digests are kept. The
variables and their defaults: docs/api.md, "Configuration"; the keys' rules: docs/operations.md,
"API keys". Gunicorn's own settings are read by ``gunicorn.conf.py``.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Final

from quart_bezique.wire.settings import ConfigError as ConfigError
from quart_bezique.wire.settings import env_int as env_int

MIB: Final = 1024 * 1024
DEFAULT_MAX_BODY_BYTES: Final = MIB
DEFAULT_MAX_BATCH_HANDS: Final = 10_000
DEFAULT_MAX_ACTIONS: Final = 1_000
DEFAULT_BODY_READ_TIMEOUT: Final = 10
API_KEY_MIN_LENGTH: Final = 16
API_KEY_MAX_LENGTH: Final = 512
_API_KEY = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
"""RFC 6750's ``b64token``: what may follow ``Bearer `` in an Authorization header."""


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


def _keys(values: Iterable[str], source: str) -> list[bytes]:
    """SHA-256 digests of the keys in ``values``; ``source`` names where they came from (never the
    keys themselves, which must not reach a log or an error message)."""
    digests = []
    for number, value in enumerate(values, start=1):
        if not API_KEY_MIN_LENGTH <= len(value) <= API_KEY_MAX_LENGTH or not _API_KEY.fullmatch(
            value
        ):
            raise ConfigError(
                f"{source}: key {number} is not a valid API key ({len(value)} characters; need "
                f"{API_KEY_MIN_LENGTH} to {API_KEY_MAX_LENGTH} of A-Z a-z 0-9 - . _ ~ + / and "
                "trailing =)"
            )
        digests.append(hashlib.sha256(value.encode("ascii")).digest())
    return digests


def _api_keys(env: Mapping[str, str]) -> tuple[bytes, ...]:
    """The digests of every configured API key: ``API_KEYS`` and the file ``API_KEYS_FILE``."""
    digests: list[bytes] = []
    listed = env.get("API_KEYS", "").strip()
    if listed:
        keys = [k.strip() for k in listed.split(",") if k.strip()]
        if not keys:
            raise ConfigError("API_KEYS is set but holds no key")
        digests += _keys(keys, "API_KEYS")
    path = env.get("API_KEYS_FILE", "").strip()
    if path:
        try:
            with open(path, encoding="utf-8") as file:
                lines = file.read(1024 * 1024).splitlines()
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
            raise ConfigError(
                f"API_KEYS_FILE={path} cannot be read ({reason}); refusing to start without the "
                "API keys it should hold (unset API_KEYS_FILE to run without authentication)"
            ) from None
        keys = [line.strip() for line in lines]
        keys = [k for k in keys if k and not k.startswith("#")]
        if not keys:
            raise ConfigError(f"API_KEYS_FILE={path} holds no API key; refusing to start")
        digests += _keys(keys, f"API_KEYS_FILE={path}")
    return tuple(dict.fromkeys(digests))


def _cors_origins(env: Mapping[str, str]) -> tuple[str, ...]:
    try:
        return parse_origins(env.get("CORS_ORIGINS", ""))
    except ValueError as error:
        raise ConfigError(str(error)) from None


@dataclass(frozen=True, slots=True)
class Config:
    """Everything the HTTP layer needs to know about its deployment; immutable once built."""

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_batch_hands: int = DEFAULT_MAX_BATCH_HANDS
    max_actions: int = DEFAULT_MAX_ACTIONS
    build_tables: bool = True
    audit_log: bool = True
    body_read_timeout: int = DEFAULT_BODY_READ_TIMEOUT
    """Seconds a request body may take to arrive under gunicorn (``deadline.py``)."""
    api_keys: tuple[bytes, ...] = ()
    """SHA-256 digests of the accepted API keys; empty: no authentication."""
    cors_origins: tuple[str, ...] = ()
    """Origins whose browser pages may call the service (``cors.py``); empty: CORS off."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Read and validate the environment (``os.environ`` unless given)."""
        env = os.environ if env is None else env
        return cls(
            max_body_bytes=env_int(
                env, "MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES, low=1024, high=64 * MIB
            ),
            max_batch_hands=env_int(
                env, "MAX_BATCH_HANDS", DEFAULT_MAX_BATCH_HANDS, low=1, high=1_000_000
            ),
            max_actions=env_int(env, "MAX_ACTIONS", DEFAULT_MAX_ACTIONS, low=1, high=100_000),
            build_tables=_bool(env, "BUILD_TABLES", True),
            audit_log=_bool(env, "AUDIT_LOG", True),
            body_read_timeout=env_int(
                env, "BODY_READ_TIMEOUT", DEFAULT_BODY_READ_TIMEOUT, low=1, high=3600
            ),
            api_keys=_api_keys(env),
            cors_origins=_cors_origins(env),
        )


ANY_ORIGIN: Final = "*"


def parse_origins(raw: str) -> tuple[str, ...]:
    """``CORS_ORIGINS``: comma-separated origins (``https://game.example``) or ``*``."""
    origins = tuple(o.strip().rstrip("/") for o in raw.split(",") if o.strip())
    for origin in origins:
        if origin == ANY_ORIGIN:
            continue
        scheme, sep, host = origin.partition("://")
        if not sep or scheme not in ("http", "https") or not host or "/" in host:
            raise ValueError(
                f"CORS_ORIGINS: {origin!r} is not an origin (scheme://host[:port], or *)"
            )
    return origins


def service_version() -> str:
    """The installed package's version (the audit log, build info and the contract carry it)."""
    try:
        return metadata.version("quart-bezique")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0+unknown"
