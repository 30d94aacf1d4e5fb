"""The shipped score and odds tables (``service/quart_bezique/game/tables``) are the definition's
output, exactly.

Rebuilding them from the declaration search must give the shipped bytes, so the data files can
never drift from the rules; and a file that does not match its recorded digest, or is missing, is
refused rather than served.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from array import array
from pathlib import Path
from types import ModuleType

import pytest
from quart_bezique.game import odds, scoring, tables
from quart_bezique.game.tables import MANIFEST, ODDS, SCORES, TableError


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


def test_a_score_file_of_the_wrong_shape_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Well-formed chunks, but one table short: refused, not served from."""
    chunks = tables.unpack(SCORES, rebuilt()[SCORES])
    monkeypatch.setattr(scoring, "load", lambda name: tables.pack(chunks[:-1]))
    with pytest.raises(TableError, match=r"does not hold 5 tables of 17550 hands"):
        scoring.load_tables()


# --- the odds file: whatever does not decode to exactly five models is refused -------------------

ODDS_CHUNKS_PER_MODEL = 10
"""levels, containing, two groups of (2 or 3 slot arrays + their ends), columns."""


def _odds_chunks() -> list[array[int]]:
    chunks = tables.unpack(ODDS, rebuilt()[ODDS])
    assert len(chunks) == ODDS_CHUNKS_PER_MODEL * len(scoring.TRUMP_SETTINGS)
    return chunks


def _load_odds_from(monkeypatch: pytest.MonkeyPatch, chunks: list[array[int]]) -> None:
    monkeypatch.setattr(odds, "load", lambda name: tables.pack(chunks))


def test_the_odds_file_decodes_to_the_models_the_definition_builds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _load_odds_from(monkeypatch, _odds_chunks())
    models = odds.load_models()
    built = odds.build_models(scoring.load_tables())
    assert models.keys() == built.keys()
    for trump, model in models.items():
        assert model.containing == built[trump].containing
        assert model.columns == built[trump].columns
        assert model.percentile == built[trump].percentile
        assert model.groups == built[trump].groups
        # The slots hold the shared index objects, as the build's do, not copies of them.
        assert all(i is odds._INDEX[i] for g in model.groups for slot in g.slots for i in slot)


@pytest.mark.parametrize("indexes", [[], [7], [7, 300], [420, 0, 420]])
def test_slots_decode_to_the_shared_index_objects_whatever_their_count(indexes: list[int]) -> None:
    found = odds._shared(array("H", indexes))
    assert found == tuple(indexes)
    assert all(i is odds._INDEX[i] for i in found)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("drop the last chunk", "does not hold the models it should"),
        ("add a chunk", "holds more than the models it should"),
        ("change the score levels", "model does not fit the score table"),
        ("shorten the columns", "model's columns do not fit the lattice"),
        ("shorten the containing counts", "model does not fit the score table"),
        ("point a slot past the factor table", "does not hold the models it should"),
    ],
)
def test_an_odds_file_that_does_not_hold_the_models_is_refused(
    monkeypatch: pytest.MonkeyPatch, damage: str, message: str
) -> None:
    chunks = _odds_chunks()
    levels, containing, columns = 0, 1, ODDS_CHUNKS_PER_MODEL - 1  # the first model's chunks
    if damage == "drop the last chunk":
        del chunks[-1]
    elif damage == "add a chunk":
        chunks.append(array("B", [0]))
    elif damage == "change the score levels":
        chunks[levels] = array("B", [chunks[levels][0] + 1])
    elif damage == "shorten the columns":
        chunks[columns] = chunks[columns][:-1]
    elif damage == "point a slot past the factor table":
        chunks[containing + 1][0] = len(odds._INDEX)
    else:
        chunks[containing] = chunks[containing][:-4]
    _load_odds_from(monkeypatch, chunks)
    with pytest.raises(TableError, match=message):
        odds.load_models()


# --- the file format and the manifest ---------------------------------------------------------


def test_chunks_round_trip_and_unshipped_array_types_are_refused() -> None:
    chunks = [array("B", [0, 255]), array("H", [1, 65535]), array("I", [2, 2**32 - 1])]
    assert tables.unpack("x", tables.pack(chunks)) == chunks
    with pytest.raises(ValueError, match="array type 'b' is not shipped"):
        tables.pack([array("b", [-1])])
    with pytest.raises(ValueError, match="array type 'q' is not shipped"):
        tables.pack([array("q", [2**40])])


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        (b"{not json", "cannot be read"),
        (b'{"format": "quart-bezique-tables/0", "files": {}}', "is not a quart-bezique-tables/1"),
        (b'{"format": "quart-bezique-tables/1", "files": []}', "is not a quart-bezique-tables/1"),
    ],
)
def test_a_manifest_that_cannot_be_trusted_is_refused(
    copy: Path, manifest: bytes, message: str
) -> None:
    (copy / MANIFEST).write_bytes(manifest)
    with pytest.raises(TableError, match=message):
        tables.load(SCORES, copy)


# --- python -m quart_bezique.game.tables build|check ------------------------------------


@pytest.fixture
def command(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The command's module, building from the cached rebuild (the definition's output)."""
    from quart_bezique.game.tables import __main__ as command_module

    monkeypatch.setattr(tables, "build", rebuilt)
    monkeypatch.setattr(command_module, "build", rebuilt)
    return command_module


def test_build_writes_the_files_and_the_manifest(
    command: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(command, "DIRECTORY", tmp_path)
    monkeypatch.setattr(command, "write", functools.partial(tables.write, tmp_path))
    assert command.main(["build"]) == 0
    for name in (*tables.FILES, MANIFEST):
        assert (tmp_path / name).read_bytes() == (tables.DIRECTORY / name).read_bytes()
    printed = capsys.readouterr().out.splitlines()
    assert printed == [
        f"{tmp_path / name}: {len(rebuilt()[name])} bytes, SHA-256 {tables.digest(rebuilt()[name])}"
        for name in rebuilt()
    ]


def test_check_passes_on_the_shipped_files(
    command: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert command.main(["check"]) == 0
    assert capsys.readouterr().err == ""


def test_check_names_every_file_that_differs(
    command: ModuleType,
    copy: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(command, "DIRECTORY", copy)
    (copy / ODDS).unlink()
    data = bytearray((copy / SCORES).read_bytes())
    data[-1] ^= 1
    (copy / SCORES).write_bytes(bytes(data))
    assert command.main(["check"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{copy / name} differs from the definition: run `make tables`" for name in (SCORES, ODDS)
    ]


def test_the_command_refuses_an_unknown_subcommand() -> None:
    """Run as ``python -m`` (the way ``make tables`` runs it): argparse's usage error, exit 2,
    before anything is built."""
    done = subprocess.run(
        [sys.executable, "-m", "quart_bezique.game.tables", "rebuild"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "usage: python -m quart_bezique.game.tables" in done.stderr
    assert "invalid choice: 'rebuild'" in done.stderr
