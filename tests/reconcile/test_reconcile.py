"""``quart-bezique reconcile`` (docs/reconcile.md): every planted fault of a generated archive is
reported and nothing else; the report is in input order whatever the workers; the lines in
flight stay under the engine's bound; a run killed outright leaves a report whose every line
parses and that has no summary; stdin, shards and the Russian summary."""

from __future__ import annotations

import contextlib
import gc
import io
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import orjson
import pytest
from quart_bezique.cli.main import main
from quart_bezique.reconcile import REPORT, SUMMARY, Engine, Progress, Shard, judge_chunk
from quart_bezique.reconcile.engine import numbered_lines
from quart_bezique.reconcile.run import reconcile
from quart_bezique.reconcile.words import RECORDS, Words

from scripts.round_archive import Finding, planted_findings, reported_findings, write_archive

ROOT = Path(__file__).resolve().parents[2]
SEED = 9
"""A seed whose 500 records plant every kind of fault (wrong payouts and all three malformed)."""
RECORDS_IN_ARCHIVE = 500
SMALL = 150


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    path = tmp_path_factory.mktemp("archive") / "rounds.jsonl"
    return path, write_archive(path, RECORDS_IN_ARCHIVE, SEED)


@pytest.fixture(scope="module")
def small(
    archive: tuple[Path, list[dict[str, Any]]], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The archive's first lines: enough of every kind for the tests of order and shards."""
    path = tmp_path_factory.mktemp("small") / "rounds.jsonl"
    with archive[0].open("rb") as source:
        path.write_bytes(b"".join(source.readline() for _ in range(SMALL)))
    return path


def entries(folder: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in (folder / REPORT).read_bytes().splitlines()]


def findings(folder: Path) -> list[Finding]:
    return reported_findings(folder / REPORT)


def run(source: Path, folder: Path, **options: Any) -> Any:
    with source.open("rb") as file:
        return reconcile(file, folder, name=source.name, **options)


def test_every_planted_fault_is_reported_and_nothing_else(
    archive: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    path, faults = archive
    assert {f["kind"] for f in faults} == {
        "wrong_payout",
        "bad_json",
        "missing_field",
        "three_card_hand",
    }
    finished = run(path, tmp_path, workers=2, chunk_lines=32)
    assert findings(tmp_path) == planted_findings(faults)
    wrong = sum(f["kind"] == "wrong_payout" for f in faults)
    summary = entries(tmp_path)[-1]
    assert summary["type"] == "summary"
    assert (summary["records"], summary["disagreeing"], summary["unreadable"]) == (
        RECORDS_IN_ARCHIVE,
        wrong,
        len(faults) - wrong,
    )
    assert summary["matching"] == RECORDS_IN_ARCHIVE - len(faults)
    assert finished.summary == summary
    by_line = {e["line"]: e for e in entries(tmp_path) if e["type"] == "difference"}
    assert all(e["round_id"] == f"table-{n % 97}/round-{n}" for n, e in by_line.items())


def test_the_report_is_in_input_order_whatever_the_workers(small: Path, tmp_path: Path) -> None:
    run(small, tmp_path / "one", workers=1)
    run(small, tmp_path / "two", workers=2, chunk_lines=3, window=5)
    found = findings(tmp_path / "two")
    assert found == findings(tmp_path / "one")
    assert [f[0] for f in found] == sorted(f[0] for f in found)
    assert len({f[0] for f in found}) > 3


class CountingSource(io.BytesIO):
    """An input that counts the lines the engine has taken from it."""

    taken = 0

    def readline(self, size: int | None = -1, /) -> bytes:
        line = super().readline(size)
        self.taken += bool(line)
        return line


@pytest.mark.parametrize(("workers", "chunk_lines", "window"), [(1, 4, None), (2, 5, 3)])
def test_the_lines_in_flight_never_exceed_the_bound(
    small: Path, workers: int, chunk_lines: int, window: int | None
) -> None:
    source = CountingSource(small.read_bytes())
    seen: list[int] = []

    def watch(now: Progress) -> None:  # after each chunk is written: read minus written
        seen.append(source.taken - now.tally.records)

    engine = Engine(workers=workers, chunk_lines=chunk_lines, window=window, progress=watch)
    written: list[bytes] = []
    tally = engine.run(source, written.append)
    assert tally.records == SMALL
    assert 0 < engine.peak_in_flight <= engine.bound
    assert max(seen) <= engine.bound
    if workers > 1:
        assert engine.bound == chunk_lines * (window or 0) < SMALL
        assert engine.peak_in_flight == engine.bound  # the window does fill: it is the bound


def test_a_line_over_the_limit_is_refused_without_being_held() -> None:
    text = b'{"a": 1}\n' + b"x" * 10_000 + b"\n" + b"[]\n"
    lines = list(numbered_lines(io.BytesIO(text), limit=100))
    assert lines == [(1, b'{"a": 1}\n'), (2, None), (3, b"[]\n")]
    found = orjson.loads(judge_chunk([(2, None)]).report)
    assert (found["line"], found["code"]) == (2, "BODY_TOO_LARGE")


def test_judging_keeps_nothing_per_record(small: Path) -> None:
    """Memory does not grow with the file: once warm, judging the same 100 lines again keeps
    (next to) nothing. A reader that made a schema per record would keep each one (the
    contract's guard caches its plans by the schema's identity): about 10 KB a record."""
    with small.open("rb") as source:
        lines = list(numbered_lines(source))[:100]
    judge_chunk(lines)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        judge_chunk(lines)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 100 * 1024


def test_a_chunk_is_judged_the_same_every_time(small: Path) -> None:
    with small.open("rb") as source:
        lines = list(numbered_lines(source))[:40]
    assert judge_chunk(lines) == judge_chunk(lines)


def test_a_killed_run_leaves_a_readable_report_without_a_summary(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    write_archive(path, 20_000, 2)
    out = tmp_path / "report"
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'service'}{os.pathsep}{ROOT}"}
    command = [sys.executable, "-m", "quart_bezique", "reconcile", str(path), "--out", str(out)]
    process = subprocess.Popen(
        [*command, "--workers", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            report = out / REPORT
            if report.exists() and report.read_bytes().count(b"\n") >= 3:
                break
            time.sleep(0.05)
        assert process.poll() is None, "the run ended before it could be killed"
        workers = children(process.pid)
        assert workers, "the run had started no workers"
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
        assert gone(workers, 10), "a worker outlived the killed run"
    finally:
        with contextlib.suppress(ProcessLookupError):  # what the run started, if still there
            os.killpg(process.pid, signal.SIGKILL)
    data = (out / REPORT).read_bytes()
    complete = data[: data.rfind(b"\n") + 1].splitlines()
    found = [orjson.loads(line) for line in complete]  # every complete line parses
    assert found[0]["type"] == "run"
    assert any(e["type"] in ("difference", "unreadable") for e in found)
    assert all(e["type"] != "summary" for e in found)
    assert not (out / SUMMARY).exists()


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux's /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def gone(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{pid}").exists() for pid in pids):
            return True
        time.sleep(0.05)
    return False


def test_the_standard_input_is_read_as_a_file_is(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run(small, tmp_path / "file", workers=1)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(small.read_bytes())))
    status = main(["reconcile", "-", "--out", str(tmp_path / "stdin"), "--workers", "1"])
    assert status == 1
    assert findings(tmp_path / "stdin") == findings(tmp_path / "file")
    assert entries(tmp_path / "stdin")[0]["input"] == "-"
    assert "records" in capsys.readouterr().out


def test_the_shards_together_are_the_whole_run(small: Path, tmp_path: Path) -> None:
    run(small, tmp_path / "whole", workers=1)
    parts: list[tuple[Any, ...]] = []
    records = 0
    for index in range(3):
        folder = tmp_path / f"shard-{index}"
        finished = run(small, folder, workers=1, shard=Shard(index, 3))
        found = findings(folder)
        assert all(line % 3 == index for line, *_ in found)
        assert finished.summary["shard"] == f"{index}/3"
        parts += found
        records += finished.tally.records
    assert sorted(parts) == sorted(findings(tmp_path / "whole"))
    assert records == SMALL


def test_the_summary_in_russian(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        ["reconcile", str(small), "--out", str(tmp_path), "--workers", "1", "--lang", "ru"]
    )
    assert status == 1
    text = (tmp_path / SUMMARY).read_text(encoding="utf-8")
    assert text.splitlines()[0].startswith("сверка ")
    assert "совпадают с эталоном" in text and "записей" in text
    assert "records" not in text
    assert "сверка " in capsys.readouterr().out


def test_the_summary_speaks_the_services_catalogs() -> None:
    """The summary's words are the service's catalogs' words, in each language it speaks."""
    assert Words("ru").say(RECORDS) == "записей"
    assert Words("uk").say(RECORDS) == "записів"
    assert Words("en").say(RECORDS) == "records"


def test_exit_status(small: Path, tmp_path: Path) -> None:
    run(small, tmp_path / "found", workers=1)
    bad = {line for line, *_ in findings(tmp_path / "found")}
    lines = small.read_bytes().splitlines(keepends=True)
    good = [line for number, line in enumerate(lines, 1) if number not in bad]
    clean = tmp_path / "clean.jsonl"
    clean.write_bytes(b"\n" + b"".join(good[:29]))  # a blank line is no record
    assert main(["reconcile", str(clean), "--out", str(tmp_path / "a"), "--workers", "1"]) == 0
    assert entries(tmp_path / "a")[-1]["records"] == 29
    assert main(["reconcile", str(small), "--out", str(tmp_path / "b"), "--workers", "1"]) == 1
    for usage in (
        ["--shard", "3/3"],
        ["--shard", "x"],
        ["--workers", "0"],
        ["--ruleset", "nonsense/9"],
    ):
        assert main(["reconcile", str(small), "--out", str(tmp_path / "c"), *usage]) == 2
        assert not (tmp_path / "c").exists()  # refused before anything was written
    assert main(["reconcile", str(tmp_path / "absent"), "--out", str(tmp_path / "d")]) == 2
