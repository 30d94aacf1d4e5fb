"""What signing verdicts costs: server CPU per score request with receipts on and off.

    .venv/bin/python -m scripts.signing_cost

The target (signed at most 1.35 times the unsigned CPU per score request) is about what a
deployment pays, so the first measurement is the server's: two gunicorn servers (one worker
each), identical but for a signing key, are sent the same score requests over a kept-alive
connection, in alternating rounds (drift in the machine's speed hits both alike), and their
workers' CPU time (``/proc``) is divided by the requests served. Then the same two apps are
called in-process, without HTTP, which isolates the envelope: there one signature is a large
share of a request that costs little else. A 10,000-hand batch shows the same signature spread
over far more work. Run it on an otherwise idle machine: ``make bench`` runs it after the main
benchmark.
"""

from __future__ import annotations

import gc
import http.client
import os
import statistics
import tempfile
from pathlib import Path

os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="signing-cost-"))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
)
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.integrity import build_digest
from quart_bezique.receipts import Keyring, Signer, SigningKey, thumbprint

from scripts.harness.ports import free_port
from scripts.harness.procfs import CLK_TCK
from scripts.harness.server import GunicornServer, server_env
from scripts.harness.sinks import fd_sink
from scripts.loadtest.envelope_cost import Wsgi, bodies, cpu_us

TARGET = 1.35
"""Signed score requests may cost at most this many times the unsigned CPU."""
ROUNDS = 7
REQUESTS = 2000


def apps() -> tuple[Wsgi, Wsgi]:
    private = Ed25519PrivateKey.generate()
    key = SigningKey(thumbprint(private.public_key()), private)
    signing = (Signer(key, version="bench", build=build_digest()), Keyring(key, (key.public,)))
    sink = fd_sink(os.open(os.devnull, os.O_WRONLY))
    plain = create_app(Config(), audit_sink=sink)
    signed = create_app(Config(), audit_sink=sink, signing=signing)
    return plain.wsgi_app, signed.wsgi_app


def served(key_file: Path, log_dir: Path) -> None:
    """Server CPU per score request, unsigned and signed, under gunicorn."""
    path, body = bodies()["score"]
    assert body is not None
    one = {"WEB_CONCURRENCY": "1", "GUNICORN_THREADS": "1"}
    servers = [
        GunicornServer(server_env(free_port()) | one | extra, log_dir / f"{name}.log", name=name)
        for name, extra in (("unsigned", {}), ("signed", {"SIGNING_KEY_FILE": str(key_file)}))
    ]
    try:
        for server in servers:
            server.start()
            server.wait_ready()
        per_request: dict[str, list[float]] = {s.name: [] for s in servers}
        for _ in range(ROUNDS):
            for server in servers:
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
                headers = {"Content-Type": "application/json"}
                before, _ = server.worker_ticks()
                for _ in range(REQUESTS):
                    conn.request("POST", path, body=body, headers=headers)
                    answer = conn.getresponse()
                    answer.read()
                    if answer.status != 200:
                        raise SystemExit(f"{server.name}: {answer.status}")
                after, _ = server.worker_ticks()
                conn.close()
                per_request[server.name].append((after - before) / CLK_TCK / REQUESTS * 1e6)
    finally:
        for server in servers:
            server.stop()
    off = statistics.median(per_request["unsigned"])
    on = statistics.median(per_request["signed"])
    ratio = on / off
    verdict = "PASS" if ratio <= TARGET else "FAIL"
    print("server CPU per request under gunicorn (1 worker, kept-alive connection):")
    print(f"{'score':24s} {off:10.1f} {on:10.1f} {ratio:6.2f}x  {verdict} (target ≤ {TARGET}x)")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="signing-cost-") as scratch:
        key_file = Path(scratch) / "signing-key.pem"
        key_file.write_bytes(
            Ed25519PrivateKey.generate().private_bytes(
                Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()
            )
        )
        print(f"{'request':24s} {'unsigned':>10s} {'signed':>10s} {'ratio':>7s}  (CPU µs/request)")
        served(key_file, Path(scratch))
    in_process()


def in_process() -> None:
    plain, signed = apps()
    requests = bodies()
    gc.collect()
    gc.freeze()
    print("in-process, the envelope and the app only (no HTTP):")
    for name in ("score", "batch, 10,000 hands"):
        path, body = requests[name]
        count, rounds = (3, 15) if name.startswith("batch") else (300, 31)
        pairs = [
            (cpu_us(plain, path, body, count), cpu_us(signed, path, body, count))
            for _ in range(rounds)
        ]
        off = statistics.median(a for a, _ in pairs)
        on = statistics.median(b for _, b in pairs)
        ratio = statistics.median(b / a for a, b in pairs)
        print(f"{name:24s} {off:10.1f} {on:10.1f} {ratio:6.2f}x")


if __name__ == "__main__":
    main()
