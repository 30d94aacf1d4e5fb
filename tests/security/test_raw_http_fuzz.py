"""Raw HTTP against the real gunicorn server with API keys set: whatever bytes arrive, no verdict
without the key, no 5xx, no traceback, no hang, and an audit line for every answer the app gave.

Raw bytes over a socket, because every HTTP client normalises exactly what an attacker varies:
the spelling of the path (``//v1``, ``%2F``, ``/./``, absolute form), the method's case, control
bytes, duplicate and contradictory framing headers. The routes come from the app's URL map, so a
route added later is fuzzed without editing this file.

Three tests:

- ``test_raw_http_fuzz``: a few hundred random requests from a fixed seed (the same bytes every
  run), one connection each with ``Connection: close``, stopped early at a wall-clock cap so a
  slow, shared machine cuts the run short rather than failing it. Every answer is checked; all
  failures are gathered and shown with the exact request bytes, which replay them.
- ``test_verdict_path_spellings_without_key``: every POST ``/v1`` verdict route spelled every way
  a path can be respelled (double slash at each slash, ``%2F`` for each slash, dot segments,
  absolute form, trailing slash, upper case, ...), each with a valid body and no key: never 200,
  and the audit line names a verdict route only for a 401 (a verdict route's answer without the
  key can only be the refusal).
- ``test_body_framings_with_key``: a valid score body with the key, framed every way the fuzz
  frames bodies (chunked with sizes that are not hex, contradictory Content-Lengths, both
  Transfer-Encoding and Content-Length, ...): the verdict when the framing is valid, else a 4xx,
  never a 5xx. With the key, because without it the body is never read.

Answers made by gunicorn itself, before the app is called (400 for a request line or header it
cannot parse, 414, 431), carry no ``X-Request-ID`` and have no audit line: that is expected, and
they are told apart from the app's answers by exactly that (and their HTML body).
"""

from __future__ import annotations

import hashlib
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

import orjson
import pytest
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.registry import ENDPOINTS

from tests.api.api_support import LiveServer
from tests.api.registry_support import JSON_ENDPOINTS, example
from tests.security.raw_http import NoAnswer, RawResponse, exchange

ROOT: Final = Path(__file__).resolve().parents[2]
SEED: Final = 20261130
REQUESTS: Final = 500
WALL_CLOCK_CAP: Final = 60.0
"""Seconds after which the fuzz stops sending (its checks still run on what was sent)."""
HANG_GUARD: Final = 15.0
"""Seconds one exchange may take: a hang guard, not a performance bound. Above the server's own
10 s body deadline (``BODY_READ_TIMEOUT``), so a 408 is an answer here, not a hang."""
AUDIT_WAIT: Final = 10.0
"""Seconds to wait for the audit lines to reach the log (written by a sink thread, after the
answer may already have been released)."""

GUNICORN_REFUSALS: Final = frozenset({400, 414, 431})
"""Statuses gunicorn answers with itself, before the app sees the request."""
DOCUMENTED_503: Final = frozenset({"NOT_READY", "AUDIT_UNAVAILABLE"})
"""The 503 problems the service documents: readiness (``/readyz``), and a verdict withheld because
its audit line could not be recorded."""
TRACEBACK_MARKS: Final = (b"Traceback (most recent call last)", b'File "/', b'.py", line ')

STREAMED_BODIES: Final[dict[str, bytes]] = {
    "/v1/rounds/reconcile": (ROOT / "examples" / "rounds" / "rounds.jsonl").read_bytes(),
}
"""The streamed verdict routes' bodies: JSON Lines, the shipped round records."""
VALID_BODIES: Final[dict[str, bytes]] = {
    endpoint.path: orjson.dumps(example(endpoint)) for endpoint in JSON_ENDPOINTS
} | STREAMED_BODIES
"""A body each verdict route answers 200 to (with the key): a bypass would give a real verdict.
Each JSON endpoint's first request example, from the registry, and the streamed bodies."""
MEDIA: Final[dict[str, bytes]] = {
    endpoint.path: endpoint.operation.request_media.encode("ascii") for endpoint in ENDPOINTS
}
"""Each route's request media type (``application/json`` but for the streamed routes)."""


def content_type(route: str) -> bytes:
    return b"Content-Type: " + MEDIA.get(route, b"application/json")


# ------------------------------------------------------------------------------ the routes


