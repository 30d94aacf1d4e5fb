"""The audit sink against real pipes: a reader that stops reading makes it refuse, within its
bound and without blocking; once the reader reads again it takes lines and reports ready again;
lines arrive whole and in order; a forked child has a sink of its own; a vanished reader makes it
refuse for good without spinning. Every wait here is a hang guard, never a speed requirement."""

from __future__ import annotations

import fcntl
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask
from quart_bezique.api import errors
from quart_bezique.api.config import Config
from quart_bezique.api.contract.schemas import request_schemas
from quart_bezique.api.endpoints import health as meta
from quart_bezique.api.endpoints.endpoint import Resources, serve
from quart_bezique.api.envelope import sink as sink_module
from quart_bezique.api.envelope.sink import CHUNK, AuditSink, StopReports

from tests.api.api_support import ok, problem

HANG_GUARD = 30.0
"""Seconds before a test calls something hung: never reached unless the sink is broken."""


@dataclass
class Pipe:
    """An ``os.pipe()`` (shrunk to one page, so that it fills after a few lines) whose reader
    reads only when told to."""

    r: int
    w: int
    sinks: list[AuditSink] = field(default_factory=list)
    received: bytearray = field(default_factory=bytearray)
    reader: threading.Thread | None = None

    def sink(self, **options: Any) -> AuditSink:
        made = AuditSink(self.w, **options)
        self.sinks.append(made)
        return made

    def start_reading(self) -> None:
        def read() -> None:
            while chunk := os.read(self.r, 65536):
                self.received += chunk

        self.reader = threading.Thread(target=read, daemon=True)
        self.reader.start()

    def read_all(self) -> bytes:
        """Everything written, once every sink has flushed: closes the write end to see EOF."""
        for made in self.sinks:
            assert made.flush(HANG_GUARD)
        os.close(self.w)
        self.w = -1
        if self.reader is None:
            self.start_reading()
        assert self.reader is not None
        self.reader.join(HANG_GUARD)
        assert not self.reader.is_alive()
        return bytes(self.received)


@pytest.fixture()
def pipe() -> Iterator[Pipe]:
    r, w = os.pipe()
    fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 4096)
    plumbing = Pipe(r, w)
    yield plumbing
    # Never close a descriptor a thread is blocked on (close does not wake it, and the number
    # may be reused): a reader ends on EOF; a writer gets EPIPE once the read end is closed.
    if plumbing.reader is not None and plumbing.w != -1:
        plumbing.read_all()
    os.close(plumbing.r)
    for made in plumbing.sinks:
        made.flush(HANG_GUARD)  # drained or stopped: no writer touches the write end any more
    if plumbing.w != -1:
        os.close(plumbing.w)


def lines(count: int, size: int = 100, tag: str = "") -> list[bytes]:
    """Distinct newline-terminated lines of exactly ``size`` bytes."""
    out = []
    for i in range(count):
        head = f'{{"tag":"{tag}","n":{i},"pad":"'.encode()
        out.append(head + b"x" * (size - len(head) - 3) + b'"}\n')
    return out


def returns(call: Callable[[], bool]) -> tuple[bool, float]:
    """``call()`` run on another thread, with a hang guard: its result and how long it took."""
    result: list[bool] = []
    started = time.monotonic()
    thread = threading.Thread(target=lambda: result.append(call()), daemon=True)
    thread.start()
    thread.join(HANG_GUARD)
    assert not thread.is_alive(), "the sink blocked"
    return result[0], time.monotonic() - started


def fill(sink: AuditSink) -> list[bytes]:
    """Offer lines until one is refused; the ones taken, in order."""
    taken: list[bytes] = []
    for line in lines(100_000):  # far more than the pipe and the buffer hold together
        if not sink(line):
            return taken
        taken.append(line)
    raise AssertionError("never refused: the buffer is not bounded")


