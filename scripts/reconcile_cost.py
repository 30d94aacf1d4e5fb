"""What reconciling an archive costs (docs/reconcile.md, "What it costs").

    python -m scripts.reconcile_cost [--records 1000000] [--compare 100000] [--workers N]

Generates two archives with ``scripts/round_archive.py`` (``--records`` lines and ``--compare``
lines, the same seed), then runs ``quart-bezique reconcile`` on each, in a fresh process, on one
worker and on ``--workers`` (default: every core). For each run it gives:

- **rounds per second**: the report's own figure (records / the engine's seconds: from the first
  line read to the summary line; the interpreter's start is not in it);
- **wall seconds** of the whole command;
- **peak RSS of the process tree**: the command and its workers together, their resident memory
  summed from ``/proc`` every ``--every`` seconds and the largest sum kept (Linux only). The
  engine holds a bounded number of lines, so the larger archive's peak should equal the smaller
  one's: memory does not grow with the file;
- **every planted fault reported, nothing else**: the report's differences and unreadable lines
  against the faults the archive's writer planted (``FILE.faults.json``).

Run it on an otherwise idle machine: the workers want every core. The table it prints is the
one docs/reconcile.md keeps.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import orjson

from scripts.round_archive import (
    DEFAULT_SEED,
    faults_path,
    planted_findings,
    reported_findings,
    write_archive,
    write_faults,
)

ROOT: Final = Path(__file__).resolve().parents[1]
PAGE_KIB: Final = os.sysconf("SC_PAGE_SIZE") // 1024


@dataclass(frozen=True, slots=True)
class Measured:
    records: int
    workers: int
    rate: float
    wall: float
    peak_kib: int
    faithful: bool | None = None
    """Whether the report holds every planted fault and nothing else (None: not checked)."""


def tree(root: int) -> list[int]:
    """``root`` and every process descending from it, from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(parents.get(pid, ()))
    return found


def rss_kib(pids: Sequence[int]) -> int:
    total = 0
    for pid in pids:
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_KIB
        except (OSError, IndexError):
            continue
    return total


def measure(archive: Path, records: int, workers: int, out: Path, every: float) -> Measured:
    """One run of the command, its tree's memory sampled until it ends."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT / "service"), str(ROOT)))}
    command = [sys.executable, "-m", "quart_bezique", "reconcile", str(archive)]
    command += ["--out", str(out), "--workers", str(workers)]
    started = time.monotonic()
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    peak = 0
    while process.poll() is None:
        peak = max(peak, rss_kib(tree(process.pid)))
        time.sleep(every)
    wall = time.monotonic() - started
    if process.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)}: exit {process.returncode}")
    summary = orjson.loads((out / "report.jsonl").read_bytes().splitlines()[-1])
    assert summary["type"] == "summary" and summary["records"] == records
    return Measured(records, workers, float(summary["rounds_per_second"]), wall, peak)


def table(rows: Sequence[Measured]) -> str:
    lines = [
        "| records | workers | rounds/s | wall s | peak RSS of the tree (MiB) "
        "| every planted fault reported, nothing else |",
        "|---:|---:|---:|---:|---:|---|",
    ]
    lines += [
        f"| {r.records:,} | {r.workers} | {r.rate:,.0f} | {r.wall:.1f} | {r.peak_kib / 1024:.0f} "
        f"| {_said(r.faithful)} |"
        for r in rows
    ]
    return "\n".join(lines)


def _said(faithful: bool | None) -> str:
    return "not checked" if faithful is None else "yes" if faithful else "NO"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000, metavar="N")
    parser.add_argument(
        "--compare",
        type=int,
        default=100_000,
        metavar="N",
        help="the smaller archive, whose peak memory is compared (default 100,000)",
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, metavar="N")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--every", type=float, default=0.1, help="seconds between RSS samples")
    parser.add_argument(
        "--dir", type=Path, help="where the archives and reports go (default: a temporary folder)"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="reconcile-cost-") as scratch:
        folder = args.dir or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        rows = []
        for records in sorted({args.compare, args.records}):
            archive = folder / f"rounds-{records}.jsonl"
            if not archive.exists() or not faults_path(archive).exists():
                print(f"writing {archive} ...", file=sys.stderr)
                write_faults(
                    archive, records, args.seed, write_archive(archive, records, args.seed)
                )
            planted = planted_findings(orjson.loads(faults_path(archive).read_bytes())["faults"])
            for workers in sorted({1, args.workers}):
                print(f"{records:,} records on {workers} worker(s) ...", file=sys.stderr)
                out = folder / f"report-{records}-{workers}"
                measured = measure(archive, records, workers, out, args.every)
                faithful = reported_findings(out / "report.jsonl") == planted
                rows.append(dataclasses.replace(measured, faithful=faithful))
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
