"""The conformance corpus (docs/conformance.md): the same configuration writes the same bytes,
the shipped manifest is what this code writes (checked on a sample of chunks and on the small
files whole), every file holds what it promises, and every line is what the live app answers."""

from __future__ import annotations

import functools
import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.game.betting import ReasonCode
from quart_bezique.game.ruleset import CLASSIC, LITERAL, resolve_ruleset
from quart_bezique.vectors import (
    CHUNK_LINES,
    DEFAULT_SEED,
    FILES,
    FORMAT,
    Plan,
    corpus,
    scores,
    write_corpus,
)
from quart_bezique.vectors.answers import PATHS
from quart_bezique.vectors.digests import chunk_digest, line

from tests.cli.cli_support import run

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "vectors" / "manifest.json"
SMALL = Plan(
    hands=300,
    showdowns=60,
    legal_bets=40,
    per_reason=2,
    per_setup_error=1,
    settlements=60,
    per_refusal=1,
    records=40,
    per_record_refusal=1,
)
"""A corpus of the published form, small enough to write in a test several times."""
SEEDED = ("showdowns.jsonl", "betting.jsonl", "settlements.jsonl", "rounds.jsonl")


@functools.cache
def default_lines(name: str) -> tuple[bytes, ...]:
    """A seeded file of the published corpus (classic/1, the default seed), written once."""
    return tuple(corpus.lines(name, CLASSIC, DEFAULT_SEED))


def shipped() -> dict[str, Any]:
    value: dict[str, Any] = json.loads(SHIPPED.read_bytes())
    return value


def cases(lines: tuple[bytes, ...]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines]


