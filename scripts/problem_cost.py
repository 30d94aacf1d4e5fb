"""What a problem document costs one worker, whatever the request line: each worst line we know of
(a method the static routes lack, a path of ``ten: `` segments, in Russian) beside ordinary ones.

A detail quoting the request used to be translated by parsing the finished English text back, so
a path shaped like nested messages cost one recursion level per segment. Run ``python
scripts/problem_cost.py`` (``--root DIR`` measures another checkout, e.g. a ``git worktree`` of an
older commit; ``--only NAME``; ``--repeat N``). Each root runs in a fresh interpreter, in-process;
each line is sent ``--repeat`` times with a fresh path (no cache helps) and its worst CPU time
(``time.process_time``) is printed. ``tests/security/test_problem_cost.py`` sends the same lines
to gunicorn and asserts what is deterministic about the answers.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

CPU_TARGET_MS: Final = 100.0
LINE_LIMIT: Final = 4094
"""gunicorn's longest request line (``limit_request_line``): every target here fits in it."""
STATIC_ROUTES: Final = ("/docs/static/", "/adjudicate/static/")
LACKING: Final = ("POST", "PUT", "PATCH", "DELETE", "TRACE", "PROPFIND")
"""Methods the static routes (GET, HEAD, OPTIONS) lack: the standard ones and an extension."""
NESTING: Final = "a%20variation%20selector%20U+1%20after%20x:%20"
"""A beginning that made a template ending in a nested message ("{kind} variation selector
U+{code} after {before}: {fix}") take the rest of the detail for a message of its own."""
SEGMENTS: Final = {
    "plain": "ten:%20",
    "colon-encoded": "ten%3A%20",
    "all-encoded": "%74%65%6E%3A%20",
}
"""One ``ten: `` segment as the request target spells it."""
RUSSIAN: Final = (("Accept-Language", "ru"),)
ENGLISH: Final = (("Accept-Language", "en"),)


@dataclass(frozen=True, slots=True)
class Line:
    """One request: method, percent-encoded target (``{n}`` is replaced by a fresh number at each
    sending), headers, body."""

    name: str
    method: str
    target: str
    headers: tuple[tuple[str, str], ...] = RUSSIAN
    body: bytes = b""


def attack_target(
    route: str, segment: str, *, nesting: bool = True, method: str = "PROPFIND"
) -> str:
    """``route``, a fresh-number segment, then as many ``segment`` as the request line holds."""
    head = route + "{n}/" + (NESTING if nesting else "")
    room = LINE_LIMIT - len(f"{method}  HTTP/1.1") - len(head) - 8  # the number, with room
    return head + segment * (room // len(segment))


def attacks() -> list[Line]:
    """The attack: every static route, every method it lacks, every spelling of the path."""
    return [
        Line(f"{method} {route}<{spelling} x{len(attack_target(route, segment))}B>", method,
             attack_target(route, segment, method=method))
        for route in STATIC_ROUTES
        for method in LACKING
        for spelling, segment in SEGMENTS.items()
    ]  # fmt: skip


def lines() -> list[Line]:
    """The attacks, then controls: the same path without the nesting beginning, as a 404, in
    English; a Content-Type of the same shape; an ordinary 405 and 404."""
    found = attacks()
    long_type = "a variation selector U+1 after x: " + "ten: " * 790
    found += [
        Line("POST /docs/static/<plain, no nesting prefix>", "POST",
             attack_target("/docs/static/", "ten:%20", nesting=False, method="POST")),
        Line("GET /docs/static/<plain> (404)", "GET",
             attack_target("/docs/static/", "ten:%20", method="GET")),
        Line("GET /nowhere/<plain> (404)", "GET", attack_target("/nowhere/", "ten:%20")),
        Line("POST /docs/static/<plain> in English", "POST",
             attack_target("/docs/static/", "ten:%20", method="POST"), ENGLISH),
        Line("POST /v1/hands/score, Content-Type of ten: segments", "POST", "/v1/hands/score?{n}",
             (*RUSSIAN, ("Content-Type", long_type)), b"{}"),
        Line("control: DELETE /v1/hands/score", "DELETE", "/v1/hands/score?{n}"),
        Line("control: GET /v1/nowhere", "GET", "/v1/nowhere/{n}"),
    ]  # fmt: skip
    return found


_CHILD: Final = r"""
import json, logging, sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import problem_cost as pc
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config

class Count(logging.Handler):
    errors = 0
    def emit(self, record):
        Count.errors += record.levelno >= logging.ERROR
logging.getLogger().addHandler(Count())
logging.getLogger().setLevel(logging.ERROR)
app = create_app(Config(build_tables=False), audit_sink=lambda line: None)
client = app.test_client()
client.get("/v1/rules").close()
for line in pc.lines():
    if sys.argv[3] not in line.name:
        continue
    worst, status, code, before = 0.0, 0, "", Count.errors
    for n in range(int(sys.argv[4])):
        target = line.target.replace("{n}", str(n))
        started = time.process_time()
        response = client.open(target, method=line.method, headers=list(line.headers),
                               data=line.body)
        data = response.get_data()
        worst = max(worst, time.process_time() - started)
        status = response.status_code
        code = json.loads(data).get("code", "") if status >= 400 and data[:1] == b"{" else ""
    print(json.dumps({"name": line.name, "status": status, "code": code,
                      "cpu_ms": worst * 1000, "logged_errors": Count.errors - before}), flush=True)
"""


def measure(root: Path, only: str, repeat: int) -> list[dict[str, Any]]:
    """Every line's figures, from a fresh interpreter importing the service from ``root``."""
    here = Path(__file__).resolve().parent
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), str(here), only, str(repeat)],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=1800,
        check=False,
    )
    results = [json.loads(row) for row in done.stdout.splitlines() if row.startswith("{")]
    if done.returncode != 0:
        results.append({"error": (done.stderr.strip().splitlines() or ["?"])[-1]})
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--only", default="")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    print(f"service from {root}; target: {CPU_TARGET_MS:.0f} ms CPU per problem, worst of "
          f"{args.repeat}")  # fmt: skip
    print(f"{'request line':<62} {'answer':>28} {'CPU ms':>8} {'errors':>6}  verdict")
    misses = 0
    for got in measure(root, args.only, args.repeat):
        if "error" in got:
            misses += 1
            print(f"failed: {got['error']}")
            continue
        ok = got["cpu_ms"] < CPU_TARGET_MS and got["status"] < 500 and not got["logged_errors"]
        misses += not ok
        answer = f"{got['status']} {got['code']}"[:28]
        print(f"{got['name'][:62]:<62} {answer:>28} {got['cpu_ms']:>8.1f} "
              f"{got['logged_errors']:>6}  {'ok' if ok else 'MISS'}")  # fmt: skip
    print(f"{misses} line(s) over the target, answered 5xx or logged an error")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
