"""Fixtures of the security suite: the real gunicorn server, started as an operator would, with
API keys configured, so every attack is replayed against what a platform actually deploys."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.api.api_support import LiveServer, start_server

API_KEY = "security-suite-key-0123456789abcdef"
"""The one key the keyed server accepts."""
AUTH = {"Authorization": f"Bearer {API_KEY}"}


@pytest.fixture(scope="session")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """gunicorn with ``API_KEYS`` set: every verdict needs the key."""
    server = start_server(tmp_path_factory.mktemp("keyed"), API_KEYS=API_KEY)
    yield server
    server.stop()


SHORT_LIMITS = {
    "HEAD_READ_TIMEOUT": "1",
    "SEND_TIMEOUT": "1",
    "GUNICORN_KEEPALIVE": "4",
    "HEAD_MAX_BYTES": "4096",
    "WEB_CONCURRENCY": "1",
}
"""Connection limits short enough to watch them cut (``service/quart_bezique/server/limits.py``)."""


@pytest.fixture(scope="session")
def short_limits_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """gunicorn, one worker, with the connection limits of ``SHORT_LIMITS``."""
    server = start_server(tmp_path_factory.mktemp("short-limits"), **SHORT_LIMITS)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def auth() -> dict[str, str]:
    """``AUTH`` for test modules (``from conftest import`` would find tests/api's conftest
    when both suites run in one session)."""
    return dict(AUTH)