@cache
def routes() -> dict[str, frozenset[str]]:
    """Every route template of the app, with its methods (tables are not needed for the map)."""
    app = create_app(Config(build_tables=False), audit_sink=lambda line: None)
    return {rule.rule: frozenset(rule.methods or ()) for rule in app.url_map.iter_rules()}


@cache
def verdict_routes() -> tuple[str, ...]:
    """The routes that judge: POST under ``/v1``."""
    return tuple(sorted(t for t, m in routes().items() if "POST" in m and t.startswith("/v1/")))


@cache
def open_endpoints() -> frozenset[str]:
    """The audit ``endpoint`` of every route that needs no key: all routes outside ``/v1``
    (probes, metrics, the contract, the docs and their assets, labelled ``/docs/static``)."""
    labels = {t.split("/<")[0] for t in routes()}
    return frozenset(t for t in labels if not (t == "/v1" or t.startswith("/v1/")))


def is_open_endpoint(endpoint: str) -> bool:
    return endpoint in open_endpoints()


def test_the_valid_bodies_cover_every_verdict_route() -> None:
    """A verdict route without a valid body here would be fuzzed only with refusals."""
    assert set(verdict_routes()) == set(VALID_BODIES)
    assert "/v1/rules" in routes()  # protected: it is under /v1 (auth.py, routes.py)
    assert {"/healthz", "/readyz", "/metrics", "/docs", "/openapi.json", "/openapi.yaml"} <= (
        open_endpoints()
    )
    assert not open_endpoints() & {"/v1/rules", "unmatched", *verdict_routes()}


# ------------------------------------------------------------------------------ audit log


