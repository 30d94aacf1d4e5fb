"""Reconciliation of a platform's history of rounds (docs/reconcile.md): an archive of round
records, JSON Lines of any size, judged on every core against the reference, with every
disagreement and every unreadable line reported in input order, in bounded memory.

``Engine`` reads and judges (``judge.judge_chunk`` in each worker), ``ReportWriter`` writes the
report as it goes, ``summary.text`` tells it to people.
"""

from __future__ import annotations

from .engine import CHUNK_LINES, Engine, Progress, Shard
from .judge import Judged, Tally, judge_chunk
from .report import FORMAT, REPORT, SUMMARY, ReportWriter, summary_line

__all__ = [
    "CHUNK_LINES",
    "FORMAT",
    "REPORT",
    "SUMMARY",
    "Engine",
    "Judged",
    "Progress",
    "ReportWriter",
    "Shard",
    "Tally",
    "judge_chunk",
    "summary_line",
]
