"""The adjudicating commands: the API's very answer bytes with ``--json``, a table otherwise, and
exit codes a script can branch on."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from quart_bezique import score_hand
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.api.endpoints.betting import EXAMPLE_ROUND
from quart_bezique.cli import ExitCode

from tests.cli.cli_support import run

ROUND: dict[str, Any] = EXAMPLE_ROUND
SETTLE = {
    **ROUND,
    "trump": "H",
    "hands": {"bob": ["KH", "QH", "KD", "10D"], "dan": ["QS", "JC", "QH", "JD"]},
}
ILLEGAL = {**ROUND, "actions": [{"player": "ann", "type": "stake", "amount": 5}]}


@pytest.fixture(scope="module")
def api() -> Iterator[FlaskClient]:
    with create_app(Config(audit_log=False)).test_client() as client:
        yield client


def _file(tmp_path: Path, body: object) -> str:
    path = tmp_path / "round.json"
    path.write_text(json.dumps(body))
    return str(path)


def _same_as_api(api: FlaskClient, endpoint: str, body: object, out: str) -> None:
    answer = api.post(endpoint, json=body)
    assert out.encode() == answer.data + b"\n"


def test_score_json_is_the_api_answer(api: FlaskClient, capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "score", "ks", "Q♠", "JS,JC", "--trump", "♠", "--json")
    assert result.code == ExitCode.OK
    _same_as_api(
        api, "/v1/hands/score", {"cards": ["ks", "Q♠", "JS", "JC"], "trump": "♠"}, result.out
    )
    assert result.json()["score"] == 16  # type: ignore[index]


def test_score_table(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "score", "KS", "QS", "JS", "JC", "--trump", "S")
    assert result.code == ExitCode.OK
    lines = result.out.splitlines()
    assert lines[0] == "K♠ Q♠ J♠ J♣; trump: spades ♠; 16 points (rules classic/1)"
    assert lines[-1].split() == ["total", "16"]
    assert any(line.split()[:1] == ["coronka"] for line in lines)


def test_global_json_flag_before_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "--json", "score", "KS,QS,JS,JC")
    assert result.json()["score"] == score_hand(["KS", "QS", "JS", "JC"]).score  # type: ignore[index]


def test_compare_json_is_the_api_answer(
    api: FlaskClient, capsys: pytest.CaptureFixture[str]
) -> None:
    result = run(
        capsys,
        "--json",
        "compare",
        "KH,QH,KD,10D",
        "QS,JC,KD,JD",
        "--players",
        "bob",
        "dan",
        "--trump",
        "H",
    )
    body = {
        "trump": "H",
        "hands": [
            {"player": "bob", "cards": ["KH", "QH", "KD", "10D"]},
            {"player": "dan", "cards": ["QS", "JC", "KD", "JD"]},
        ],
    }
    _same_as_api(api, "/v1/showdown", body, result.out)
    assert result.json()["winner"] == "bob"  # type: ignore[index]


def test_validate_legal_and_illegal(
    api: FlaskClient, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    legal = run(capsys, "--json", "validate", _file(tmp_path, ROUND))
    assert legal.code == ExitCode.OK
    _same_as_api(api, "/v1/betting/validate", ROUND, legal.out)
    illegal = run(capsys, "--json", "validate", _file(tmp_path, ILLEGAL))
    assert illegal.code == ExitCode.REFUSED
    _same_as_api(api, "/v1/betting/validate", ILLEGAL, illegal.out)
    table = run(capsys, "validate", _file(tmp_path, ILLEGAL))
    assert table.code == ExitCode.REFUSED
    assert table.out.startswith(
        "the betting is invalid at action 1: the first stake must be at least the minimum stake"
    )


def test_settle(api: FlaskClient, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    result = run(capsys, "--json", "settle", _file(tmp_path, SETTLE))
    assert result.code == ExitCode.OK
    _same_as_api(api, "/v1/rounds/settle", SETTLE, result.out)
    table = run(capsys, "settle", _file(tmp_path, SETTLE))
    assert "paid to bob" in table.out.splitlines()[0]


@pytest.mark.parametrize(
    ("argv", "body"),
    [
        (
            ["KS", "QS", "JS", "JC", "--trump", "S"],
            {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"},
        ),
        (
            ["KH", "QH", "KD", "10D", "--seen", "QS,JC", "QH", "JD", "--opponents", "2"],
            {"cards": ["KH", "QH", "KD", "10D"], "seen": ["QS", "JC", "QH", "JD"], "opponents": 2},
        ),
        (
            ["9S", "9C", "9H", "9D", "--opponents", "3", "--samples", "500", "--seed", "7"],
            {"cards": ["9S", "9C", "9H", "9D"], "opponents": 3, "samples": 500, "seed": 7},
        ),
    ],
)
def test_odds_json_is_the_api_answer(
    api: FlaskClient, capsys: pytest.CaptureFixture[str], argv: list[str], body: object
) -> None:
    result = run(capsys, "--json", "odds", *argv)
    assert result.code == ExitCode.OK
    _same_as_api(api, "/v1/hands/odds", body, result.out)


# ------------------------------------------------------------------------------ refusals


@pytest.mark.parametrize(
    ("argv", "endpoint", "body"),
    [
        (["score", "KS", "QS", "JS"], "/v1/hands/score", {"cards": ["KS", "QS", "JS"]}),
        (
            ["compare", "KS,KS,KS,KS", "KS,KS,KS,QS"],
            "/v1/showdown",
            {
                "hands": [
                    {"player": "first", "cards": ["KS"] * 4},
                    {"player": "second", "cards": ["KS", "KS", "KS", "QS"]},
                ]
            },
        ),
        (
            ["odds", "KS", "QS", "JS", "JC", "--opponents", "4"],
            "/v1/hands/odds",
            {"cards": ["KS", "QS", "JS", "JC"], "opponents": 4},
        ),
        (
            ["odds", "KS", "KS", "KS", "KS", "--seen", "KS,KS,KS"],
            "/v1/hands/odds",
            {"cards": ["KS"] * 4, "seen": ["KS"] * 3},
        ),
    ],
)
def test_rules_refusals_carry_the_api_code(
    api: FlaskClient,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    endpoint: str,
    body: object,
) -> None:
    result = run(capsys, "--json", *argv)
    assert result.code == ExitCode.INPUT_ERROR
    problem = result.json()
    assert isinstance(problem, dict) and problem["status"] == 422
    assert problem == api.post(endpoint, json=body).get_json()  # the schema's refusals too


def test_settle_refusal(
    api: FlaskClient, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    unfinished = {**ROUND, "actions": ROUND["actions"][:2]}
    result = run(capsys, "--json", "settle", _file(tmp_path, unfinished))
    assert result.code == ExitCode.INPUT_ERROR
    assert result.json() == api.post("/v1/rounds/settle", json=unfinished).get_json()
    human = run(capsys, "settle", _file(tmp_path, unfinished))
    assert human.out == "" and "ROUND_NOT_FINISHED" in human.err


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        ([], ""),
        ({**ROUND, "extra": 1}, "/extra"),
        ({"players": ["a", "b"], "dealer": "b"}, "/ante"),
    ],
)
def test_shape_refusals(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, body: object, pointer: str
) -> None:
    result = run(capsys, "--json", "validate", _file(tmp_path, body))
    assert result.code == ExitCode.INPUT_ERROR
    problem = result.json()
    assert isinstance(problem, dict) and problem["code"] == "VALIDATION_ERROR"
    assert problem["errors"][0]["pointer"] == pointer


def test_unreadable_and_malformed_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = run(capsys, "validate", str(tmp_path / "absent.json"))
    assert missing.code == ExitCode.INPUT_ERROR and "INPUT_ERROR" in missing.err
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    malformed = run(capsys, "--json", "validate", str(bad))
    assert malformed.code == ExitCode.INPUT_ERROR
    assert malformed.json()["code"] == "MALFORMED_JSON"  # type: ignore[index]


@pytest.mark.parametrize("argv", [[], ["score"], ["nonsense"], ["odds", "KS", "--opponents", "x"]])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert run(capsys, *argv).code == ExitCode.INPUT_ERROR


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "--help")
    assert result.code == ExitCode.OK and "build-digest" in result.out


def test_python_dash_m_quart_bezique_exits_with_the_verdict(tmp_path: Path) -> None:
    illegal = _file(tmp_path, ILLEGAL)
    done = subprocess.run(
        [sys.executable, "-m", "quart_bezique", "--json", "validate", illegal],
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == ExitCode.REFUSED
    assert json.loads(done.stdout)["error"]["code"] == "STAKE_BELOW_MINIMUM"


# --- one language at a time ------------------------------------------------------------------

LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
ALLOWED_LATIN = {"classic", "ann", "bob", "cid", "dan", "first", "second"}
"""The ruleset's id and the player ids the client chose: names, shown as written."""