def audit_lines(server: LiveServer) -> dict[str, list[dict[str, Any]]]:
    """The server's audit lines by request id (its log also holds gunicorn's own lines)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for line in server.log.read_bytes().splitlines():
        if not line.startswith(b'{"ts"'):
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        found.setdefault(str(record.get("request_id")), []).append(record)
    return found


def wait_for_audit(server: LiveServer, ids: set[str]) -> dict[str, list[dict[str, Any]]]:
    """The audit lines, once every id in ``ids`` has one (or ``AUDIT_WAIT`` has passed)."""
    deadline = time.monotonic() + AUDIT_WAIT
    while True:
        lines = audit_lines(server)
        if ids <= lines.keys() or time.monotonic() > deadline:
            return lines
        time.sleep(0.1)


# ------------------------------------------------------------------------------ requests


@dataclass(frozen=True)
class Case:
    """One request: its bytes, and what the oracle needs to know about them."""

    request_id: str
    method: bytes
    target: bytes
    data: bytes
    key: bytes
    """The key the server accepts (not necessarily sent)."""

    @property
    def keyed(self) -> bool:
        """Whether the request holds the valid key anywhere (then anything may be answered)."""
        return self.key in self.data

    def shown(self, limit: int = 600) -> str:
        """The exact bytes, as a Python literal a reproduction can paste (long ones clipped)."""
        if len(self.data) <= limit:
            return repr(self.data)
        return f"{self.data[:limit]!r} ... ({len(self.data)} bytes in all)"


def build(
    request_id: str,
    method: bytes,
    target: bytes,
    headers: list[bytes],
    body: bytes = b"",
    *,
    key: bytes,
    version: bytes = b"HTTP/1.1",
    eol: bytes = b"\r\n",
) -> Case:
    line = b" ".join(part for part in (method, target, version) if part)
    data = line + eol + b"".join(h + eol for h in headers) + eol + body
    return Case(request_id, method, target, data, key)


# Mutations of a path (bytes): each takes the path and the random source.


def _slash_positions(path: bytes) -> list[int]:
    return [i for i, c in enumerate(path) if c == ord("/")] or [0]


def _a_slash(path: bytes, rng: random.Random) -> int:
    """A slash of ``path``: the first one half the time (where routers disagree most: Werkzeug
    strips leading slashes before matching)."""
    slashes = _slash_positions(path)
    return slashes[0] if rng.random() < 0.5 else rng.choice(slashes)


def _leading(path: bytes, rng: random.Random) -> bytes:
    return rng.choice([b"/", b"/%2F", b"/%2f", b"%2F", b"/%252F", b"//", b"/./", b"/../"]) + (
        path[1:] if path.startswith(b"/") else path
    )


def _double_slash(path: bytes, rng: random.Random) -> bytes:
    i = _a_slash(path, rng)
    return path[:i] + b"/" + path[i:]


def _encoded_slash(path: bytes, rng: random.Random) -> bytes:
    i = _a_slash(path, rng)
    spelled = rng.choice([b"%2F", b"%2f", b"%252F", b"%5C", b"\\", b"/%2F"])
    return path[:i] + spelled + path[i + 1 :]


def _dot_segment(path: bytes, rng: random.Random) -> bytes:
    i = _a_slash(path, rng)
    return path[:i] + rng.choice([b"/.", b"/x/..", b"/%2e", b"/.%2E/..", b"/.."]) + path[i:]


def _trailing(path: bytes, rng: random.Random) -> bytes:
    return path + rng.choice([b"/", b"/.", b"//", b"%2F", b"/.."])


def _upper(path: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        return path.upper()
    parts = path.split(b"/")
    i = rng.randrange(len(parts))
    parts[i] = parts[i].upper()
    return b"/".join(parts)


def _params(path: bytes, rng: random.Random) -> bytes:
    i = rng.choice(_slash_positions(path)[1:] or [len(path)])
    return path[:i] + rng.choice([b";a=b", b";", b";jsessionid=1"]) + path[i:]


def _query(path: bytes, rng: random.Random) -> bytes:
    return path + rng.choice([b"?", b"?x=1", b"?a=b&a=c", b"?/v1/hands/score", b"?%00"])


def _fragment(path: bytes, rng: random.Random) -> bytes:
    return path + rng.choice([b"#", b"#frag", b"#/../healthz"])


def _control_byte(path: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(len(path) + 1)
    byte = rng.choice([b"\x00", b"\x01", b"\x1b", b"\x7f", b"\t", b"\x0b", b"\xff", b"%00"])
    return path[:i] + byte + path[i:]


def _percent_letter(path: bytes, rng: random.Random) -> bytes:
    letters = [i for i, c in enumerate(path) if chr(c).isalnum()]
    if not letters:
        return path
    i = rng.choice(letters)
    hex_form = b"%%%02X" if rng.random() < 0.5 else b"%%%02x"
    return path[:i] + hex_form % path[i] + path[i + 1 :]


def _overlong(path: bytes, rng: random.Random) -> bytes:
    return path + b"/" + b"a" * rng.choice([2000, 4100, 9000])


MUTATIONS: Final[tuple[Callable[[bytes, random.Random], bytes], ...]] = (
    _leading,
    _leading,
    _double_slash,
    _encoded_slash,
    _dot_segment,
    _trailing,
    _upper,
    _params,
    _query,
    _fragment,
    _control_byte,
    _percent_letter,
    _overlong,
)

# Every part of a request has its right form and a list of wrong ones. A request breaks one to
# three parts and keeps the others right (a request broken everywhere is refused by the first
# check it meets, and tests nothing behind it); the path is broken most often.

ODD_METHODS: Final = (
    *(b"GET", b"HEAD", b"OPTIONS", b"PUT", b"DELETE", b"PATCH", b"TRACE", b"CONNECT", b"POST"),
    *(b"post", b"Post", b"get", b"FOO", b"BREW", b"P\x00ST", b"A" * 30, b"PROPFIND"),
)


def _template_path(template: str, rng: random.Random) -> bytes:
    if "<" in template:  # /docs/static/<path:filename>
        filename = rng.choice(["docs.js", "swagger-ui/LICENSE", "../app.py", "%2e%2e/app.py"])
        template = template.split("<")[0] + filename
    return template.encode("ascii")


def _odd_target(rng: random.Random, path: bytes, authority: bytes) -> bytes:
    for _ in range(rng.choice([1, 1, 1, 1, 2, 2, 3])):
        path = rng.choice(MUTATIONS)(path, rng)
    form = rng.random()
    if form < 0.2:
        host = rng.choice([authority, b"evil.example", b"evil.example:80", b"[::1]", b""])
        scheme = rng.choice([b"http://", b"https://", b"HTTP://"])
        return scheme + host + path
    if form < 0.25:
        return rng.choice([b"*", b"%2Fv1/hands/score", b"v1/hands/score", b"//evil.example" + path])
    return path


def _odd_host(rng: random.Random, authority: bytes) -> list[bytes]:
    return rng.choice(
        [
            [b"Host: evil.example"],
            [b"Host: "],
            [],
            [b"Host: " + authority, b"Host: evil.example"],
            [b"Host: evil.example, " + authority],
            [b"Host: evil.example:99999"],
            [b"Host: a b"],
            [b"Host: " + authority + b"\x00"],
            [b"Host: [::1]:80"],
        ]
    )


def _odd_authorization(rng: random.Random, key: bytes) -> list[bytes]:
    value = rng.choice(
        [
            b"bearer " + key,
            b"Bearer  " + key + b" ",
            b"Bearer " + key[:-1],
            b"Bearer " + key + b"x",
            b"Bearer " + key.upper(),
            b"Bearer wrong-key-0123456789abcdef",
            b"Bearer",
            b"Bearer ",
            b"Basic c2VjdXJpdHk6c3VpdGU=",
            b"Token " + key,
            b"Bearer " + b"A" * 9000,
            b"Bearer \x00" + key,
            b"Bearer wrong, Bearer " + key,
        ]
    )
    if rng.random() < 0.1:
        return [b"Authorization: Bearer wrong-key-0123456789abcdef", b"Authorization: " + value]
    return [b"Authorization: " + value]


def _odd_content_type(rng: random.Random) -> list[bytes]:
    return rng.choice(
        [
            [],
            [b"Content-Type: APPLICATION/JSON; charset=utf-8"],
            [b"Content-Type: application/json;charset=latin-1"],
            [b"Content-Type: text/plain"],
            [b"Content-Type: application/json, text/plain"],
            [b"Content-Type: application/x-www-form-urlencoded"],
            [b"Content-Type: multipart/form-data; boundary=x"],
            [b"Content-Type: application/json", b"Content-Type: text/plain"],
            [b"Content-Type: application/json\x00"],
        ]
    )


def _odd_body(rng: random.Random, valid: bytes) -> bytes:
    return rng.choice(
        [
            valid[: rng.randrange(len(valid))],  # truncated JSON
            valid[: rng.randrange(len(valid))],
            b"",
            b"null",
            b"[]",
            b'{"cards":["KS","QS","JS","JC"],"cards":[]}',
            b'{"cards":["K\xffS","QS","JS","JC"]}',
            b"[" * 300 + b"]" * 300,
            rng.randbytes(rng.randrange(1, 64)),
            b'{"hands":[' + b",".join([b'{"cards":["KS"]}'] * 2000) + b"]}",
        ]
    )


def _chunks(body: bytes) -> bytes:
    """``body`` in 7-byte chunks, without the last (empty) chunk."""
    pieces = [body[i : i + 7] for i in range(0, len(body), 7)]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces)


def _cl(body: bytes) -> bytes:
    return b"Content-Length: %d" % len(body)


TE: Final = b"Transfer-Encoding: chunked"
Framing = Callable[[bytes], tuple[list[bytes], bytes]]
"""Given a body: the framing headers and the bytes actually sent."""

FRAMINGS: Final[dict[str, Framing]] = {
    "chunked": lambda b: ([TE], _chunks(b) + b"0\r\n\r\n"),
    "chunked, upper-case hex sizes": lambda b: (
        [TE],
        b"%X\r\n%s\r\n0\r\n\r\n" % (len(b), b),
    ),
    "chunked, a chunk extension": lambda b: ([TE], b"%x ;ext=1\r\n%s\r\n0\r\n\r\n" % (len(b), b)),
    "chunked, size zz": lambda b: ([TE], b"zz\r\n" + b + b"\r\n0\r\n\r\n"),
    "chunked, size -1": lambda b: ([TE], b"-1\r\n" + b + b"\r\n0\r\n\r\n"),
    "chunked, size 0x5": lambda b: ([TE], b"0x5\r\nabcde\r\n0\r\n\r\n"),
    "chunked, a 20-digit size": lambda b: ([TE], b"f" * 20 + b"\r\n" + b + b"\r\n0\r\n\r\n"),
    "chunked, no last chunk": lambda b: ([TE], _chunks(b)),
    "chunked, size beyond the data": lambda b: ([TE], b"%x\r\n%s0\r\n\r\n" % (len(b) + 3, b)),
    "chunked and Content-Length": lambda b: ([TE, _cl(b)], _chunks(b) + b"0\r\n\r\n"),
    "gzip, chunked": lambda b: (
        [b"Transfer-Encoding: gzip, chunked"],
        _chunks(b) + b"0\r\n\r\n",
    ),
    "chunked, chunked": lambda b: (
        [b"Transfer-Encoding: chunked, chunked"],
        _chunks(b) + b"0\r\n\r\n",
    ),
    "Chunked": lambda b: ([b"Transfer-Encoding: Chunked"], _chunks(b) + b"0\r\n\r\n"),
    "tab before chunked": lambda b: (
        [b"Transfer-Encoding:\tchunked"],
        _chunks(b) + b"0\r\n\r\n",
    ),
    "chunked, then identity": lambda b: (
        [TE, b"Transfer-Encoding: identity"],
        _chunks(b) + b"0\r\n\r\n",
    ),
    "identity": lambda b: ([b"Transfer-Encoding: identity"], b),
    "no Content-Length": lambda b: ([], b),
    "Content-Length twice": lambda b: ([_cl(b), _cl(b)], b),
    "two different Content-Lengths": lambda b: (
        [_cl(b), b"Content-Length: %d" % (len(b) + 1)],
        b,
    ),
    "Content-Length list": lambda b: ([b"Content-Length: %d, %d" % (len(b), len(b))], b),
    "Content-Length +n": lambda b: ([b"Content-Length: +%d" % len(b)], b),
    "Content-Length -1": lambda b: ([b"Content-Length: -1"], b),
    "Content-Length in hex": lambda b: ([b"Content-Length: 0x%x" % len(b)], b),
    "Content-Length of 20 digits": lambda b: ([b"Content-Length: 99999999999999999999"], b),
    "Content-Length short": lambda b: ([b"Content-Length: %d" % max(0, len(b) - 5)], b),
    "Content-Length long": lambda b: ([b"Content-Length: %d" % (len(b) + 50)], b),
}
"""Ways to frame a body: right, contradictory or broken (a long Content-Length ends at the
half-close, not at a timeout)."""


def _odd_framing(rng: random.Random, body: bytes) -> tuple[list[bytes], bytes]:
    return FRAMINGS[rng.choice(sorted(FRAMINGS))](body)


def _odd_headers(rng: random.Random) -> list[bytes]:
    return rng.choice(
        [
            [b"X-Pad: " + b"a" * 9000],
            [b"X-Many-%d: x" % i for i in range(120)],
            [b"No-Colon-Here"],
            [b"Bad Name: x"],
            [b"X-Folded: a", b" continued"],
            [b"Expect: 100-continue"],
            [b"X-Nul: a\x00b"],
            [b"X-Forwarded-Host: evil.example", b"X-Forwarded-Proto: https"],
            [b"X-Original-URL: /v1/hands/score", b"X-Rewrite-URL: /v1/hands/score"],
            [b"Accept: application/problem+json", b"Accept-Encoding: gzip"],
        ]
    )


PARTS: Final = ("path",) * 5 + (
    "method",
    "line",
    "host",
    "authorization",
    "content-type",
    "framing",
    "framing",
    "body",
    "body",
    "headers",
)
"""What a request may break (a part listed twice is broken twice as often)."""


def random_case(rng: random.Random, request_id: str, authority: bytes, key: bytes) -> Case:
    templates = sorted(routes())
    template = rng.choice(list(verdict_routes()) * 2 + templates)
    broken = set(rng.sample(PARTS, rng.choice([1, 1, 1, 2, 2, 3])))
    valid = VALID_BODIES.get(template) or rng.choice(list(VALID_BODIES.values()))
    method = b"POST" if template in VALID_BODIES else b"GET"
    if "method" in broken:
        method = rng.choice(ODD_METHODS)
    target = _template_path(template, rng)
    if "path" in broken:
        target = _odd_target(rng, target, authority)
    version, eol = b"HTTP/1.1", b"\r\n"
    if "line" in broken:
        version = rng.choice([b"HTTP/1.1", b"HTTP/1.0", b"HTTP/2.0", b"http/1.1", b""])
        eol = rng.choice([b"\r\n", b"\n"])
    keyed = rng.random() < 0.5
    headers = [
        *(_odd_host(rng, authority) if "host" in broken else [b"Host: " + authority]),
        *(
            _odd_authorization(rng, key)
            if "authorization" in broken
            else [b"Authorization: Bearer " + key] * keyed
        ),
        *(
            _odd_content_type(rng)
            if "content-type" in broken
            else [content_type(template)] * (method == b"POST")
        ),
        *(_odd_headers(rng) if "headers" in broken else []),
        b"X-Request-ID: " + request_id.encode("ascii"),
        b"Connection: close",
    ]
    body = _odd_body(rng, valid) if "body" in broken else valid if method == b"POST" else b""
    if "framing" in broken:
        framing, sent = _odd_framing(rng, body)
    else:
        framing, sent = ([b"Content-Length: %d" % len(body)] if body else []), body
    headers += framing
    rng.shuffle(headers)
    return build(request_id, method, target, headers, sent, key=key, version=version, eol=eol)


# ------------------------------------------------------------------------------ the oracle


def _problem_code(response: RawResponse) -> str | None:
    try:
        doc = orjson.loads(response.body)
    except orjson.JSONDecodeError:
        return None
    return doc.get("code") if isinstance(doc, dict) else None


def check_answer(
    case: Case,
    response: RawResponse,
    lines: dict[str, list[dict[str, Any]]],
    notes: list[str],
) -> list[str]:
    """What is wrong with ``response`` to ``case`` (empty: nothing); a documented 503 is noted."""
    wrong: list[str] = []
    status = response.status
    if status >= 500:
        code = _problem_code(response)
        if status == 503 and code in DOCUMENTED_503:
            notes.append(f"documented 503 {code} for {case.shown(200)}")
        else:
            wrong.append(f"{status} {response.body[:300]!r}")
    if any(mark in response.raw for mark in TRACEBACK_MARKS):
        wrong.append(f"a traceback in the answer: {response.raw[:400]!r}")
    if response.seconds >= HANG_GUARD:
        wrong.append(f"took {response.seconds:.1f} s")
    echoed = response.header("X-Request-ID")
    records = lines.get(case.request_id, [])
    if echoed is None:
        # gunicorn's own refusal: the app never saw the request, so there is nothing to audit.
        if status not in GUNICORN_REFUSALS or not response.body.lstrip().startswith(b"<html>"):
            wrong.append(f"no X-Request-ID on a {status} that is not gunicorn's own refusal")
        if records:
            wrong.append(f"gunicorn refused it ({status}) but the app audited it: {records}")
    else:
        if echoed != case.request_id:
            wrong.append(f"X-Request-ID {echoed!r} echoed for {case.request_id!r}")
        if len(records) != 1:
            wrong.append(f"{len(records)} audit lines for an answer the app gave ({status})")
        elif records[0].get("status") != status:
            wrong.append(f"answered {status}, audited {records[0].get('status')}: {records[0]}")
        if response.header("X-Content-Type-Options") != "nosniff":
            wrong.append(f"no X-Content-Type-Options: nosniff on the app's {status}")
    for record in records:
        if record.get("status") == 401 and "path" in record:
            wrong.append(f"a refused request's path was logged (it may hold a key): {record}")
        summary = record.get("verdict")
        if not case.keyed and isinstance(summary, dict) and set(summary) != {"code"}:
            wrong.append(f"a verdict audited for a request without the key: {record}")
    if "gunicorn" in (response.header("Server") or "").lower():
        wrong.append(f"the server software is named: {response.header('Server')}")
    if case.method == b"HEAD" and response.body and echoed is not None:
        # (gunicorn's own refusals carry their HTML page even then, and close the connection.)
        wrong.append(f"a body on a HEAD answer: {response.body[:100]!r}")
    if not case.keyed and status == 200:
        endpoint = str(records[0].get("endpoint")) if records else "(no audit line)"
        if case.method == b"POST":
            wrong.append(f"200 to a POST without the key (endpoint {endpoint}): a verdict")
        if not is_open_endpoint(endpoint):
            wrong.append(f"200 without the key on {endpoint}: {response.body[:200]!r}")
    return wrong


def _unanswered(case: Case, lines: dict[str, list[dict[str, Any]]]) -> list[str]:
    """A connection closed with no answer is allowed (gunicorn drops a request whose lines end in
    a bare LF without a word), but only if the app never answered it: an audited answer that
    never reached the client would be a record of something nobody was told."""
    records = lines.get(case.request_id, [])
    if records:
        return [f"no answer reached the client, but the app audited one: {records}"]
    return []


# ------------------------------------------------------------------------------ the tests


def _authority(server: LiveServer) -> bytes:
    return f"{server.host}:{server.port}".encode("ascii")


@pytest.fixture(scope="module")
def key(auth: dict[str, str]) -> bytes:
    """The key the keyed server accepts, from the suite's ``auth`` fixture."""
    scheme, _, token = auth["Authorization"].partition(" ")
    assert scheme == "Bearer" and token
    return token.encode("ascii")


