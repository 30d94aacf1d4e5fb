"""Merge the shard reports of an Indexed reconcile Job into one report (docs/reconcile-http.md).

Each pod of the Job wrote ``REPORTS/shard-I/report.jsonl`` (``quart-bezique reconcile ARCHIVE
--shard I/N --out REPORTS/shard-I``): a ``run`` line, its findings in input order, and a
``summary`` line written only by a run that read its whole input. This waits (up to ``--wait``
seconds) until all N reports have their summary, then writes ``OUT/report.jsonl``: one ``run``
line, every finding of every shard in input order (a merge of N ordered files, never loaded
whole), and one ``summary`` summing the shards' counts. Standard library only: it runs in the
service's image with its Python. Exit 0 when merged, 2 when a shard never finished.
"""

from __future__ import annotations

import argparse
import heapq
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

COUNTS = ("records", "matching", "disagreeing", "unreadable", "unclaimed", "differences")
REPORT = "report.jsonl"


def last_line(path: Path) -> dict[str, Any] | None:
    """The report's last line if it is whole, else None (a run still going, or cut)."""
    try:
        with path.open("rb") as file:
            file.seek(0, 2)
            size = file.tell()
            file.seek(max(0, size - 65536))
            tail = file.read()
    except FileNotFoundError:
        return None
    if not tail.endswith(b"\n"):
        return None
    found: dict[str, Any] = json.loads(tail.rstrip(b"\n").rsplit(b"\n", 1)[-1])
    return found


def finished(reports: Path, count: int) -> list[dict[str, Any]] | None:
    """Every shard's summary, or None while one is missing."""
    summaries = []
    for index in range(count):
        line = last_line(reports / f"shard-{index}" / REPORT)
        if line is None or line.get("type") != "summary":
            return None
        summaries.append(line)
    return summaries


def findings(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """A shard's findings (neither ``run`` nor ``summary``), keyed by line for the merge."""
    with path.open("rb") as file:
        for order, raw in enumerate(file):
            entry = json.loads(raw)
            if entry.get("type") not in ("run", "summary"):
                yield entry["line"], order, raw


def merge(reports: Path, count: int, out: Path, summaries: list[dict[str, Any]]) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    seconds = max(s.get("seconds") or 0 for s in summaries)
    total: dict[str, Any] = {"type": "summary", **{k: sum(s[k] for s in summaries) for k in COUNTS}}
    total["lines"] = max(s.get("lines", 0) for s in summaries)
    total["seconds"] = seconds
    total["rounds_per_second"] = round(total["records"] / seconds, 1) if seconds else None
    total["shards"] = count
    part = out / (REPORT + ".part")
    with part.open("wb") as file:
        run = {"type": "run", "format": "quart-bezique-reconcile/1", "merged_shards": count}
        file.write(json.dumps(run).encode() + b"\n")
        streams = [findings(reports / f"shard-{i}" / REPORT) for i in range(count)]
        for _, _, raw in heapq.merge(*streams):
            file.write(raw)
        file.write(json.dumps(total).encode() + b"\n")
    part.replace(out / REPORT)
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", type=Path, help="the folder holding shard-0 ... shard-N-1")
    parser.add_argument("shards", type=int, help="N, the Job's completions")
    parser.add_argument("--out", type=Path, required=True, help="where the merged report goes")
    parser.add_argument("--wait", type=float, default=0, help="seconds to wait for the shards")
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.wait
    while (summaries := finished(args.reports, args.shards)) is None:
        if time.monotonic() >= deadline:
            print(f"merge: not every one of {args.shards} shards has finished", file=sys.stderr)
            return 2
        time.sleep(min(5.0, max(0.1, args.wait / 100)))
    total = merge(args.reports, args.shards, args.out, summaries)
    print(json.dumps(total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