@pytest.mark.parametrize("language", ["ru", "uk"])
@pytest.mark.parametrize(
    "argv",
    [
        ["score", "KS", "QS", "JS", "JC", "--trump", "S"],
        ["compare", "KS,QS,JS,JC", "AH,AD,AS,9C"],
        ["odds", "KS", "QS", "JS", "JC", "--samples", "50", "--seen", "AS"],
        ["score", "KS", "QS", "JS"],
        ["score", "Т♠", "QS", "JS", "JC"],
        ["score", "KS", "QS", "JS", "JC", "--trump", "T"],
    ],
)
def test_lang_prints_every_word_in_that_language(
    capsys: pytest.CaptureFixture[str], language: str, argv: list[str]
) -> None:
    """``--lang``: the table, the verdict and any refusal say nothing in English; cards are
    written with Russian letters (К♠ Д♠ В♠ Т♥)."""
    result = run(capsys, "--lang", language, *argv)
    text = result.out + result.err
    assert text.strip()
    bare = re.sub(r"(?<![\w])/[\w/]*", "", text.replace("quart-bezique", ""))  # pointers: data
    words = set(LATIN_WORD.findall(bare))
    # Card codes the user typed are quoted back as written; error codes are for scripts.
    words -= {w for w in words if w.isupper()}
    assert words <= ALLOWED_LATIN, (words, text)
    assert re.search("[а-яіїєґ]", text, re.IGNORECASE)


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_lang_gives_the_betting_verdict_and_its_json_in_that_language(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, language: str, api: FlaskClient
) -> None:
    body = {**EXAMPLE_ROUND, "actions": [{"player": "bob", "type": "stake", "amount": 20}]}
    path = _file(tmp_path, body)
    table = run(capsys, "--lang", language, "validate", path)
    assert table.code == ExitCode.REFUSED
    assert "bob" in table.out and "ann" in table.out and "turn" not in table.out
    asked = run(capsys, "--json", "--lang", language, "validate", path)
    answer = api.post("/v1/betting/validate", json=body, headers={"Accept-Language": language})
    assert asked.out.encode() == answer.get_data() + b"\n"


def test_lang_defaults_to_english(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        run(capsys, "score", "KS", "QS", "JS").err
        == run(capsys, "--lang", "en", "score", "KS", "QS", "JS").err
    )


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_every_card_the_table_prints_is_read_back(
    capsys: pytest.CaptureFixture[str], language: str
) -> None:
    """The aces a Russian or Ukrainian table prints (``Т♠``) are accepted as typed, by that
    language only: in English a Cyrillic Т before a suit stays the wire's look-alike refusal."""
    printed = run(capsys, "--lang", language, "score", "AS", "AH", "10D", "9C")
    shown = printed.out.splitlines()[0].split(";")[0].split()
    assert shown == ["Т♠", "Т♥", "10♦", "9♣"]
    again = run(capsys, "--lang", language, "--json", "score", *shown)
    assert again.code == ExitCode.OK
    assert again.json()["cards"] == ["AS", "AH", "10D", "9C"]  # type: ignore[index]
    refused = run(capsys, "--json", "score", *shown)
    assert refused.code == ExitCode.INPUT_ERROR