def written(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_the_same_configuration_writes_the_same_bytes(tmp_path: Path) -> None:
    for ruleset, seed in ((CLASSIC, DEFAULT_SEED), (LITERAL, 7)):
        first, second = tmp_path / f"{seed}-a", tmp_path / f"{seed}-b"
        write_corpus(first, ruleset, seed, "9.9.9", SMALL)
        write_corpus(second, ruleset, seed, "9.9.9", SMALL)
        assert written(first) == written(second)
        assert sorted(written(first)) == sorted([*FILES, "manifest.json"])
        for name, data in written(first).items():
            assert data.endswith(b"\n") and b"\r" not in data, name


def test_another_seed_writes_other_cases_and_the_same_scores(tmp_path: Path) -> None:
    write_corpus(tmp_path / "a", CLASSIC, 1, "9.9.9", SMALL)
    write_corpus(tmp_path / "b", CLASSIC, 2, "9.9.9", SMALL)
    a, b = written(tmp_path / "a"), written(tmp_path / "b")
    assert a["scores.jsonl"] == b["scores.jsonl"]
    assert all(a[name] != b[name] for name in SEEDED)


def test_the_manifest_describes_the_files_it_was_written_with(tmp_path: Path) -> None:
    manifest = write_corpus(tmp_path, LITERAL, 3, "9.9.9", SMALL)
    assert json.loads((tmp_path / "manifest.json").read_bytes()) == manifest
    assert manifest["format"] == FORMAT
    assert manifest["ruleset"] == {"id": "literal/1", "sha256": LITERAL.digest}
    assert (manifest["seed"], manifest["service_version"]) == (3, "9.9.9")
    for name, entry in manifest["files"].items():
        data = (tmp_path / name).read_bytes()
        lines = data.splitlines(keepends=True)
        assert entry["lines"] == len(lines)
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
        chunks = [lines[i : i + CHUNK_LINES] for i in range(0, len(lines), CHUNK_LINES)]
        assert entry["chunks"] == [chunk_digest(chunk) for chunk in chunks]


def test_the_shipped_manifest_names_its_corpus() -> None:
    manifest = shipped()
    assert manifest["format"] == FORMAT
    assert manifest["ruleset"] == {"id": CLASSIC.id, "sha256": CLASSIC.digest}
    assert manifest["seed"] == DEFAULT_SEED
    assert manifest["chunk_lines"] == CHUNK_LINES
    assert list(manifest["files"]) == sorted(FILES)
    assert manifest["files"]["scores.jsonl"]["lines"] == 17_550 * 5


@pytest.mark.parametrize("chunk", [0, 1, 41, -1])
def test_the_shipped_chunks_of_scores_are_reproduced(chunk: int) -> None:
    entry = shipped()["files"]["scores.jsonl"]
    index = chunk % len(entry["chunks"])
    start = index * CHUNK_LINES
    lines = [line(case) for case in scores.cases(CLASSIC, start, start + CHUNK_LINES)]
    assert chunk_digest(lines) == entry["chunks"][index]


@pytest.mark.parametrize("name", SEEDED)
def test_the_shipped_seeded_files_are_reproduced_whole(name: str) -> None:
    entry = shipped()["files"][name]
    data = b"".join(default_lines(name))
    assert len(default_lines(name)) == entry["lines"]
    assert hashlib.sha256(data).hexdigest() == entry["sha256"]


def test_every_reason_code_and_setup_refusal_is_in_the_betting_file() -> None:
    found = Counter[str]()
    for case in cases(default_lines("betting.jsonl")):
        if "refusal" in case:
            found[case["refusal"]["code"] + " " + case["refusal"]["pointer"]] += 1
        elif case["answer"]["error"] is not None:
            found[case["answer"]["error"]["code"]] += 1
            found["traced"] += "trace" in case["answer"]
        else:
            found["valid " + case["answer"]["state"]["phase"]] += 1
    assert {code.value for code in ReasonCode} <= set(found)
    assert found.keys() >= {
        "DEALER_NOT_SEATED /dealer",
        "MAXIMUM_BELOW_MINIMUM /maximum_stake",
        "INVALID_AMOUNT /ante",
        "valid betting",
        "valid showdown",
        "valid uncontested",
    }
    assert found["traced"] > 0


def test_the_settlements_hold_wins_ties_odd_chips_uncontested_rounds_and_refusals() -> None:
    found = Counter[str]()
    for case in cases(default_lines("settlements.jsonl")):
        if "refusal" in case:
            found[case["refusal"]["code"]] += 1
            continue
        answer = case["answer"]
        if answer["showdown"] is None:
            found["uncontested"] += 1
        elif len(answer["winners"]) == 2:
            found["odd chip" if answer["pot"] % 2 else "even tie"] += 1
        else:
            found["won"] += 1
    assert found.keys() >= {
        "uncontested",
        "odd chip",
        "even tie",
        "won",
        "ROUND_INVALID",
        "ROUND_NOT_FINISHED",
        "HANDS_MISMATCH",
        "SHOE_EXCEEDED",
    }


def test_the_round_records_hold_claims_met_and_missed_traces_and_refusals() -> None:
    found = Counter[str]()
    for case in cases(default_lines("rounds.jsonl")):
        if "refusal" in case:
            found[case["refusal"]["error"]] += 1
            continue
        answer, request = case["answer"], case["request"]
        found["settled" if answer["settlement"] is not None else "not settled"] += 1
        found["illegal betting" if not answer["betting"]["valid"] else "legal betting"] += 1
        claim = answer["claim"]
        found["no claim" if claim is None else f"claim matches: {claim['matches']}"] += 1
        found["traced"] += request.get("trace", False) is True
        found["round id"] += answer["round_id"] == request["context"]["round_id"]
    assert found.keys() >= {
        "settled",
        "not settled",
        "illegal betting",
        "no claim",
        "claim matches: True",
        "claim matches: False",
        "UNKNOWN_FORMAT",
        "WRONG_HAND_SIZE",
        "HANDS_MISMATCH",
        "SHOE_EXCEEDED",
        "DEALER_NOT_SEATED",
    }
    assert found["traced"] > 0
    assert found["round id"] == found["settled"] + found["not settled"]


@pytest.fixture(scope="module")
def client() -> Iterator[FlaskClient]:
    with create_app(Config()).test_client() as test_client:
        yield test_client


def sample(ruleset: str, seed: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """Lines of every file, spread over it: every refusal, and every seventh answer."""
    rules = resolve_ruleset(ruleset)
    for name in FILES:
        for number, case in enumerate(corpus.FILES[name](rules, seed, SMALL)):
            if "refusal" in case or number % 7 == 0:
                yield name, json.loads(line(case))


@pytest.mark.parametrize(("ruleset", "seed"), [("classic/1", DEFAULT_SEED), ("literal/1", 5)])
def test_every_sampled_line_is_what_the_live_app_answers(
    client: FlaskClient, ruleset: str, seed: int
) -> None:
    for name, case in sample(ruleset, seed):
        response = client.post(PATHS[name], json=case["request"])
        body = response.get_json()
        if "answer" in case:
            assert (response.status_code, body) == (200, case["answer"]), case["request"]
        else:
            first = body["errors"][0]
            where = (response.status_code, body["code"], first["pointer"])
            expected = (422, case["refusal"]["code"], case["refusal"]["pointer"])
            assert where == expected, case["request"]
            assert case["refusal"].get("error", first["code"]) == first["code"]


def test_the_command_writes_the_files_and_the_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from quart_bezique.cli import vectors as command

    monkeypatch.setattr(command, "write_corpus", functools.partial(write_corpus, plan=SMALL))
    out = tmp_path / "corpus"
    result = run(capsys, "vectors", "--out", str(out), "--ruleset", "literal/1", "--seed", "4")
    assert result.code == 0, result.err
    manifest = json.loads((out / "manifest.json").read_bytes())
    assert manifest["ruleset"]["id"] == "literal/1" and manifest["seed"] == 4
    for name, entry in manifest["files"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == entry["sha256"]
        assert name in result.out and entry["sha256"] in result.out
    again = run(capsys, "vectors", "--json", "--out", str(tmp_path / "again"), "--seed", "4")
    assert again.code == 0
    assert again.json() == json.loads((tmp_path / "again" / "manifest.json").read_bytes())


def test_the_command_refuses_what_it_cannot_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = run(capsys, "--json", "vectors", "--out", str(tmp_path), "--ruleset", "classic/9")
    assert bad.code == 2
    errors = json.loads(bad.out)["errors"]
    assert [(e["code"], e["pointer"]) for e in errors] == [("UNKNOWN_RULESET", "/ruleset")]
    negative = run(capsys, "vectors", "--out", str(tmp_path), "--seed", "-1")
    assert negative.code == 2 and "INPUT_ERROR" in negative.err
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    unwritable = run(capsys, "vectors", "--out", str(blocked / "corpus"))
    assert unwritable.code == 2 and "INPUT_ERROR" in unwritable.err
    assert not list(tmp_path.glob("*.jsonl"))


@pytest.mark.slow
def test_the_command_writes_the_shipped_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The whole published corpus, written by the command: its manifest is the shipped one,
    byte for byte (regenerate ``vectors/manifest.json`` when this version's answers change)."""
    result = run(capsys, "vectors", "--out", str(tmp_path))
    assert result.code == 0, result.err
    manifest = json.loads((tmp_path / "manifest.json").read_bytes())
    expected = {**shipped(), "service_version": manifest["service_version"]}
    assert manifest == expected
