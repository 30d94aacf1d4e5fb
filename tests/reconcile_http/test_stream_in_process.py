"""``POST /v1/rounds/reconcile`` in process: the lines, their order, the limits, the key, the
audit line (the server's own behaviour, chunking and slow clients, is in ``test_stream_live``)."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from flask import Flask
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.endpoints import reconcile
from werkzeug.test import EnvironBuilder, run_wsgi_app

from tests.reconcile_http.support import (
    API_KEY,
    AUTH,
    NDJSON,
    PATH,
    answer_lines,
    jsonl,
    records,
    sha256,
)


class Sink:
    """Takes audit lines (or refuses them, when ``taking`` is False)."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.taking = True

    def __call__(self, line: bytes) -> bool:
        if self.taking:
            self.lines.append(orjson.loads(line))
        return self.taking


@pytest.fixture(scope="module")
def sink() -> Sink:
    return Sink()


@pytest.fixture(scope="module")
def app(sink: Sink) -> Flask:
    keys = (hashlib.sha256(API_KEY.encode()).digest(),)
    return create_app(Config(build_tables=False, api_keys=keys), audit_sink=sink)


@pytest.fixture()
def audit(sink: Sink) -> Iterator[Sink]:
    sink.lines.clear()
    sink.taking = True
    yield sink
    sink.taking = True


def post(app: Flask, data: bytes, **headers: str) -> tuple[int, dict[str, str], bytes]:
    sent = {"Content-Type": NDJSON, **AUTH, **headers}
    response = app.test_client().post(PATH, data=data, headers=sent)
    return response.status_code, dict(response.headers), response.get_data()


def test_each_record_is_answered_in_order_then_the_summary(app: Flask, audit: Sink) -> None:
    body = jsonl(records())
    status, headers, data = post(app, body)
    assert status == 200
    assert headers["Content-Type"] == NDJSON
    assert "Content-Length" not in headers  # streamed
    *judged, last = answer_lines(data)
    assert [line["line"] for line in judged] == [1, 2, 3, 4]
    assert [line["round_id"] for line in judged] == [
        "table-7/round-1042",
        "table-7/round-1043",
        "table-2/round-9",
        "table-3/round-77",
    ]
    assert [line["matches"] for line in judged] == [True, False, True, False]
    assert [line["valid"] for line in judged] == [True, True, True, False]
    assert [d["field"] for d in judged[1]["differences"]] == [
        "/players/1/payout",
        "/players/1/net",
        "/players/3/payout",
        "/players/3/net",
        "/winners",
        "/scores/cid",
    ]
    assert judged[3]["differences"] == [
        {"field": "", "claimed": orjson.loads(records()[3])["claimed"], "reference": None}
    ]
    summary = last["summary"]
    assert summary == {
        "records": 4,
        "matching": 2,
        "disagreeing": 2,
        "unclaimed": 0,
        "unreadable": 0,
        "differences": 7,
        "bytes": len(body),
        "complete": True,
        "stopped": None,
        "body_sha256": sha256(body),
        "response_sha256": sha256(data[: data.rindex(b'{"summary"')]),
    }


def test_same_body_same_answer(app: Flask, audit: Sink) -> None:
    body = jsonl(records())
    assert post(app, body)[2] == post(app, body)[2]


def test_an_unreadable_line_is_reported_and_the_rest_judged(app: Flask, audit: Sink) -> None:
    first, second, *_ = records()
    no_ante = orjson.loads(first)
    del no_ante["ante"]
    body = jsonl([first, b"{not json", orjson.dumps(no_ante), b"", second])
    status, _, data = post(app, body)
    assert status == 200
    lines = answer_lines(data)
    assert lines[0]["line"] == 1 and lines[0]["matches"] is True
    assert lines[1]["line"] == 2 and lines[1]["code"] == "MALFORMED_JSON"
    assert lines[1]["pointer"] == "" and lines[1]["message"]
    assert lines[2] == {
        "line": 3,
        "code": "MISSING_FIELD",
        "pointer": "/ante",
        "message": lines[2]["message"],
    }
    assert lines[3]["line"] == 5 and lines[3]["matches"] is False  # line 4 is blank: skipped
    assert lines[4]["summary"]["unreadable"] == 2
    assert lines[4]["summary"]["records"] == 4
    assert lines[4]["summary"]["complete"] is True


def test_a_line_too_long_is_unreadable_and_read_past(
    monkeypatch: pytest.MonkeyPatch, audit: Sink
) -> None:
    monkeypatch.setattr(reconcile, "MAX_LINE_BYTES", 1024)
    app = create_app(Config(build_tables=False), audit_sink=audit)
    long_line = b'{"format": "' + b"x" * 5000 + b'"}'
    body = jsonl([records()[0], long_line, records()[0]])
    lines = answer_lines(post(app, body)[2])
    assert lines[1] == {
        "line": 2,
        "code": "BODY_TOO_LARGE",
        "pointer": "",
        "message": "the line is longer than the limit of 1024 bytes",
    }
    assert lines[2]["line"] == 3 and lines[2]["matches"] is True
    assert lines[3]["summary"]["bytes"] == len(body)


