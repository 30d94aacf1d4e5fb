"""The shipped score and odds tables (``service/game/tables``) are the definition's output, exactly.

Rebuilding them from the declaration search must give the shipped bytes, so the data files can
never drift from the rules; and a file that does not match its recorded digest, or is missing, is
refused rather than served.
"""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pytest

from service.game import odds, scoring, tables
from service.game.tables import MANIFEST, ODDS, SCORES, TableError


@functools.cache
def rebuilt() -> dict[str, bytes]:
    return tables.build()


@pytest.mark.parametrize("name", tables.FILES)
def test_the_shipped_file_is_what_the_definition_builds(name: str) -> None:
    shipped = (tables.DIRECTORY / name).read_bytes()
    assert shipped == rebuilt()[name], f"{name} drifted from the rules: run `make tables`"


def test_the_manifest_records_the_rebuilt_digests() -> None:
    assert (tables.DIRECTORY / MANIFEST).read_bytes() == tables.manifest_bytes(rebuilt())


def test_the_served_tables_come_from_the_shipped_files() -> None:
    loaded = scoring.load_tables()
    for trump in scoring.TRUMP_SETTINGS:
        assert scoring.table(trump).scores == loaded[trump].scores
    assert tables.load(SCORES) == rebuilt()[SCORES]


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    for name in (*tables.FILES, MANIFEST):
        shutil.copyfile(tables.DIRECTORY / name, tmp_path / name)
    return tmp_path


def _serve_from(monkeypatch: pytest.MonkeyPatch, directory: Path) -> None:
    shipped = functools.partial(tables.load, directory=directory)
    monkeypatch.setattr(scoring, "load", shipped)
    monkeypatch.setattr(odds, "load", shipped)


@pytest.mark.parametrize("name", tables.FILES)
def test_a_tampered_file_is_refused(copy: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    data = bytearray((copy / name).read_bytes())
    data[len(data) // 2] ^= 1  # one bit, in the middle of the tables
    (copy / name).write_bytes(bytes(data))
    _serve_from(monkeypatch, copy)
    with pytest.raises(TableError, match=r"does not match manifest\.json"):
        tables.load(name, copy)
    with pytest.raises(TableError, match="does not match"):
        scoring.load_tables() if name == SCORES else odds.load_models()


def test_a_missing_file_is_refused(copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (copy / ODDS).unlink()
    _serve_from(monkeypatch, copy)
    with pytest.raises(TableError, match="cannot be read"):
        odds.load_models()


def test_a_file_the_manifest_does_not_name_is_refused(copy: Path) -> None:
    (copy / MANIFEST).write_bytes(tables.manifest_bytes({ODDS: rebuilt()[ODDS]}))
    with pytest.raises(TableError, match=r"records no digest for scores\.bin"):
        tables.load(SCORES, copy)


def test_a_file_with_a_matching_digest_but_the_wrong_shape_is_refused(
    copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defence in depth: a manifest rewritten along with the file still cannot pass off a table
    of the wrong size."""
    short = rebuilt()[SCORES][:-1]
    (copy / SCORES).write_bytes(short)
    (copy / MANIFEST).write_bytes(tables.manifest_bytes({SCORES: short, ODDS: rebuilt()[ODDS]}))
    _serve_from(monkeypatch, copy)
    with pytest.raises(TableError, match="malformed"):
        scoring.load_tables()
