"""Running the command line in-process, for the CLI tests (a module of its own: ``conftest`` is
not importable by name when several test directories have one)."""

from __future__ import annotations

from dataclasses import dataclass

import orjson
import pytest
from quart_bezique.cli import main


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str

    def json(self) -> object:
        return orjson.loads(self.out)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> Run:
    code = main(list(argv))
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err)