def test_raw_http_fuzz(keyed_server: LiveServer, key: bytes) -> None:
    rng = random.Random(SEED)
    authority = _authority(keyed_server)
    sent: list[tuple[Case, RawResponse | None]] = []
    timeouts: list[str] = []
    started = time.monotonic()
    for number in range(REQUESTS):
        if time.monotonic() - started > WALL_CLOCK_CAP:
            break
        case = random_case(rng, f"fuzz-{SEED}-{number:04d}", authority, key)
        try:
            response: RawResponse | None = exchange(
                keyed_server.host, keyed_server.port, case.data, timeout=HANG_GUARD
            )
        except NoAnswer:
            response = None
        except TimeoutError:
            timeouts.append(f"{case.request_id}: no answer within {HANG_GUARD} s: {case.shown()}")
            continue
        sent.append((case, response))

    expected = {
        case.request_id
        for case, response in sent
        if response is not None and response.header("X-Request-ID") is not None
    }
    lines = wait_for_audit(keyed_server, expected)
    failures = list(timeouts)
    notes: list[str] = []
    for case, response in sent:
        wrong = (
            _unanswered(case, lines)
            if response is None
            else check_answer(case, response, lines, notes)
        )
        failures.extend(f"{case.request_id}: {w}\n    request: {case.shown()}" for w in wrong)

    answered = [r for _, r in sent if r is not None]
    statuses = sorted({r.status for r in answered})
    by_status = Counter(r.status for r in answered)
    refused = sum(r.header("X-Request-ID") is None for r in answered)
    # A summary for whoever reads the run (pytest -s / -rP): what the fuzz actually reached.
    print(
        f"raw HTTP fuzz, seed {SEED}: {len(sent)} requests in {time.monotonic() - started:.1f} s;"
        f" statuses {dict(sorted(by_status.items()))}; {refused} refused by gunicorn;"
        f" {len(sent) - len(answered)} closed without an answer;"
        f" {sum(c.keyed for c, _ in sent)} with the key"
    )
    for note in notes:
        print(note)
    # The fuzz reached every kind of answer it is meant to test, or it tested less than it says.
    assert len(sent) >= 100, f"only {len(sent)} requests within {WALL_CLOCK_CAP} s"
    assert any(
        c.keyed and r is not None and r.status == 200 and c.method == b"POST" for c, r in sent
    ), "no keyed verdict: the valid bodies or the key are wrong"
    assert {401, 404, 400} <= set(statuses), statuses
    assert any(r.header("X-Request-ID") is None for r in answered), "no gunicorn refusal"
    assert not failures, f"{len(failures)} failures of {len(sent)} requests (seed {SEED}):\n" + (
        "\n".join(failures[:25])
    )


