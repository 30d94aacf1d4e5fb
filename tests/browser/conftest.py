"""Fixtures of the browser suite: headless Chromium (installed with apt when possible, skipped
when not, except under CI where ``QB_CONTAINER_TEST_REQUIRED=1`` makes a missing browser a
failure), the real gunicorn server with and without API keys, and axe-core for accessibility.

axe-core comes from npm into ``tmp/axe`` of the checkout (ignored by git), once; the page under
test never fetches it: the test injects its source through the DevTools protocol.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.api.api_support import ROOT, LiveServer, start_server
from tests.api.chromium_cdp import install_chromium

API_KEY = "browser-suite-key-0123456789abcdef"
AXE_DIR = ROOT / "tmp" / "axe"
AXE_VERSION = "4.14.1"


def _required() -> bool:
    return os.environ.get("QB_CONTAINER_TEST_REQUIRED") == "1"


def unavailable(reason: str) -> None:
    """Skip with the reason, or fail where the suite must run (CI)."""
    if _required():
        pytest.fail(f"required under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium() -> str:
    executable = install_chromium()
    if executable is None:
        unavailable("chromium is not installed and cannot be (needs root and apt-get)")
    assert executable is not None
    found: str = executable
    return found


@pytest.fixture(scope="session")
def axe_source() -> str:
    """The source of axe.min.js, installed from npm on first use."""
    script = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
    if not script.exists() and shutil.which("npm"):
        AXE_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--prefix", str(AXE_DIR), "--no-audit", "--no-fund",
             f"axe-core@{AXE_VERSION}"],
            check=False, timeout=600, capture_output=True,
        )  # fmt: skip
    if not script.exists():
        unavailable("axe-core is not installed and npm cannot install it")
    return script.read_text(encoding="utf-8")


def serving_the_page(server: LiveServer) -> LiveServer:
    """The server, once it is known to serve the page (a clear failure if it is not wired)."""
    status, _, _ = server.request("GET", "/adjudicate")
    if status != 200:
        server.stop()
        pytest.fail(
            f"GET /adjudicate answered {status}: the registry (quart_bezique/api/registry.py) must "
            "hold adjudicate.ENDPOINTS, whose record serves the page and its assets"
        )
    return server


@pytest.fixture(scope="session")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = serving_the_page(start_server(tmp_path_factory.mktemp("browser-open")))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def api_key() -> str:
    """``API_KEY`` for test modules (``from conftest import`` would find another suite's
    conftest when several suites run in one session)."""
    return API_KEY


@pytest.fixture(scope="session")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = serving_the_page(
        start_server(tmp_path_factory.mktemp("browser-keyed"), API_KEYS=API_KEY)
    )
    yield server
    server.stop()


@pytest.fixture(scope="session")
def signed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """gunicorn with a signing key: every verdict carries a ``Verdict-Receipt``."""
    folder = tmp_path_factory.mktemp("browser-signed")
    key = folder / "signing.pem"
    key.write_bytes(
        Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    server = serving_the_page(start_server(folder, SIGNING_KEY_FILE=str(key)))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    folder = ROOT / "docs" / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
