"""The library installs without the web stack: ``pip install .`` gives the rules core, the
receipts, the API's contract (marshmallow schemas) and the command-line adjudicator; the server
is the ``server`` extra."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

WEB_STACK = ("flask", "werkzeug", "apispec", "gunicorn", "prometheus_client")


def test_the_core_dependencies_hold_no_web_stack(repo_root: Path) -> None:
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]
    names = {dep.split(">")[0].split("=")[0].strip().lower() for dep in project["dependencies"]}
    assert not names & {"flask", "werkzeug", "apispec", "gunicorn", "prometheus-client"}
    assert "marshmallow" in names  # the contract the command line applies
    server = {d.split(">")[0].lower() for d in project["optional-dependencies"]["server"]}
    assert {"flask", "gunicorn"} <= server
    assert project["scripts"]["quart-bezique"] == "quart_bezique.cli:main"


def test_the_library_and_the_cli_import_no_web_module() -> None:
    code = (
        "import sys, quart_bezique, quart_bezique.cli, quart_bezique.cli.contract\n"
        "import quart_bezique.receipts, quart_bezique.integrity\n"
        "from quart_bezique import score_hand\n"
        "assert score_hand(['KS', 'QS', 'JS', 'JC'], trump='S').score == 16\n"
        f"print(sorted(m for m in {WEB_STACK!r} if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]", out.stdout
