"""``summary.txt``: a run's summary line (report.py) told to people, in their language."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from .words import (
    ALL_MATCH,
    DIFFERENCES,
    DISAGREEING,
    LINES,
    MATCHING,
    OWN_RULES,
    PROGRESS,
    RATE,
    RECORDS,
    SECONDS,
    SHARD,
    SOME_DIFFER,
    TITLE,
    UNCLAIMED,
    UNREADABLE,
    Words,
)


def text(summary: Mapping[str, Any], source: str, report: str, words: Words) -> str:
    """The summary for people: what was judged, the counts, and what to read next."""
    say = words.say
    ruleset = summary.get("ruleset")
    named = words.say(OWN_RULES) if ruleset is None else _spec(ruleset)
    lines = [say(TITLE, input=source, ruleset=named)]
    shard = summary.get("shard")
    if shard is not None:
        index, count = str(shard).split("/")
        lines.append(say(SHARD, index=index, count=count))
    rows = [
        (RECORDS, summary["records"]),
        (MATCHING, summary["matching"]),
        (DISAGREEING, summary["disagreeing"]),
        (UNREADABLE, summary["unreadable"]),
        (UNCLAIMED, summary["unclaimed"]),
        (DIFFERENCES, summary["differences"]),
        (LINES, summary["lines"]),
        (SECONDS, float(summary["seconds"])),
        (RATE, summary["rounds_per_second"]),
    ]
    labels = [say(label) for label, _ in rows]
    values = [words.number(value) for _, value in rows]
    left = max(map(len, labels))
    right = max(map(len, values))
    lines += [
        f"  {label.ljust(left)}  {value.rjust(right)}"
        for label, value in zip(labels, values, strict=True)
    ]
    bad = int(summary["disagreeing"]) + int(summary["unreadable"])
    lines.append(say(ALL_MATCH) if bad == 0 else say(SOME_DIFFER, count=bad, report=report))
    return "\n".join(lines)


def progress_line(
    records: int, disagreeing: int, unreadable: int, rate: float, words: Words
) -> str:
    return words.say(
        PROGRESS,
        records=records,
        disagreeing=disagreeing,
        unreadable=unreadable,
        rate=words.number(rate),
    )


def _spec(ruleset: object) -> str:
    return ruleset if isinstance(ruleset, str) else orjson.dumps(ruleset).decode()
