"""The server's own log can neither stop it nor leak a key, and a forwarded ``SCRIPT_NAME`` is not
honoured.

Against the real gunicorn: a stderr that nobody reads (a stalled log pipeline) must not stop
requests or probes, and what could not be written is counted and reported once the pipe moves;
an API key put in a request line or a query never reaches stdout or stderr; a ``SCRIPT_NAME``
header from a trusted peer (127.0.0.1) is answered as usual, not with gunicorn's 500 page. Then
the cleaning of log records (``service/quart_bezique/server/errorlog.py``) on its own. Every wait is
a hang guard; nothing asserts a speed.
"""

from __future__ import annotations

import base64
import http.client
import logging
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from quart_bezique.server.errorlog import (
    CLIP,
    MESSAGE_MAX,
    REDACTED,
    CleaningFilter,
    LineQueue,
    QueueHandler,
    Redactor,
    configured_keys,
)

from tests.api.api_support import PROBLEM, ROOT, LiveServer, free_port, start_server
from tests.security.piped import end, read_into
from tests.security.raw_http import exchange

HANG_GUARD = 60.0
"""Seconds before a phase is called hung (never reached by a working server)."""
KEY = "error-log-suite-key-0123456789abcdef"
FLOOD = 2000
"""Malformed requests sent while stderr is not read: each is one warning line (about 300 bytes),
about twice what the pipe and the worker's buffer hold together."""


def malformed(n: int) -> bytes:
    """A request line gunicorn refuses (a control byte in the target) and logs, with a key in it."""
    return (
        b"GET /v1/rules?k="
        + KEY.encode()
        + b"&n=%d&pad=" % n
        + b"p" * 100
        + b"\x01 HTTP/1.1\r\n\r\n"
    )


# ------------------------------------------------------------------- stderr that nobody reads


@dataclass
class Unread:
    """gunicorn (one worker) whose stderr is a pipe nobody reads until ``start_reading``."""

    process: subprocess.Popen[bytes]
    port: int
    stdout: Path
    err: bytearray = field(default_factory=bytearray)
    reader: threading.Thread | None = None

    def get(self, path: str) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=HANG_GUARD)
        try:
            conn.request("GET", path, headers={"Authorization": f"Bearer {KEY}"})
            response = conn.getresponse()
            response.read()
            return response.status
        finally:
            conn.close()

    def start_reading(self) -> None:
        assert self.process.stderr is not None
        self.reader = read_into(self.process.stderr.fileno(), self.err)

    def stop(self) -> None:
        if self.reader is None:
            self.start_reading()
        end(self.process, HANG_GUARD)
        assert self.reader is not None
        self.reader.join(HANG_GUARD)


@pytest.fixture()
def unread(tmp_path: Path) -> Iterator[Unread]:
    port = free_port()
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port), "WEB_CONCURRENCY": "1"}
    env.update(API_KEYS=KEY, GUNICORN_ACCESS_LOG="-", GUNICORN_DRAIN_SECONDS="0")
    stdout = tmp_path / "gunicorn.stdout"
    with stdout.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "quart_bezique.wsgi:app"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.PIPE,
        )
    server = Unread(process, port, stdout)
    try:
        deadline = time.monotonic() + HANG_GUARD
        while True:
            try:
                if server.get("/readyz") == 200:
                    break
            except OSError:
                pass
            assert process.poll() is None, "gunicorn exited"
            assert time.monotonic() < deadline, "gunicorn never ready"
            time.sleep(0.1)
        yield server
    finally:
        server.stop()
        if process.stderr is not None:
            process.stderr.close()


def test_a_stderr_nobody_reads_stops_neither_requests_nor_probes(unread: Unread) -> None:
    for n in range(FLOOD):  # each answered (a blocked log would leave it unanswered: timeout)
        assert exchange("127.0.0.1", unread.port, malformed(n), timeout=HANG_GUARD).status == 400
    assert unread.get("/healthz") == 200
    assert unread.get("/readyz") == 200
    assert unread.get("/v1/rules") == 200

    unread.start_reading()  # the pipe moves again: every line written or reported dropped
    deadline = time.monotonic() + HANG_GUARD
    while True:
        text = unread.err.decode(errors="replace")
        dropped = sum(int(n) for n in re.findall(r"(\d+) log lines dropped", text))
        written = text.count("Invalid HTTP request line")
        if dropped and written + dropped >= FLOOD:
            break
        assert time.monotonic() < deadline, f"{written} written, {dropped} dropped of {FLOOD}"
        time.sleep(0.1)
    assert written > 0 and KEY not in text


# --------------------------------------------------------------------- keys, SCRIPT_NAME


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """gunicorn with ``API_KEYS`` and the access log on stdout, both streams in ``log``."""
    server = start_server(tmp_path_factory.mktemp("error-log"), API_KEYS=KEY, WEB_CONCURRENCY="1")
    yield server
    server.stop()


