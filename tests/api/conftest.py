"""Fixtures of the HTTP layer's tests: one app per session (building it builds the tables), and
one real gunicorn server per session for the tests that go over HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config

from tests.api.api_support import LiveServer, start_server


@pytest.fixture(scope="session")
def app() -> Flask:
    return create_app(Config())


@pytest.fixture()
def client(app: Flask) -> Iterator[FlaskClient]:
    with app.test_client() as test_client:
        yield test_client


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("gunicorn"))
    yield server
    server.stop()
