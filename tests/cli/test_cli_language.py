"""The command line in one language: argparse's own words (usage, help, usage errors) come from
the ``argparse`` catalog, every help text from the service's catalog, and nothing of it leaks into
the next command or into the process's gettext state."""

from __future__ import annotations

import argparse
import gettext
import os
import re

import pytest
from babel.messages.extract import extract_from_file
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from quart_bezique.api.contract.i18n.translations import LOCALE_DIR
from quart_bezique.cli.main import ARGPARSE_DOMAIN, parsing_in

from tests.cli.cli_support import run

TRANSLATED = ("ru", "uk")
PERCENT = re.compile(r"%(?:\([a-z_]+\))?[sr]")
OPTION_WORDS = {
    "adjudicate", "vectors", "reconcile", "conformance", "Lines",
    "quart", "bezique", "COMMAND", "json", "lang", "en", "ru", "uk", "score", "compare",
    "validate", "settle", "odds", "verify", "build", "digest", "jwks", "trump", "TRUMP", "cards",
    "first", "second", "FIRST", "SECOND", "players", "round", "seen", "SEEN", "opponents",
    "OPPONENTS", "samples", "SAMPLES", "seed", "SEED", "record", "RULESET", "ruleset", "BUILD",
    "root", "ROOT", "manifest", "expect", "EXPECT", "JWKS", "help", "POST", "docs", "rules", "md",
    "verification", "hands", "showdown", "betting", "rounds", "JSON", "API", "KS", "QS", "JS",
    "JC", "Verdict", "Receipt", "endpoint", "request", "response", "receipt", "gunicorn", "conf",
    "py", "site", "packages", "dist", "info", "venv", "SIGNING_KEY_FILE", "Python", "int",
    "stdin", "bogus", "SPEC", "rulesets", "GET", "classic", "literal", "base", "tie", "split",
    "carry",
}  # fmt: skip
"""What a translated help or error may keep in Latin letters: the program's, commands' and
options' names and metavars (typed as they are), paths, formats and card codes."""


def _catalog(language: str, suffix: str) -> str:
    return str(LOCALE_DIR / language / "LC_MESSAGES" / f"{ARGPARSE_DOMAIN}{suffix}")


def _ids(message: object) -> tuple[str, ...]:
    found = getattr(message, "id", "")
    return (found,) if isinstance(found, str) else tuple(found)


def _strings(message: object) -> tuple[str, ...]:
    found = getattr(message, "string", "")
    return (found,) if isinstance(found, str) else tuple(found)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_of_this_pythons_argparse_is_translated(language: str) -> None:
    """``make catalogs`` extracts them from the running Python's argparse; a Python whose
    argparse says something new fails here until it is translated."""
    wanted = {
        message if isinstance(message, str) else message[0]
        for _, message, _, _ in extract_from_file("python", argparse.__file__)
    }
    with open(_catalog(language, ".po"), "rb") as file:
        catalog = [m for m in read_po(file, locale=language) if m.id]
    assert wanted <= {_ids(m)[0] for m in catalog}
    for message in catalog:
        assert all(_strings(message)), message.id
        for text in _strings(message):
            assert sorted(PERCENT.findall(text)) == sorted(PERCENT.findall(_ids(message)[0]))


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_shipped_argparse_mo_is_the_compiled_po(language: str) -> None:
    with open(_catalog(language, ".po"), "rb") as file:
        po = {(_ids(m), _strings(m)) for m in read_po(file, locale=language) if m.id}
    with open(_catalog(language, ".mo"), "rb") as file:
        mo = {(_ids(m), _strings(m)) for m in read_mo(file) if m.id}
    assert mo == po


def _latin_words(text: str) -> set[str]:
    bare = re.sub(r"(?<![\w])[-/][\w/.*-]*", "", text)  # options, paths
    return set(re.findall(r"[A-Za-z][A-Za-z_]+", bare)) - OPTION_WORDS


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["score", "--help"],
        ["odds", "--help"],
        ["build-digest", "--help"],
        ["score"],
        ["bogus"],
        ["odds", "KS", "--opponents", "x"],
        ["score", "KS", "--nope"],
    ],
)
def test_help_and_usage_errors_speak_the_chosen_language(
    capsys: pytest.CaptureFixture[str], language: str, argv: list[str]
) -> None:
    result = run(capsys, "--lang", language, *argv)
    text = result.out + result.err
    assert re.search("[а-яіїєґ]", text, re.IGNORECASE), text
    assert _latin_words(text) == set(), text
    english = run(capsys, *argv)
    assert english.code == result.code
    assert "usage:" in english.out + english.err


def test_lang_after_the_command_is_honoured_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert "использование:" in run(capsys, "score", "--lang", "ru").err
    assert "usage:" in run(capsys, "score", "--lang", "de").err  # refused: argparse says so


def test_parsing_in_a_language_leaves_the_process_as_it_was() -> None:
    domain = gettext.textdomain()
    before = os.environ.get("LANGUAGE")
    with parsing_in("uk"):
        assert gettext.gettext("usage: ") == "використання: "
    assert gettext.textdomain() == domain
    assert os.environ.get("LANGUAGE") == before
    assert gettext.gettext("usage: ") == "usage: "
