"""The command line judges a body exactly as the API does: the same verdict, or the same refusal
(status, code and pointer), case by case -- a key repeated in one object, a 65-character player
id, 1,001 actions, ``trace``, a body over the size limit, and the ordinary verdicts beside them.
Each case is a request body written to a file byte for byte and posted byte for byte."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import orjson
import pytest
from flask.testing import FlaskClient
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.endpoints.betting import EXAMPLE_ROUND
from quart_bezique.cli import ExitCode

from tests.cli.cli_support import run

VALIDATE: Final = "/v1/betting/validate"
SETTLE: Final = "/v1/rounds/settle"
HANDS: Final = {"bob": ["KH", "QH", "KD", "10D"], "dan": ["QS", "JC", "QH", "JD"]}
LEGAL: Final = json.dumps(EXAMPLE_ROUND).encode()
STAKES: Final = [
    {"player": p, "type": "stake", "amount": 10} for p in ["ann", "bob", "cid", "dan"] * 251
][:1001]


def _body(**changes: Any) -> bytes:
    return json.dumps({**EXAMPLE_ROUND, **changes}).encode()


CASES: Final[list[tuple[str, str, bytes]]] = [
    ("legal", VALIDATE, LEGAL),
    ("illegal", VALIDATE, _body(actions=[{"player": "ann", "type": "stake", "amount": 5}])),
    ("trace", VALIDATE, _body(trace=True)),
    ("trace_not_boolean", VALIDATE, _body(trace=1)),
    ("repeated_key", VALIDATE, LEGAL[:-1] + b', "ante": 20}'),
    ("repeated_key_escaped", VALIDATE, LEGAL[:-1] + b', "\\u0061nte": 20}'),
    ("player_id_65", VALIDATE, _body(players=["ann", "b" * 65, "cid", "dan"])),
    ("player_id_64", VALIDATE, _body(players=["ann", "bob", "cid", "d" * 64], dealer="d" * 64)),
    ("actions_1001", VALIDATE, _body(actions=STAKES)),
    ("actions_1000", VALIDATE, _body(actions=STAKES[:1000])),
    ("unknown_field", VALIDATE, _body(extra=1)),
    ("ante_string", VALIDATE, _body(ante="10")),
    ("not_json", VALIDATE, b'{"players": [}'),
    ("nan", VALIDATE, LEGAL[:-1] + b', "ante": NaN}'),
    ("dealer_not_seated", VALIDATE, _body(dealer="eve")),
    ("too_large", VALIDATE, LEGAL[:-1] + b"," + b" " * (1024 * 1024) + b"}"),
    ("settled", SETTLE, _body(trump="H", hands=HANDS)),
    ("settle_trace", SETTLE, _body(trump="H", hands=HANDS, trace=True)),
    ("settle_repeated_cards", SETTLE, _body(trump="H", hands=HANDS)[:-2] + b', "bob": []}}'),
    ("settle_unfinished", SETTLE, _body(actions=EXAMPLE_ROUND["actions"][:2])),
]
"""(name, endpoint, exact body bytes)."""


@pytest.fixture(scope="module")
def api() -> Iterator[FlaskClient]:
    with create_app(Config(audit_log=False)).test_client() as client:
        yield client


def _verdict(status: int, document: Any) -> tuple[Any, ...]:
    """What must agree: the status, and the answer (a verdict) or the refusal's code and first
    pointer (a problem)."""
    if status == 200:
        return (status, document)
    errors = document.get("errors") or [{}]
    return (status, document["code"], document["type"], errors[0].get("pointer"))


@pytest.mark.parametrize(("endpoint", "data"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_cli_and_the_api_give_the_same_verdict(
    api: FlaskClient,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    endpoint: str,
    data: bytes,
) -> None:
    answer = api.post(endpoint, data=data, content_type="application/json")
    path = tmp_path / "body.json"
    path.write_bytes(data)
    command = "validate" if endpoint == VALIDATE else "settle"
    result = run(capsys, "--json", command, str(path))
    document = orjson.loads(result.out)
    if answer.status_code == 200:
        assert result.code in (ExitCode.OK, ExitCode.REFUSED)
        assert result.out.encode() == answer.data + b"\n"  # the very bytes
        status = 200
    else:
        assert result.code == ExitCode.INPUT_ERROR
        status = document["status"]
    assert _verdict(status, document) == _verdict(answer.status_code, answer.get_json())


def test_the_table_covers_the_differences_the_review_found() -> None:
    """The cases the command line used to judge otherwise are in the table."""
    names = {c[0] for c in CASES}
    assert {"repeated_key", "player_id_65", "actions_1001", "trace"} <= names


def test_a_repeated_key_is_named_on_the_terminal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "round.json"
    path.write_bytes(LEGAL[:-1] + b', "ante": 20}')
    result = run(capsys, "validate", str(path))
    assert result.code == ExitCode.INPUT_ERROR and result.out == ""
    assert "error MALFORMED_JSON: " in result.err and 'repeats the key "ante"' in result.err


def test_trace_is_answered(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "round.json"
    path.write_bytes(_body(trace=True))
    result = run(capsys, "--json", "validate", str(path))
    assert result.code == ExitCode.OK
    answer = result.json()
    assert isinstance(answer, dict)
    assert len(answer["trace"]) == len(EXAMPLE_ROUND["actions"])
