"""Child processes: pinning them to CPUs, and stopping every one we started, by pid, however the
run ends (success, failure, Ctrl-C, SIGTERM). Nothing is ever stopped by name."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from types import FrameType

from scripts.harness.procfs import children_of


def pin(cpus: Sequence[int]) -> Callable[[], None] | None:
    """A ``preexec_fn`` that pins the child to ``cpus`` (what ``taskset -c`` does), so that load
    generator and server never fight for a core; None leaves the child unpinned."""
    if not cpus:
        return None
    chosen = set(cpus)

    def apply() -> None:
        os.sched_setaffinity(0, chosen)

    return apply


class Terminated(Exception):
    """SIGTERM or SIGHUP arrived: unwinding lets every ``finally`` stop what it started."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated(signal.Signals(signum).name)


def unwind_on_signals() -> None:
    """Turn SIGTERM and SIGHUP into ``Terminated`` and restore Ctrl-C even if it was ignored, so
    that a killed run still stops its servers."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _raise_terminated)
    signal.signal(signal.SIGHUP, _raise_terminated)


class Started:
    """Every process a run started, in order; ``stop_all`` ends them newest first by pid: a
    polite signal, a grace period, then SIGKILL for the process and its children."""

    def __init__(self) -> None:
        self.processes: list[subprocess.Popen[bytes]] = []

    def add(self, process: subprocess.Popen[bytes]) -> subprocess.Popen[bytes]:
        self.processes.append(process)
        return process

    def stop_all(self, grace_s: float = 25.0) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for process in reversed(self.processes):
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                for pid in [process.pid, *children_of(process.pid)]:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                process.wait(timeout=5)