def test_the_maximum_of_records_stops_the_run_with_an_error_line(
    monkeypatch: pytest.MonkeyPatch, audit: Sink
) -> None:
    monkeypatch.setattr(reconcile, "MAX_RECORDS", 3)
    app = create_app(Config(build_tables=False), audit_sink=audit)
    status, _, data = post(app, jsonl(records() * 2))
    assert status == 200
    *judged, error, last = answer_lines(data)
    assert [line["line"] for line in judged] == [1, 2, 3]
    assert error["error"]["code"] == "TOO_MANY_RECORDS"
    assert error["error"]["line"] == 4
    assert "at most 3 records" in error["error"]["message"]
    assert last["summary"]["records"] == 3
    assert last["summary"]["complete"] is False
    assert last["summary"]["stopped"] == "TOO_MANY_RECORDS"
    (line,) = audit.lines
    assert line["verdict"]["stopped"] == "TOO_MANY_RECORDS"


def chunked(app: Flask, body: bytes) -> bytes:
    """The answer to ``body`` sent without a length, as gunicorn hands a chunked body to the
    app (``wsgi.input_terminated``: the stream ends where the body does)."""
    environ = EnvironBuilder(
        path=PATH,
        method="POST",
        input_stream=io.BytesIO(body),
        content_type=NDJSON,
        headers=list(AUTH.items()),
    ).get_environ()
    del environ["CONTENT_LENGTH"]
    environ["wsgi.input_terminated"] = True
    environ["HTTP_TRANSFER_ENCODING"] = "chunked"
    iterable, status, _ = run_wsgi_app(app, environ, buffered=True)
    assert status.startswith("200")
    return b"".join(iterable)


def test_a_body_over_the_maximum_of_bytes_is_judged_up_to_it_then_refused(audit: Sink) -> None:
    app = create_app(Config(build_tables=False, max_body_bytes=2048), audit_sink=audit)
    lines = records()
    body = jsonl(lines * 3)
    fit = 0
    while len(jsonl((lines * 3)[: fit + 1])) <= 2048:
        fit += 1
    *judged, error, last = answer_lines(chunked(app, body))
    assert [line["line"] for line in judged if "round_id" in line] == list(range(1, fit + 1))
    assert error["error"]["code"] == "BODY_TOO_LARGE"
    assert last["summary"]["bytes"] == 2048
    assert last["summary"]["complete"] is False
    assert last["summary"]["body_sha256"] == sha256(body[:2048])
    # Declared in the head: refused before anything is read.
    status, _, data = post(app, body)
    assert status == 413
    assert orjson.loads(data)["code"] == "BODY_TOO_LARGE"


def test_a_chunked_body_is_read_to_its_end(app: Flask, audit: Sink) -> None:
    body = jsonl(records())
    assert answer_lines(chunked(app, body)) == answer_lines(post(app, body)[2])


def test_a_key_is_required(app: Flask, audit: Sink) -> None:
    body = jsonl(records())
    response = app.test_client().post(PATH, data=body, content_type=NDJSON)
    assert response.status_code == 401
    assert response.get_json()["code"] == "UNAUTHORIZED"
    assert "judged" not in response.get_data(as_text=True)
    (line,) = audit.lines
    assert line["status"] == 401 and line["verdict"] == {"code": "UNAUTHORIZED"}


def test_json_is_refused_with_415(app: Flask, audit: Sink) -> None:
    status, headers, _ = post(app, jsonl(records()), **{"Content-Type": "application/json"})
    assert status == 415
    assert headers["Accept-Post"] == "application/x-ndjson, application/jsonl"
    assert post(app, jsonl(records()), **{"Content-Type": "application/jsonl"})[0] == 200


def test_the_audit_line_counts_the_run_and_names_both_digests(app: Flask, audit: Sink) -> None:
    body = jsonl([*records(), b"[]"])
    _, headers, data = post(app, body, **{"X-Request-ID": "reconcile-audit-1"})
    summary = answer_lines(data)[-1]["summary"]
    (line,) = audit.lines
    assert line["request_id"] == "reconcile-audit-1" == headers["X-Request-ID"]
    assert line["endpoint"] == PATH and line["status"] == 200
    assert line["key_id"]
    assert line["body_sha256"] == sha256(body) == summary["body_sha256"]
    assert line["response_sha256"] == summary["response_sha256"]
    assert line["verdict"] == {
        "records": 5,
        "matching": 2,
        "disagreeing": 2,
        "unclaimed": 0,
        "unreadable": 1,
        "differences": 7,
        "bytes": len(body),
        "complete": True,
        "stopped": None,
    }


def test_no_summary_without_its_audit_line(app: Flask, audit: Sink) -> None:
    audit.taking = False
    *judged, last = answer_lines(post(app, jsonl(records()))[2])
    assert len(judged) == 4
    assert last["error"]["code"] == "AUDIT_UNAVAILABLE"
    assert "summary" not in last
