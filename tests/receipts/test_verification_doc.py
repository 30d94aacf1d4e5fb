"""docs/verification.md's code runs: each Python snippet verifies a genuine receipt and refuses a
changed response; the command-line example is the command's real output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from quart_bezique.cli import main
from quart_bezique.receipts import Keyring, Signer, request_digest

DOC = Path(__file__).resolve().parents[2] / "docs" / "verification.md"
REQUEST = b'{"cards": ["KS", "QS", "JS", "JC"], "trump": "S"}'
RESPONSE = b'{"cards":["KS","QS","JS","JC"],"trump":"S","score":16,"ruleset":"classic/1"}'


def _blocks(language: str) -> list[str]:
    """The fenced blocks opened with ```language (indented ones included), in order."""
    blocks: list[str] = []
    current: list[str] | None = None
    opened = ""
    for line in DOC.read_text(encoding="utf-8").splitlines():
        fence = line.strip()
        if current is None and fence.startswith("```"):
            current, opened = [], fence[3:]
        elif current is not None and fence == "```":
            if opened == language:
                blocks.append("\n".join(current) + "\n")
            current = None
        elif current is not None:
            current.append(line)
    return blocks


PYTHON = _blocks("python")


def _names(signer: Signer, keyring: Keyring, response: bytes) -> dict[str, Any]:
    endpoint = "/v1/hands/score"
    receipt = signer.sign(endpoint, request_digest(endpoint, REQUEST), RESPONSE)
    return {
        "receipt": receipt,
        "request_body": REQUEST,
        "response_body": response,
        "jwks": keyring.jwks(),
    }


def test_there_are_snippets() -> None:
    assert len(PYTHON) == 3


@pytest.mark.parametrize("snippet", PYTHON)
def test_snippet_verifies_a_genuine_receipt(snippet: str, signer: Signer, keyring: Keyring) -> None:
    exec(snippet, _names(signer, keyring, RESPONSE))


@pytest.mark.parametrize("snippet", PYTHON)
def test_snippet_refuses_a_changed_response(snippet: str, signer: Signer, keyring: Keyring) -> None:
    with pytest.raises((AssertionError, InvalidSignature)):
        exec(snippet, _names(signer, keyring, RESPONSE.replace(b"16", b"17")))


def test_score_example_is_real_output(capsys: pytest.CaptureFixture[str]) -> None:
    (example,) = [b for b in _blocks("") if b.startswith("$ quart-bezique score")]
    command, *expected = example.splitlines()
    assert main(command.split()[2:]) == 0
    assert capsys.readouterr().out.splitlines() == expected