def test_no_key_reaches_the_log(keyed: LiveServer) -> None:
    bearer = {"Authorization": f"Bearer {KEY}"}
    basic = {"Authorization": "Basic " + base64.b64encode(f"{KEY}:x".encode()).decode()}
    answers = [
        exchange("127.0.0.1", keyed.port, malformed(0), timeout=HANG_GUARD).status,
        keyed.request("GET", f"/v1/rules?q={KEY}", headers=bearer)[0],
        keyed.request("GET", f"/v1/rules?q={KEY.replace('-', '%2D')}", headers=bearer)[0],
        keyed.request("GET", "/v1/rules?api_key=not-configured-secret-1", headers=bearer)[0],
        keyed.request("GET", "/v1/rules", headers=basic)[0],
        keyed.request("GET", "/healthz?x=" + "a" * 3000)[0],
        keyed.request("GET", "/healthz", headers={"User-Agent": "probe\x85forged line"})[0],
    ]
    assert answers == [400, 200, 200, 200, 401, 200, 200]
    log = wait_for(keyed, b"Invalid HTTP request line", b"forged line")
    assert KEY.encode() not in log
    assert b"not-configured-secret-1" not in log
    assert b"Invalid HTTP request line" in log and log.count(REDACTED.encode()) >= 4
    assert b"a" * (CLIP + 1) not in log  # the long request line was clipped
    assert b"probe\\x85forged" in log and "\x85".encode() not in log  # escaped


def wait_for(server: LiveServer, *needles: bytes) -> bytes:
    """The server's log once it holds every needle (its lines are written by other threads)."""
    deadline = time.monotonic() + HANG_GUARD
    while not all(needle in (log := server.log.read_bytes()) for needle in needles):
        assert time.monotonic() < deadline, f"never logged: {needles}"
        time.sleep(0.05)
    return log


def test_a_script_name_header_is_not_honoured(keyed: LiveServer) -> None:
    headers = {"SCRIPT_NAME": "/x", "Host": "x"}
    raw = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    plain = exchange(
        "127.0.0.1", keyed.port, f"GET /healthz HTTP/1.1\r\n{raw}\r\n".encode(), timeout=HANG_GUARD
    )
    assert plain.status == 200, plain.raw[:300]
    prefixed = exchange(
        "127.0.0.1", keyed.port, f"GET /x/healthz HTTP/1.1\r\n{raw}\r\n".encode(), timeout=60
    )
    assert prefixed.status in (401, 404), prefixed.raw[:300]  # an unknown path, not /healthz
    assert prefixed.header("Content-Type") == PROBLEM
    assert orjson.loads(prefixed.body)["status"] == prefixed.status


# ---------------------------------------------------------------------- cleaning, on its own

REDACTOR = Redactor([KEY])
KEY_ALPHABET = st.sampled_from("ABCxyz0189-._~+/")


@given(st.text(max_size=300), st.text(max_size=300))
def test_a_configured_key_never_survives(before: str, after: str) -> None:
    for form in (KEY, KEY.replace("-", "%2D"), KEY.upper()):
        assert KEY not in REDACTOR.clean(before + form + after)
        assert KEY.lower() not in REDACTOR.clean(before + form + after).lower()


@given(
    st.sampled_from(
        [
            "key",
            "api_key",
            "X-Api-Key",
            "token",
            "access_token",
            "secret",
            "auth",
            "password",
            "signature",
            "sig",
        ]
    ),
    st.text(KEY_ALPHABET, min_size=1, max_size=80),
    st.sampled_from(["?", "&", ";", " ", "'"]),
)
def test_a_credential_parameter_is_redacted(name: str, value: str, before: str) -> None:
    cleaned = REDACTOR.clean(f"GET /v1/rules{before}{name}={value}&page=2 HTTP/1.1")
    assert f"{name}={REDACTED}&page=2" in cleaned


@given(st.text(max_size=5000))
def test_cleaned_text_is_one_bounded_line_of_short_spans(text: str) -> None:
    cleaned = REDACTOR.clean(text)
    assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029]", cleaned)
    assert len(cleaned) <= MESSAGE_MAX + CLIP  # (the clipping markers take a few characters)
    assert all(len(run) <= CLIP for run in cleaned.split())


def test_clean_is_stable_and_keeps_ordinary_lines() -> None:
    line = '127.0.0.1 - - [01/Jan/2026:00:00:00 +0000] "GET /healthz HTTP/1.1" 200 15 "-" "-"'
    assert REDACTOR.clean(line) == line
    assert REDACTOR.clean(f"Bearer {KEY}") == f"Bearer {REDACTED}"
    assert REDACTOR.clean("Authorization: Basic dXNlcjpwYXNz") == f"Authorization: Basic {REDACTED}"
    clipped = REDACTOR.clean("x" * 500)
    assert clipped == "x" * CLIP + " [+300]" and REDACTOR.clean(clipped) == clipped
    assert REDACTOR.clean("a\nb\x1b[31m") == "a\\x0ab\\x1b[31m"


