"""Progress on stderr, so that stdout holds only the report."""

from __future__ import annotations

import sys


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def warn(message: str) -> None:
    bar = "!" * 78
    print(f"\n{bar}\n[bench] WARNING: {message}\n{bar}\n", file=sys.stderr, flush=True)
