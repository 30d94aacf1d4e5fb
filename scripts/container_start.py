"""How fast a fresh container of the image answers: ``docker run`` to the first 200 on ``/readyz``.

``make container-test`` times its first container too, but that start is the image's first
after the build (cold caches) and is watched by a poller started through several Docker
commands. This series is what a node that already holds the image sees: containers started one
after another on the otherwise idle machine, each exactly as the main container runs (the
ConfigMap's tunables, the Deployment's limits, read-only, non-root), each timed from the moment
``docker run`` is invoked to the first 200, by one process polling every 5 ms on a port chosen
beforehand. Beside it, docker's own part: the same image and limits running ``python3 -c pass``,
timed to its exit, which no change to the service can remove.

    python -m scripts.container_start --image IMAGE --env-file FILE --memory 320m --cpus 1

Docker is reached as the caller's environment says (``DOCKER_HOST``, ``DOCKER_CONFIG``); the
binary is ``$QB_DOCKER`` or ``docker``. Prints one line per figure, and with ``--json`` writes
them for ``make bench`` to quote (the container test writes them beside its logs); exits non-zero
only when a container fails to start, never on a figure (targets are reported, not asserted).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from scripts.bench.config import LIMIT_CONTAINER_READY_S as TARGET_SECONDS
from scripts.harness.ports import LOOPBACK, free_port

POLL_SECONDS = 0.005
READY_WITHIN_SECONDS = 60.0
NAME = "qb-start-series"


def _docker() -> list[str]:
    return [os.environ.get("QB_DOCKER", "docker")]


def _remove(name: str) -> None:
    subprocess.run([*_docker(), "rm", "-f", name], capture_output=True, check=False)


def _ready(port: int) -> bool:
    connection = http.client.HTTPConnection(LOOPBACK, port, timeout=1)
    try:
        connection.request("GET", "/readyz")
        return connection.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()


def _limited(options: argparse.Namespace) -> list[str]:
    """The limits every container of the series runs under: the Deployment's, as in the test."""
    return [
        "--read-only", "--memory", options.memory, "--memory-swap", options.memory,
        "--cpus", options.cpus, "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
    ]  # fmt: skip


def time_start(options: argparse.Namespace, name: str) -> float:
    """One container, started and timed to its first 200, then removed."""
    port = free_port()
    command = [
        *_docker(), "run", "-d", "--name", name, "--label", "qb-container-test=start-series",
        "--env-file", options.env_file, "--env", f"PORT={options.app_port}", *_limited(options),
        "--tmpfs", "/tmp:rw,nosuid,nodev,noexec,size=16m", "--pids-limit", "256",
        "--publish", f"{LOOPBACK}:{port}:{options.app_port}", options.image,
    ]  # fmt: skip
    started = time.monotonic()
    try:
        subprocess.run(command, capture_output=True, check=True)
        while not _ready(port):
            if time.monotonic() - started > READY_WITHIN_SECONDS:
                raise SystemExit(f"{name} was not ready within {READY_WITHIN_SECONDS} s")
            time.sleep(POLL_SECONDS)
        return time.monotonic() - started
    except subprocess.CalledProcessError as error:
        message = error.stderr.decode(errors="replace")
        raise SystemExit(f"docker run {name} failed: {message}") from None
    finally:
        _remove(name)


def time_noop(options: argparse.Namespace) -> float:
    """Docker's part of a start: the same image and limits, ``python3 -c pass``, to its exit."""
    command = [
        *_docker(), "run", "--rm", "--network", "none", *_limited(options),
        options.image, "python3", "-c", "pass",
    ]  # fmt: skip
    started = time.monotonic()
    subprocess.run(command, capture_output=True, check=True)
    return time.monotonic() - started


def _summary(values: Sequence[float]) -> str:
    return (
        f"median {statistics.median(values):.2f} s, min {min(values):.2f} s, "
        f"max {max(values):.2f} s"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="docker run to the first 200 on /readyz")
    parser.add_argument("--image", required=True)
    parser.add_argument("--env-file", required=True)
    parser.add_argument("--memory", required=True)
    parser.add_argument("--cpus", required=True)
    parser.add_argument("--app-port", type=int, default=8081)
    parser.add_argument("--count", type=int, default=5)
    parser.add_argument("--revision", default="unknown", help="the commit the image was built from")
    parser.add_argument(
        "--json", type=Path, help="also write the figures here (make bench quotes them)"
    )
    options = parser.parse_args(argv)
    _remove(NAME)
    starts = [time_start(options, NAME) for _ in range(options.count)]
    noops = [time_noop(options) for _ in range(3)]
    median = statistics.median(starts)
    verdict = "met" if median <= TARGET_SECONDS else "missed"
    print(
        f"{options.count} fresh containers, one after another: docker run to the first 200 on "
        f"/readyz {_summary(starts)} (target {TARGET_SECONDS} s on the median: {verdict}); "
        f"each: {' '.join(f'{s:.2f}' for s in starts)}"
    )
    print(
        f"docker alone, the same image and limits running python3 -c pass, to its exit: "
        f"{_summary(noops)}; the service's own part of a start is about "
        f"{median - statistics.median(noops):.2f} s"
    )
    if options.json is not None:
        figures = {
            "median_s": round(median, 3),
            "starts_s": [round(s, 3) for s in starts],
            "docker_alone_s": round(statistics.median(noops), 3),
            "revision": options.revision,
            "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        options.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