def spellings(path: str) -> list[tuple[str, str]]:
    """``(name, target)`` for each respelling of ``path``; ``{authority}`` stands for the
    server's ``host:port``."""
    slashes = [i for i, c in enumerate(path) if c == "/"]
    out = [("canonical", path)]
    for n, i in enumerate(slashes):
        out.append((f"double slash {n}", path[:i] + "/" + path[i:]))
        for spelled in ("%2F", "%2f", "%252F"):
            out.append((f"{spelled} for slash {n}", path[:i] + spelled + path[i + 1 :]))
            out.append((f"/{spelled} at slash {n}", path[:i] + "/" + spelled + path[i + 1 :]))
        out.append((f"/./ at slash {n}", path[:i] + "/." + path[i:]))
        out.append((f"/x/../ at slash {n}", path[:i] + "/x/.." + path[i:]))
        out.append((f"/%2e/ at slash {n}", path[:i] + "/%2e" + path[i:]))
    segments = path.split("/")
    for n in range(1, len(segments)):
        upper = [*segments[:n], segments[n].upper(), *segments[n + 1 :]]
        out.append((f"upper case segment {n}", "/".join(upper)))
    out += [
        ("trailing slash", path + "/"),
        ("trailing /.", path + "/."),
        ("upper case", path.upper()),
        ("params", path + ";a=b"),
        ("query", path + "?x=1"),
        ("fragment", path + "#frag"),
        ("percent-encoded v", path.replace("/v1/", "/%761/", 1)),
        ("absolute form", "http://{authority}" + path),
        ("absolute form, double slash", "http://{authority}/" + path),
        ("absolute form, evil host", "http://evil.example" + path),
        ("absolute form, evil host, double slash", "http://evil.example/" + path),
        ("absolute form, upper-case scheme", "HTTP://{authority}" + path),
    ]
    return out


