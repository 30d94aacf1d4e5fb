"""What ``POST /v1/rounds/reconcile`` costs (docs/reconcile-http.md, "What it costs").

    python -m scripts.reconcile_http_cost [--records 10000] [--big-mib 100] [--runs 3]

Two questions the endpoint's users ask, measured against one gunicorn worker:

- **records per second**: an archive of ``--records`` lines (``scripts/round_archive.py``, the
  realistic mix with planted faults) posted with its length, the answer read as it streams; the
  best of ``--runs``. The baseline of the same run is the command line's engine on one worker
  (``quart-bezique reconcile --workers 1``, the report's own rate): the ratio is what HTTP, the
  envelope and the audit line cost on top of judging.
- **peak memory with a large body**: ``--big-mib`` MiB of records sent chunked (as ``curl -T``
  sends a file) to a fresh worker, once with the default body limit and once with the largest
  (64 MiB). The worker's peak resident memory (``VmHWM``) before and after says what the body
  cost: the limit bounds it, not the body's size.

Run it on an otherwise idle machine. The table it prints is the one docs/reconcile-http.md keeps.
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from scripts.harness.ports import LOOPBACK, free_port
from scripts.harness.procfs import proc_memory
from scripts.harness.server import GunicornServer, server_env, start_server
from scripts.reconcile_cost import measure
from scripts.round_archive import DEFAULT_SEED, write_archive

PATH: Final = "/v1/rounds/reconcile"
MIB: Final = 1024 * 1024
LARGEST_LIMIT: Final = 64 * MIB
"""The largest ``MAX_BODY_BYTES`` the service accepts."""
PIECE: Final = 64 * 1024
"""The size of each chunk the large body is sent in."""
GUARD: Final = 300.0
"""Seconds after which a request is abandoned (a hang guard: the script then says so)."""


@dataclass(frozen=True, slots=True)
class Answered:
    seconds: float
    lines: int
    summarised: bool
    complete: bool
    sent: int
    error: str | None


def _start(folder: Path, limit: int | None) -> GunicornServer:
    env = server_env(free_port(), drop=("API_KEYS", "API_KEYS_FILE"), WEB_CONCURRENCY="1")
    if limit is not None:
        env["MAX_BODY_BYTES"] = str(limit)
    return start_server(folder / f"gunicorn-{env['PORT']}.log", env, workers=1)


def _worker(server: GunicornServer) -> int:
    (pid,) = server.workers()
    return pid


def _exchange(port: int, head: bytes, pieces: Sequence[bytes]) -> Answered:
    """Send ``head`` then ``pieces`` from a thread while the answer is read here, to its end."""
    sock = socket.create_connection((LOOPBACK, port), timeout=GUARD)
    sent = [0]

    def send() -> None:
        try:
            sock.sendall(head)
            for piece in pieces:
                sock.sendall(piece)
                sent[0] += len(piece)
        except OSError:  # the server stopped reading (a limit): the answer says why
            pass

    sender = threading.Thread(target=send, daemon=True)
    started = time.perf_counter()
    sender.start()
    received = bytearray()
    with sock:
        while True:
            try:
                chunk = sock.recv(1 << 20)
            except (TimeoutError, ConnectionResetError):
                break
            if not chunk:
                break
            received += chunk
            if received.endswith(b"\r\n0\r\n\r\n"):  # the last chunk of a chunked answer
                break
        seconds = time.perf_counter() - started
    sender.join(GUARD)
    body = bytes(received.partition(b"\r\n\r\n")[2])
    error = None
    if b'"error":' in body:
        error = body.split(b'"error":', 1)[1].split(b'"code":"', 1)[1].split(b'"', 1)[0].decode()
    summarised = b'{"summary":' in body
    complete = b'"complete":true' in body
    return Answered(seconds, body.count(b'{"line":'), summarised, complete, sent[0], error)


def _posted(port: int, archive: bytes) -> Answered:
    head = (
        f"POST {PATH} HTTP/1.1\r\nHost: {LOOPBACK}\r\nContent-Type: application/x-ndjson\r\n"
        f"Content-Length: {len(archive)}\r\nConnection: close\r\n\r\n"
    ).encode("ascii")
    return _exchange(port, head, [archive])


def _chunked(port: int, body: bytes) -> Answered:
    head = (
        f"POST {PATH} HTTP/1.1\r\nHost: {LOOPBACK}\r\nContent-Type: application/x-ndjson\r\n"
        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    ).encode("ascii")
    pieces = [
        b"%x\r\n%s\r\n" % (len(body[i : i + PIECE]), body[i : i + PIECE])
        for i in range(0, len(body), PIECE)
    ]
    return _exchange(port, head, [*pieces, b"0\r\n\r\n"])


def _large_body(archive: bytes, mib: int) -> bytes:
    copies = -(-mib * MIB // len(archive))
    return (archive * copies)[: mib * MIB].rpartition(b"\n")[0] + b"\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=10_000, metavar="N")
    parser.add_argument("--big-mib", type=int, default=100, metavar="MIB")
    parser.add_argument("--runs", type=int, default=3, metavar="N")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="reconcile-http-cost-") as scratch:
        folder = Path(scratch)
        path = folder / "rounds.jsonl"
        write_archive(path, args.records, DEFAULT_SEED)
        archive = path.read_bytes()
        baseline = measure(path, args.records, 1, folder / "report", 0.1)
        server = _start(folder, LARGEST_LIMIT)
        try:
            runs = [_posted(server.port, archive) for _ in range(args.runs)]
        finally:
            server.stop()
        best = min(runs, key=lambda r: r.seconds)
        if best.lines != args.records or not best.complete:
            raise SystemExit(f"the endpoint answered {best.lines} lines of {args.records}")
        rate = args.records / best.seconds
        print(f"archive: {args.records:,} records, {len(archive) / MIB:.1f} MiB")
        print("| road | records/s | ratio to the command line |")
        print("|---|---:|---:|")
        print(f"| `quart-bezique reconcile --workers 1` (baseline) | {baseline.rate:,.0f} | 1.00 |")
        print(
            f"| `POST {PATH}`, one worker (best of {args.runs}) "
            f"| {rate:,.0f} | {rate / baseline.rate:.2f} |"
        )
        body = _large_body(archive, args.big_mib)
        print()
        print(f"a body of {len(body) / MIB:.0f} MiB, chunked, to a fresh worker:")
        print(
            "| MAX_BODY_BYTES | sent before the answer ended (MiB) | lines answered | stopped by "
            "| summary | worker peak RSS before → after (MiB) |"
        )
        print("|---:|---:|---:|---|---|---:|")
        for limit in (None, LARGEST_LIMIT):
            server = _start(folder, limit)
            try:
                worker = _worker(server)
                before = proc_memory(worker).hwm_kib or 0
                answered = _chunked(server.port, body)
                after = proc_memory(worker).hwm_kib or 0
            finally:
                server.stop()
            shown = "1 MiB (default)" if limit is None else f"{limit // MIB} MiB"
            print(
                f"| {shown} | {answered.sent / MIB:.1f} | {answered.lines:,} "
                f"| {answered.error or '-'} | {'yes' if answered.summarised else 'no'} "
                f"| {before / 1024:.0f} → {after / 1024:.0f} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