def eventually(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + HANG_GUARD
    while not condition():
        assert time.monotonic() < deadline, "hang guard expired"
        time.sleep(0.001)


def test_lines_arrive_whole_and_in_order(pipe: Pipe) -> None:
    sink = pipe.sink()
    pipe.start_reading()
    sent = lines(2000, 90) + lines(3, 3 * CHUNK + 17, "long") + lines(500, 333, "after")
    assert all(sink(line) for line in sent)
    assert pipe.read_all() == b"".join(sent)
    assert sink.accepted == len(sent) and sink.refused == 0 and sink.ready()


def test_concurrent_callers_never_interleave(pipe: Pipe) -> None:
    sink = pipe.sink()
    pipe.start_reading()
    per_thread = {f"t{i}": lines(500, 60 + 40 * i, f"t{i}") for i in range(4)}

    def send(batch: list[bytes]) -> None:
        for line in batch:
            assert sink(line)

    threads = [threading.Thread(target=send, args=(b,)) for b in per_thread.values()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_GUARD)
    received = pipe.read_all().splitlines(keepends=True)
    assert sorted(received) == sorted(line for b in per_thread.values() for line in b)
    for tag, batch in per_thread.items():  # each thread's lines in its own order
        assert [line for line in received if f'"tag":"{tag}"'.encode() in line] == batch


def test_a_reader_that_stops_reading_gets_refusals_not_a_hang(pipe: Pipe) -> None:
    sink = pipe.sink(capacity=16_384, wait=0.02)
    taken = fill(sink)
    # Taken: what fits in the pipe and the buffer, no more.
    assert 16_384 - 100 < sum(map(len, taken)) <= 16_384 + 4096 + CHUNK
    assert not sink.ready()
    refused, seconds = returns(lambda: sink(lines(1, tag="one more")[0]))
    assert refused is False
    assert seconds >= 0.02  # it did wait for room, and (hang guard) came back
    assert sink.refused == 2 and not sink.ready()
    flushed, _ = returns(lambda: sink.flush(0.01))
    assert flushed is False  # bounded: the reader still reads nothing

    pipe.start_reading()
    assert sink.flush(HANG_GUARD)  # drained by itself once read
    assert sink.ready()
    late = lines(3, tag="late")
    assert all(sink(line) for line in late)
    assert pipe.read_all() == b"".join(taken + late)  # refused lines were never written


def test_readiness_has_hysteresis(pipe: Pipe) -> None:
    sink = pipe.sink(capacity=40_000, wait=0.0, high_water=0.75, low_water=0.25)
    taken = fill(sink)
    assert not sink.ready() and sink.queued > 30_000
    # Let about half the buffer through: the writer brings it below the high-water mark but
    # not to the low-water mark (the pipe fills again), so it must still say not ready.
    wanted = 20_000
    got = bytearray()
    while len(got) < wanted:
        got += os.read(pipe.r, wanted - len(got))
    eventually(lambda: sink.queued < 30_000)
    assert sink.queued > 10_000 and not sink.ready()
    pipe.received += got
    pipe.start_reading()
    eventually(sink.ready)
    assert sink.queued <= 10_000
    assert pipe.read_all() == b"".join(taken)


def test_high_water_mark_alone_turns_not_ready(pipe: Pipe) -> None:
    sink = pipe.sink(capacity=1_000_000, high_water=0.01, low_water=0.001)
    count = 0
    while sink.queued <= 10_000:
        assert sink(lines(1, tag=str(count))[0])  # room to spare: taken
        count += 1
        assert count < 10_000, "the pipe never filled"
    assert not sink.ready() and sink.refused == 0
    pipe.start_reading()
    eventually(sink.ready)


def test_a_line_longer_than_the_buffer_is_refused_without_congestion(pipe: Pipe) -> None:
    sink = pipe.sink(capacity=1000, wait=0.5)
    refused, _ = returns(lambda: sink(b"x" * 1001))
    assert refused is False
    assert sink.ready()  # nothing waits: nothing would ever clear it
    pipe.start_reading()
    assert sink(b"short\n")
    assert pipe.read_all() == b"short\n"


def test_a_reader_that_goes_away_makes_it_refuse_for_good(pipe: Pipe) -> None:
    sink = pipe.sink()
    os.close(pipe.r)
    pipe.r = os.open(os.devnull, os.O_RDONLY)  # for the fixture to close
    assert sink(b"lost\n")  # taken, then EPIPE
    assert sink.flush(HANG_GUARD) is False
    assert sink.lost == 1 and sink.write_errors == 1
    refused, _ = returns(lambda: sink(b"after\n"))
    assert refused is False and not sink.ready()
    time.sleep(0.05)
    assert sink.write_errors == 1  # the writer stopped: no retry loop on a dead pipe
    assert sink.flush(1) is False


def test_a_closed_descriptor_makes_it_refuse_for_good() -> None:
    unused = resource.getrlimit(resource.RLIMIT_NOFILE)[0] + 7  # never a valid descriptor
    sink = AuditSink(unused)
    assert sink(b"lost\n")
    assert sink.flush(HANG_GUARD) is False
    assert not sink(b"after\n") and not sink.ready()
    assert sink.write_errors == 1 and sink.lost == 1


def test_other_write_errors_are_retried_until_the_fd_works_or_goes(pipe: Pipe) -> None:
    full = os.open("/dev/full", os.O_WRONLY)  # every write fails with ENOSPC
    fd = os.dup(full)
    os.close(full)
    sink = AuditSink(fd)
    assert sink(b"kept\n")
    eventually(lambda: sink.write_errors >= 1)
    assert sink.ready() and sink.lost == 0 and sink.queued == 5  # kept, to be retried
    os.dup2(pipe.w, fd)  # the same descriptor now writes to the pipe
    pipe.start_reading()
    assert sink.flush(HANG_GUARD)
    assert sink(b"next\n") and sink.flush(HANG_GUARD)
    os.close(fd)  # its writer is idle: flushed
    assert pipe.read_all() == b"kept\nnext\n"


def fork_and_check(check: Callable[[], bool]) -> None:
    """Run ``check`` in a forked child; its result comes back as the exit status."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        code = 2
        try:
            code = 0 if check() else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + HANG_GUARD
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        assert time.monotonic() < deadline, "the child hung"
        time.sleep(0.01)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_forked_child_writes_through_a_writer_of_its_own(pipe: Pipe) -> None:
    sink = pipe.sink()
    pipe.start_reading()
    assert sink(b"parent before\n") and sink.flush(HANG_GUARD)  # the parent's writer is running

    def child() -> bool:
        return sink.accepted == 0 and sink(b"child\n") and sink.flush(HANG_GUARD)

    fork_and_check(child)
    assert sink(b"parent after\n")
    received = pipe.read_all().splitlines()
    assert sorted(received) == [b"child", b"parent after", b"parent before"]


def test_a_forked_child_starts_empty_and_ready(pipe: Pipe) -> None:
    sink = pipe.sink(capacity=16_384, wait=0.0)
    taken = fill(sink)
    assert not sink.ready() and sink.queued > 0

    def child() -> bool:
        # The parent's lines are the parent's to write; the child is not congested by them. Its
        # own line (a full PIPE_BUF: the partly full pipe cannot take it) stays in its buffer.
        return sink.queued == 0 and sink.ready() and sink(b"c" * CHUNK) and sink.queued == CHUNK

    fork_and_check(child)
    pipe.start_reading()
    assert pipe.read_all() == b"".join(taken)  # the child wrote nothing of the parent's


def test_lines_taken_are_written_before_the_interpreter_exits() -> None:
    # A worker that stops gracefully leaves through sys.exit: what it still holds is flushed.
    script = (
        "from quart_bezique.api.envelope.sink import AuditSink\n"
        "sink = AuditSink()\n"
        "assert all(sink(b'%06d\\n' % i) for i in range(20000))\n"
        "raise SystemExit(0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, timeout=HANG_GUARD, check=True
    )
    assert done.stdout == b"".join(b"%06d\n" % i for i in range(20000))


def test_flush_with_nothing_taken_is_immediate() -> None:
    sink = AuditSink(os.open(os.devnull, os.O_WRONLY))
    try:
        assert sink.flush(0.0)
    finally:
        os.close(sink.fd)


def test_readyz_reports_a_lagging_audit_log(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(meta, "tables_ready", lambda: True)
    state = {"ready": True}
    config = Config(build_tables=False)
    app = Flask("readyz-check")
    checks = ((lambda: state["ready"], meta.AUDIT_LAGGING),)
    serve(app, meta.ENDPOINTS, Resources(config, request_schemas(config), ready_checks=checks))
    errors.register(app, config)
    client = app.test_client()
    assert ok(client.get("/readyz")) == {"status": "ready"}
    state["ready"] = False
    response = client.get("/readyz")
    assert problem(response, 503, "NOT_READY")["detail"] == "the audit log is not keeping up"
    assert response.headers["Retry-After"] == "1"
    assert ok(client.get("/healthz")) == {"status": "ok"}  # liveness is not the log's business
    state["ready"] = True
    assert ok(client.get("/readyz")) == {"status": "ready"}


def test_readyz_without_checks_is_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(meta, "tables_ready", lambda: True)
    app = Flask("readyz-plain")
    config = Config(build_tables=False)
    serve(app, meta.ENDPOINTS, Resources(config, request_schemas(config)))
    assert ok(app.test_client().get("/readyz")) == {"status": "ready"}


def test_a_non_blocking_descriptor_is_waited_on_not_lost(pipe: Pipe) -> None:
    os.set_blocking(pipe.w, False)  # as a stdout inherited in that mode would be
    sink = pipe.sink(capacity=16_384, wait=0.0)
    taken = fill(sink)  # EAGAIN from the full pipe: the writer waits for it, keeping the line
    assert sink.write_errors == 0 and sink.lost == 0 and not sink.ready()
    pipe.start_reading()
    assert pipe.read_all() == b"".join(taken)


# --- a stopping worker: a buffer sized to what can be written in time, and an honest count ------


def test_the_default_capacity_is_what_the_slowest_reader_writes_in_the_exit_budget() -> None:
    env = {"GUNICORN_GRACEFUL_TIMEOUT": "20", "AUDIT_MIN_DRAIN_RATE": "8192"}
    assert sink_module.exit_budget(20) == 10.0
    assert sink_module.default_capacity(env) == 10 * 8192
    assert sink_module.default_capacity({}) == sink_module.default_capacity(env)  # the defaults
    assert sink_module.default_capacity({"GUNICORN_GRACEFUL_TIMEOUT": "4"}) == 2 * 8192
    assert sink_module.default_capacity({"AUDIT_MIN_DRAIN_RATE": "1"}) == CHUNK  # at least one
    assert sink_module.default_capacity({"GUNICORN_GRACEFUL_TIMEOUT": "0"}) == CHUNK
    for bad in ("x", "0", "-5"):
        with pytest.raises(ValueError, match="AUDIT_MIN_DRAIN_RATE"):
            sink_module.default_capacity({"AUDIT_MIN_DRAIN_RATE": bad})
    sink = AuditSink(os.open(os.devnull, os.O_WRONLY))
    try:
        assert sink.capacity == sink_module.default_capacity()
    finally:
        os.close(sink.fd)


def test_close_counts_what_a_stalled_reader_never_got(pipe: Pipe) -> None:
    sink = pipe.sink(capacity=16_384, wait=0.0)
    taken = fill(sink)
    held = sink.pending
    assert held > 0 and sink.queued > 0
    counts: list[int] = []

    def close() -> bool:
        counts.append(sink.close(0.05))  # bounded: gives up after its budget
        return True

    returns(close)
    lost = counts[0]
    assert not sink(b"after close\n") and not sink.ready()
    pipe.start_reading()
    received = pipe.read_all()
    assert sink.queued == 0
    written = received.count(b"\n")
    # Each line is written whole or not at all; the count covers every line not written (and
    # the chunk being written as the sink closed, which may or may not have got through).
    assert received == b"".join(taken[:written])
    assert 0 < len(taken) - written <= lost <= held
    assert b"after close" not in received


def test_close_with_everything_written_reports_nothing(pipe: Pipe) -> None:
    sink = pipe.sink()
    pipe.start_reading()
    assert all(sink(line) for line in lines(500))
    assert sink.close(HANG_GUARD) == 0
    assert sink.pending == 0 and not sink(b"late\n")


def test_a_closed_sink_is_not_flushed_again_at_interpreter_exit() -> None:
    script = (
        "import os\n"
        "from quart_bezique.api.envelope.sink import AuditSink\n"
        "r, w = os.pipe()\n"  # nobody reads: the pipe fills and the rest waits in the buffer
        "sink = AuditSink(w, capacity=1 << 20)\n"
        "assert all(sink(b'%06d\\n' % i) for i in range(20000))\n"
        "print(sink.close(0.1) > 0, flush=True)\n"
        "os.close(r)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, timeout=HANG_GUARD, check=True
    )
    assert done.stdout == b"True\n"  # and no second wait of EXIT_FLUSH_SECONDS on a dead pipe
    assert b"not written at exit" not in done.stderr


def test_stop_reports_count_lost_lines_and_workers_killed_while_writing() -> None:
    reports = StopReports()
    assert reports.collect() == (0, 0)
    reports.report(101, "pending", 40)
    reports.report(101, "written", 0)  # flushed in time: nothing lost
    reports.report(102, "pending", 30)
    reports.report(102, "lost", 12)
    reports.report(103, "lost", 5)  # lines lost earlier (stdout gone)
    assert reports.collect() == (17, 2)
    reports.report(104, "pending", 9)  # never concluded: killed while writing
    assert reports.collect() == (26, 3)
    reports.report(104, "pending", 4)  # the pid reused by a later worker: the first one's lost
    reports.report(104, "written", 0)
    assert reports.collect() == (26, 3)


def test_stop_reports_are_shared_with_forked_workers() -> None:
    reports = StopReports()

    def child() -> bool:
        reports.report(os.getpid(), "lost", 7)
        return True

    fork_and_check(child)
    assert reports.collect() == (7, 1)
    assert sink_module.stop_reports() is sink_module.stop_reports()
