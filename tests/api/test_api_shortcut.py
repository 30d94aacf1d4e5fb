"""The score pre-dispatch (``hands.ScoreShortcut``, a ``shortcut.JsonShortcut``) answers exactly
what Flask would: the same status, headers, bytes and audit line for every body it takes, and it
takes nothing else (every refusal, and every request it is unsure of, is Flask's own answer)."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import sys
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from flask import Flask

from service.api.app import EXTENSION, create_app
from service.api.config import Config
from service.api.endpoints.hands import SCORE_PATH

VOLATILE = ("ts", "duration_ms")
VERDICT_HEADERS = [
    "Cache-Control",
    "Content-Type",
    "Content-Length",
    "X-Content-Type-Options",
    "Content-Security-Policy",
    "Referrer-Policy",
    "X-Request-ID",
]
"""The headers of a 200 verdict, in order, whichever path answered it."""


class Twin:
    """One app, asked each question with the shortcut of ``path`` on and off."""

    def __init__(self, path: str = SCORE_PATH, **config: Any) -> None:
        self.path = path
        self.lines: list[bytes] = []
        self.app: Flask = create_app(Config(**config), audit_sink=self.lines.append)
        self.observer = self.app.extensions[EXTENSION].observer
        self.route = self.observer.router.routes[path]
        assert self.route.shortcut is not None
        self.taken = 0
        shortcut = self.route.shortcut

        def counting(environ: Any, exchange: Any) -> Any:
            answer = shortcut(environ, exchange)
            self.taken += answer is not None
            return answer

        self.on = dataclasses.replace(self.route, shortcut=counting)
        self.off = dataclasses.replace(self.route, shortcut=None)

    def call(self, shortcut: bool, environ: dict[str, Any]) -> tuple[str, list[Any], bytes, Any]:
        self.observer.router.replace(self.path, self.on if shortcut else self.off)
        self.lines.clear()
        seen: list[Any] = []

        def start_response(status: str, headers: list[Any], exc_info: Any = None) -> Any:
            seen[:] = [status, list(headers)]
            return lambda data: None

        try:
            out = self.observer(dict(environ), start_response)
            body = b"".join(out)
            getattr(out, "close", lambda: None)()
        finally:
            self.observer.router.replace(self.path, self.route)
        (line,) = self.lines
        record = orjson.loads(line)
        for field in VOLATILE:
            record.pop(field)
        return seen[0], seen[1], body, record

    def both(self, environ: dict[str, Any], body: bytes = b"", stream: Any = None) -> Any:
        def env() -> dict[str, Any]:
            e = dict(environ)
            e["wsgi.input"] = io.BytesIO(body) if stream is None else stream()
            return e

        before = self.taken
        slow = self.call(False, env())
        fast = self.call(True, env())
        assert fast == slow
        return slow, self.taken - before


@pytest.fixture(scope="module")
def twin() -> Iterator[Twin]:
    yield Twin(api_keys=(hashlib.sha256(b"k" * 32).digest(),))


def environ(body: bytes, **extra: Any) -> dict[str, Any]:
    base = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": SCORE_PATH,
        "SERVER_NAME": "x",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "HTTP_AUTHORIZATION": "Bearer " + "k" * 32,
        "HTTP_X_REQUEST_ID": "same-id",
    }
    base.update(extra)
    return {k: v for k, v in base.items() if v is not None}


VALID = [
    {"cards": ["KS", "QS", "JS", "JC"]},
    {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"},
    {"trump": None, "cards": ["KH", "QH", "KD", "10D"]},
    {"cards": ["ks", "qs", "js", "jc"], "trump": "s"},
    {"cards": ["K♠", "Q♠", "J♠", "J♣"], "trump": "♠"},
    {"cards": ["TS", "10s", "T♥", "AH"], "trump": "h"},
    {"cards": ["9H", "AH", "9D", "AD"], "trump": "D"},
    {"cards": ["QS", "QC", "QH", "KH"], "trump": "C"},
    {"cards": ["QS", "QC", "QH", "KH"], "trump": "H"},
]


@pytest.mark.parametrize("hand", VALID)
def test_valid_hands_same_answer_from_the_shortcut(twin: Twin, hand: dict[str, Any]) -> None:
    for text in (orjson.dumps(hand), b" \n" + orjson.dumps(hand, option=orjson.OPT_INDENT_2)):
        for media in ("application/json", "Application/JSON; charset=utf-8"):
            (status, headers, body, record), taken = twin.both(
                environ(text, CONTENT_TYPE=media), text
            )
            assert taken == 1
            assert status == "200 OK"
            assert [name for name, _ in headers] == VERDICT_HEADERS
            assert orjson.loads(body)["ruleset"]
            assert record["verdict"] == {"score": orjson.loads(body)["score"]}
            assert "body_sha256" in record and "response_sha256" in record


def test_escaped_colons_and_unicode_escapes_are_the_same(twin: Twin) -> None:
    text = b'{"cards": ["K\\u0053", "QS", "JS", "JC"], "tr\\u0075mp": "\\u2660"}'
    (status, _, _, _), taken = twin.both(environ(text), text)
    assert (status, taken) == ("200 OK", 1)


REFUSED = [
    b"",
    b"{",
    b"[]",
    b"null",
    b'{"cards": ["KS", "QS", "JS", "JC"], "cards": ["KS", "QS", "JS", "JC"]}',
    b'{"cards": ["KS", "QS", "JS", "JC"], "trump": "S", "trump": "H"}',
    b'{"cards": ["KS", "QS", "JS", "JC"], "x\\u003a": 1}',
    b'{"cards": ["KS", "QS", "JS"]}',
    b'{"cards": ["KS", "QS", "JS", "JC", "AS"]}',
    b'{"cards": ["KS", "QS", "JS", "XX"]}',
    b'{"cards": ["KS", "KS", "KS", "KS", "KS"]}',
    b'{"cards": ["KS", "QS", "JS", "JC"], "trump": "X"}',
    b'{"cards": ["KS", "QS", "JS", "JC"], "trump": 1}',
    b'{"cards": ["KS", "QS", "JS", "JC"], "extra": 1}',
    b'{"cards": "KSQSJSJC"}',
    b'{"cards": [1, 2, 3, 4]}',
    b'{"cards": ["KS", "QS", "JS", "JC"], "trump": NaN}',
    b"[" * 300 + b"]" * 300,
    b'{"cards": ["KS", "QS", "JS", "\xff"]}',
]


@pytest.mark.parametrize("text", REFUSED)
def test_refused_bodies_are_flasks_problems(twin: Twin, text: bytes) -> None:
    (status, _, _, record), taken = twin.both(environ(text), text)
    assert taken == 0
    assert not status.startswith("200"), status
    assert "verdict" in record


def test_at_the_size_limit_and_beyond_flask_answers(twin: Twin) -> None:
    limit = twin.app.config["MAX_CONTENT_LENGTH"]
    for size in (limit, limit + 1):
        text = b'{"cards": ["KS", "QS", "JS", "JC"]}'.ljust(size)
        (status, _, _, _), taken = twin.both(environ(text), text)
        assert (status[:3], taken) == ("200" if size == limit else "413", 0)


@pytest.mark.parametrize(
    "extra",
    [
        {"CONTENT_TYPE": "text/plain"},
        {"CONTENT_TYPE": None},
        {"CONTENT_LENGTH": None},
        {"CONTENT_LENGTH": "abc"},
        {"CONTENT_LENGTH": "-5"},
        {"CONTENT_LENGTH": "٣٥"},
        {"HTTP_TRANSFER_ENCODING": "chunked", "CONTENT_LENGTH": None},
        {"REQUEST_METHOD": "GET"},
        {"REQUEST_METHOD": "PUT"},
        {"HTTP_AUTHORIZATION": None},
        {"HTTP_AUTHORIZATION": "Bearer wrong"},
    ],
)
def test_unusual_requests_are_flasks(twin: Twin, extra: dict[str, Any]) -> None:
    text = b'{"cards": ["KS", "QS", "JS", "JC"]}'
    (_, _, _, _), taken = twin.both(environ(text, **extra), text)
    assert taken == 0


def test_short_long_and_failing_streams_are_flasks(twin: Twin) -> None:
    text = b'{"cards": ["KS", "QS", "JS", "JC"]}'
    short = environ(text, CONTENT_LENGTH=str(len(text) + 10))
    (status, _, _, _), taken = twin.both(short, text)
    assert (status[:3], taken) == ("400", 0)
    terminated = environ(text, **{"wsgi.input_terminated": True})
    (status, _, _, _), taken = twin.both(terminated, text + b"  ")
    assert (status[:3], taken) == ("200", 0)  # Werkzeug read the two spaces too
    (status, _, _, _), taken = twin.both(terminated, text)
    assert (status[:3], taken) == ("200", 1)

    class Failing(io.RawIOBase):
        def read(self, size: int = -1) -> bytes:
            raise OSError("connection reset")

        def readinto(self, buffer: Any) -> int:
            raise OSError("connection reset")

    (status, _, _, _), taken = twin.both(environ(text), stream=Failing)
    assert taken == 0


def test_the_shortcut_counts_in_the_metrics_as_flask_does() -> None:
    twin = Twin()
    text = b'{"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}'
    metrics = []
    for shortcut in (False, True):
        twin.call(shortcut, {**environ(text), "wsgi.input": io.BytesIO(text)})
        metrics.append(twin.app.test_client().get("/metrics").data)
    assert twin.taken == 1
    hands = [line for line in metrics[1].splitlines() if line.startswith(b"quart_bezique_hands")]
    assert hands, metrics[1][:2000]
