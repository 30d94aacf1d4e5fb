"""What the app factory and its module entry point do at the edges: a build whose manifest cannot
be computed starts but never reports ready, and ``python -m quart_bezique.api``'s ``main`` prints
the committed document whatever the calling environment holds."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from quart_bezique.api import __main__ as api_main
from quart_bezique.api import app as app_module
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config


def test_a_build_without_a_manifest_starts_but_is_not_ready(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> None:
        raise OSError("the installed files cannot be read")

    monkeypatch.setattr(app_module, "current_manifest", broken)
    app = create_app(Config(), audit_sink=lambda line: None)
    with app.test_client() as client:
        ready = client.get("/readyz")
        alive = client.get("/healthz")
    assert ready.status_code == 503
    assert "the build manifest cannot be computed" in orjson.loads(ready.get_data())["detail"]
    assert alive.status_code == 200
    assert "the build manifest cannot be computed" in caplog.text


def test_the_module_entry_point_prints_the_committed_document(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], repo_root: Path
) -> None:
    monkeypatch.setenv("MAX_BATCH_HANDS", "7")  # the document is the defaults', not the shell's
    api_main.main()
    assert capsys.readouterr().out == (repo_root / "openapi.yaml").read_text(encoding="utf-8")