SPELLINGS: Final = [
    pytest.param(route, target, id=f"{route} {name}")
    for route in verdict_routes()
    for name, target in spellings(route)
]


@pytest.mark.parametrize(("route", "target"), SPELLINGS)
def test_verdict_path_spellings_without_key(
    keyed_server: LiveServer, key: bytes, route: str, target: str
) -> None:
    """A verdict route respelled, with a valid body and no key: a 401, or no route (404/405/400);
    never a verdict. The audit line names a verdict route only with a 401."""
    digest = hashlib.sha256(f"{route} {target}".encode()).hexdigest()[:16]
    request_id = f"spelling-{digest}-{time.monotonic_ns()}"
    body = VALID_BODIES[route]
    case = build(
        request_id,
        b"POST",
        target.replace("{authority}", _authority(keyed_server).decode()).encode("ascii"),
        [
            b"Host: " + _authority(keyed_server),
            content_type(route),
            b"Content-Length: %d" % len(body),
            b"X-Request-ID: " + request_id.encode("ascii"),
            b"Connection: close",
        ],
        body,
        key=key,
    )
    response = exchange(keyed_server.host, keyed_server.port, case.data, timeout=HANG_GUARD)
    shown = f"{response.status} {response.body[:200]!r} to {case.shown()}"
    assert response.status in (401, 404, 405, 400), shown
    if response.header("X-Request-ID") is None:  # gunicorn refused it: no audit line
        assert response.status == 400 and response.body.lstrip().startswith(b"<html>"), shown
        assert case.request_id not in audit_lines(keyed_server), shown
        return
    lines = wait_for_audit(keyed_server, {request_id}).get(request_id, [])
    assert len(lines) == 1, f"{len(lines)} audit lines for {shown}"
    record = lines[0]
    assert record["status"] == response.status, record
    if record["endpoint"] in verdict_routes():
        assert response.status == 401, record
    assert "verdict" not in record or record["verdict"] == {"code": _problem_code(response)}, record
    assert not check_answer(case, response, {request_id: lines}, []), shown