def test_the_filter_cleans_arguments_messages_and_tracebacks() -> None:
    cleaning = CleaningFilter(REDACTOR)
    record = logging.LogRecord("t", logging.ERROR, __file__, 1, "on %s: %d", (KEY, 7), None)
    assert cleaning.filter(record) and record.getMessage() == f"on {REDACTED}: 7"
    mapping = logging.LogRecord("t", logging.INFO, __file__, 1, "%(r)s", ({"r": "y" * 999},), None)
    assert cleaning.filter(mapping) and mapping.getMessage() == "y" * CLIP + " [+799]"
    try:
        raise ValueError(f"bad\x1b {KEY}")
    except ValueError:
        failed = logging.LogRecord("t", logging.ERROR, __file__, 1, "x", (), sys.exc_info())
    assert cleaning.filter(failed) and failed.exc_text is not None
    assert KEY not in failed.exc_text and "\x1b" not in failed.exc_text
    assert "\n" in failed.exc_text  # a traceback keeps its lines


def test_configured_keys_from_the_variable_and_the_file(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.write_text("# comment\n\nfile-key-0123456789abcdef\n")
    environ = {"API_KEYS": f" {KEY} ,", "API_KEYS_FILE": str(keys)}
    assert configured_keys(environ) == [KEY, "file-key-0123456789abcdef"]
    assert configured_keys({"API_KEYS_FILE": str(tmp_path / "missing")}) == []


def test_a_full_queue_drops_counts_and_reports_once_the_pipe_moves() -> None:
    read_end, write_end = os.pipe()
    reports: list[int] = []
    queue = LineQueue(write_end, reports.append, capacity=4096)
    try:
        line = b"x" * 99 + b"\n"
        taken = sum(queue.put(line) for _ in range(5000))  # the pipe fills, then the buffer
        assert 0 < taken < 5000 and queue.dropped == 5000 - taken
        received = bytearray()
        os.set_blocking(read_end, False)
        deadline = time.monotonic() + HANG_GUARD
        while len(received) < taken * len(line) or sum(reports) < queue.dropped:
            assert time.monotonic() < deadline, f"{len(received)} bytes, reports {reports}"
            try:
                received += os.read(read_end, 65536)
            except BlockingIOError:
                time.sleep(0.01)
        assert sum(reports) == queue.dropped  # each drop reported once
        assert bytes(received) == line * taken  # whole lines, in order
    finally:
        os.close(write_end)
        os.close(read_end)


def test_a_closed_pipe_drops_every_later_line_and_never_blocks() -> None:
    """A reader that went away (EPIPE) ends the writer: what it held and every later line is
    dropped and counted, and ``flush`` returns at once instead of waiting for its deadline."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    queue = LineQueue(write_end, lambda count: None)
    try:
        assert queue.put(b"first\n")
        assert queue.flush(HANG_GUARD) is False  # gone, not written
        assert queue.put(b"later\n") is False and queue.dropped >= 2
    finally:
        os.close(write_end)


def test_a_non_blocking_descriptor_that_is_full_is_waited_on_by_the_writer_alone() -> None:
    """An inherited descriptor in non-blocking mode: the writer waits for room (the callers
    never do), and every line arrives once the reader drains the pipe."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    queue = LineQueue(write_end, lambda count: None, capacity=1 << 20)
    try:
        line = b"y" * 1023 + b"\n"
        assert all(queue.put(line) for _ in range(200))  # far more than a pipe holds
        received = bytearray()
        deadline = time.monotonic() + HANG_GUARD
        while len(received) < 200 * len(line):
            assert time.monotonic() < deadline
            received += os.read(read_end, 65536)
        assert bytes(received) == line * 200 and queue.flush(HANG_GUARD)
    finally:
        os.close(write_end)
        os.close(read_end)


def test_a_record_that_cannot_be_formatted_is_logged_as_it_came() -> None:
    cleaning = CleaningFilter(REDACTOR)
    record = logging.LogRecord("t", logging.INFO, __file__, 1, "%d of %d", ("x",), None)
    assert cleaning.filter(record)
    assert record.getMessage().startswith("unformattable log message: '%d of %d'")
    stacked = logging.LogRecord("t", logging.INFO, __file__, 1, "s", (), None, sinfo=f"\x1b{KEY}")
    assert cleaning.filter(stacked) and stacked.stack_info == f"\\x1b{REDACTED}"
    assert cleaning.filter(stacked)  # a record is cleaned once, however many handlers see it


def test_a_drop_report_is_taken_even_when_the_buffer_is_full() -> None:
    """The report is the only trace of the lines it counts: dropping it too would leave them
    unaccounted for (a report says 1 line lost while hundreds were)."""
    read_end, write_end = os.pipe()
    queue = LineQueue(write_end, lambda count: None, capacity=100)
    handler = QueueHandler(queue)
    try:
        os.set_blocking(write_end, False)
        while queue.put(b"z" * 99 + b"\n"):  # the pipe, then the buffer, fill
            pass
        assert queue.put(b"ordinary\n") is False
        report = logging.LogRecord("t", logging.WARNING, __file__, 1, "7 lost", (), None)
        setattr(report, "quart_bezique_drop_report", True)  # noqa: B010
        dropped = queue.dropped
        handler.emit(report)
        assert queue.dropped == dropped  # taken, over capacity
    finally:
        os.close(write_end)
        os.close(read_end)