WELL_FRAMED: Final = (
    "chunked",
    "chunked, upper-case hex sizes",
    "chunked, a chunk extension",
    "Chunked",  # transfer-coding names are case-insensitive (RFC 9112, 7)
    "tab before chunked",  # a tab is optional whitespace
)
"""Framings that are valid HTTP/1.1: with the key, they must get the verdict."""
EITHER: Final = ("gzip, chunked", "Content-Length twice")
"""Framings where a verdict and a 4xx are both defensible. gunicorn de-chunks but does not decode
``gzip``: it hands the coded bytes to the app, and this body is not really gzip, so the app may
parse it. The same Content-Length twice may be taken as one (RFC 9110, 8.6); gunicorn refuses it."""
INCOMPLETE: Final = "Content-Length long"
"""The connection ends before the declared length: the message is incomplete (RFC 9112, 6.3) and
must not be judged (``http.read_json`` answers 400; gunicorn's body reader itself stops at EOF
without an error)."""


def _framing_param(name: str) -> Any:
    return pytest.param(name, id=name)


@pytest.mark.parametrize("framing", [_framing_param(name) for name in sorted(FRAMINGS)])
def test_body_framings_with_key(keyed_server: LiveServer, key: bytes, framing: str) -> None:
    """Each framing of a valid score body, with the key (so the body is read, past the key
    check): a verdict when the framing is valid, else a 4xx -- from the app (audited) or from
    gunicorn (not) --, never a 5xx or a traceback."""
    request_id = f"framing-{hashlib.sha256(framing.encode()).hexdigest()[:16]}"
    request_id += f"-{time.monotonic_ns()}"
    headers, sent = FRAMINGS[framing](VALID_BODIES["/v1/hands/score"])
    case = build(
        request_id,
        b"POST",
        b"/v1/hands/score",
        [
            b"Host: " + _authority(keyed_server),
            b"Authorization: Bearer " + key,
            b"Content-Type: application/json",
            *headers,
            b"X-Request-ID: " + request_id.encode("ascii"),
            b"Connection: close",
        ],
        sent,
        key=key,
    )
    response = exchange(keyed_server.host, keyed_server.port, case.data, timeout=HANG_GUARD)
    lines = wait_for_audit(
        keyed_server, {request_id} if response.header("X-Request-ID") is not None else set()
    )
    wrong = check_answer(case, response, lines, [])
    assert not wrong, f"{wrong}\n{response.status} {response.body[:300]!r} to {case.shown()}"
    if framing in WELL_FRAMED:
        assert response.status == 200, f"{response.body[:300]!r} to {case.shown()}"
    elif framing not in EITHER:
        assert 400 <= response.status < 500, f"{response.body[:300]!r} to {case.shown()}"
