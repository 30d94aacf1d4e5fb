"""``quart-bezique``: adjudicate from the command line, check receipts and build digests.

Exit codes (``ExitCode``): 0 a verdict (valid sequence, receipt verified, digest as expected);
1 a verdict of "invalid" (illegal betting sequence, receipt refused, digest differs); 2 no
verdict (bad usage, unreadable input, or input the rules refuse -- the API's 4xx -- with the
API's error code). Input is judged by the API's own contract (``contract.py``). ``--json`` prints
the HTTP API's answer (or problem document) on stdout; otherwise a short table, and errors on
stderr, with every control character of the input shown escaped (``safe.py``). A verdict command's
``--ruleset`` is the body's ``ruleset`` member (docs/rules.md §13), so it is judged, named and
refused as the API judges, names and refuses it; ``rulesets`` lists what it may name.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gettext
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

import orjson

from quart_bezique.api.contract.i18n.language import ENGLISH, LANGUAGES
from quart_bezique.api.contract.i18n.translations import LOCALE_DIR, localize, translations
from quart_bezique.game.messages import N_
from quart_bezique.game.odds import DEFAULT_SAMPLES, DEFAULT_SEED

from . import adjudicate, checks, human, reconcile, vectors, verdicts
from .problems import CliError, ExitCode
from .safe import shown_lines
from .verdicts import Outcome

PROG: Final = "quart-bezique"
ARGPARSE_DOMAIN: Final = "argparse"
"""The catalog of argparse's own messages (``make catalogs`` extracts them from this Python's
argparse)."""
MAX_INPUT_BYTES: Final = 64 * 1024 * 1024


_ACE_BY_SYMBOL: Final = {symbol: "A" + suit for symbol, suit in zip("♠♣♥♦", "SCHD", strict=True)}
"""What the Russian and Ukrainian tables print for an ace (``Т♠``), read back as its code."""


def _cards(values: Sequence[str], language: str = ENGLISH) -> list[str]:
    """Cards as separate arguments or comma-separated (``KS QS`` or ``KS,QS``). In Russian and
    Ukrainian a Cyrillic Т before a suit symbol is the ace, as those tables print it (the page's
    rule, docs/rules.md §2); on the wire it stays refused, as a look-alike of the Latin T."""
    parts = [part for value in values for part in value.split(",") if part]
    if language == ENGLISH:
        return parts
    return [
        _ACE_BY_SYMBOL[part[1]] if len(part) == 2 and part[0] in "Тт" and part[1] in _ACE_BY_SYMBOL
        else part
        for part in parts
    ]  # fmt: skip


def _read(path: str) -> bytes:
    try:
        if path == "-":
            return sys.stdin.buffer.read(MAX_INPUT_BYTES)
        with open(path, "rb") as file:
            return file.read(MAX_INPUT_BYTES)
    except OSError as error:
        reason = _OS_REASONS.get(error.errno or 0, N_("the system refused to read it"))
        detail = N_("{path} cannot be read: {reason}").format(path=path, reason=reason)
        raise CliError.input("INPUT_ERROR", detail) from None


_OS_REASONS: Final = {
    errno.ENOENT: N_("there is no such file"),
    errno.EACCES: N_("permission denied"),
    errno.EISDIR: N_("it is a folder, not a file"),
}


def _json_file(path: str) -> Any:
    """A JSON file that is not a request body (a record, a JWKS), read as strictly as the service
    reads a body: a key repeated in one object is refused, never resolved."""
    return verdicts.contract().parse_json_input(_read(path), path)


def _body_file(path: str) -> Any:
    """A request body, read as the service reads it (its size limit too)."""
    return verdicts.read_body(_read(path), path)


def _parser(voice: human.Voice) -> argparse.ArgumentParser:
    """The command line, every help text in ``voice``'s language (argparse's own words come from
    its catalog while the parser runs: ``parsing_in``)."""
    say = voice.say
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=say(
            N_(
                "Quart-Bezique adjudication (docs/rules.md), receipts and build digests "
                "(docs/verification.md)."
            )
        ),
        epilog=say(
            N_(
                "exit codes: 0 a verdict (valid), 1 invalid (an illegal sequence, a receipt "
                "refused, a digest that differs), 2 a usage or input error (the rules' error "
                "code is printed)"
            )
        ),
    )
    as_json = say(N_("print the API's JSON answer"))
    parser.add_argument("--json", action="store_true", help=as_json)
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=ENGLISH,
        help=say(
            N_(
                "the language of what is printed for people, and of --json's messages (en, ru "
                "or uk; default en)"
            )
        ),
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help)
        sub.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=as_json)
        sub.add_argument(
            "--lang", choices=LANGUAGES, default=argparse.SUPPRESS, help=say(N_("en, ru or uk"))
        )
        return sub

    trump = say(N_("the trump suit (S C H D, П Т К Ч Б or a symbol)"))
    ruleset = say(
        N_(
            "the ruleset to judge by (docs/rules.md §13): a preset (classic/1, literal/1), a "
            "ruleset id (classic/1:tie=carry) or a JSON object ({example}); it becomes the "
            "body's ruleset member (in place of one a body file has); without it, classic/1"
        ),
        example='\'{"base": "literal/1", "tie": "split"}\'',
    )

    def verdict(name: str, help: str) -> argparse.ArgumentParser:
        sub = command(name, help)
        sub.add_argument("--ruleset", metavar="SPEC", help=ruleset)
        return sub

    score = verdict("score", say(N_("score one hand (POST /v1/hands/score)")))
    score.add_argument("cards", nargs="+", help=say(N_("four cards: KS QS JS JC or KS,QS,JS,JC")))
    score.add_argument("--trump", help=trump)

    compare = verdict("compare", say(N_("compare two hands (POST /v1/showdown)")))
    compare.add_argument("first", help=say(N_("the first hand, e.g. KS,QS,JS,JC")))
    compare.add_argument("second", help=say(N_("the second hand")))
    compare.add_argument("--trump", help=trump)
    compare.add_argument(
        "--players",
        nargs=2,
        default=("first", "second"),
        metavar=("FIRST", "SECOND"),
        help=say(N_("the two players' names")),
    )

    for name, words in (
        ("validate", N_("judge a round's betting (the body of POST /v1/betting/validate)")),
        ("settle", N_("settle a round (the body of POST /v1/rounds/settle)")),
    ):
        sub = verdict(name, say(words))
        sub.add_argument("round", help=say(N_("a JSON file, or - for the standard input")))

    odds = verdict("odds", say(N_("showdown odds of a hand (POST /v1/hands/odds)")))
    odds.add_argument("cards", nargs="+", help=say(N_("the hand's four cards")))
    odds.add_argument("--trump", help=trump)
    odds.add_argument(
        "--seen", nargs="*", default=[], help=say(N_("cards known to be out of the shoe"))
    )
    odds.add_argument("--opponents", type=int, default=1, help=say(N_("opponents (1 to 3)")))
    odds.add_argument(
        "--samples", type=int, default=DEFAULT_SAMPLES, help=say(N_("random deals to sample"))
    )
    odds.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=say(N_("the random generator's seed"))
    )

    adjudicate.register(verdict, voice)
    vectors.register(verdict, voice)
    reconcile.register(verdict, voice)

    verify = command("verify", say(N_("check a stored exchange against its Verdict-Receipt")))
    verify.add_argument(
        "record", help=say(N_("a JSON record: endpoint, request, response, receipt"))
    )
    verify.add_argument(
        "--jwks", required=True, help=say(N_("the service's published JWKS (JSON)"))
    )
    verify.add_argument(
        "--ruleset",
        metavar="SPEC",
        help=say(
            N_(
                "refuse receipts of another ruleset: a preset, a ruleset id or a JSON object, "
                "compared by its canonical id"
            )
        ),
    )
    verify.add_argument("--build", help=say(N_("refuse receipts of another build digest")))

    build = command(
        "build-digest",
        say(
            N_(
                "the build digest of this installation or of a tree: every file that can run "
                "(sources, bytecode, gunicorn.conf.py, the dependencies' files) and the Python "
                "version and implementation"
            )
        ),
    )
    build.add_argument(
        "--root",
        type=Path,
        help=say(N_("a site-packages holding the package and *.dist-info, in its venv")),
    )
    build.add_argument(
        "--manifest", action="store_true", help=say(N_("print the canonical manifest"))
    )
    build.add_argument("--expect", help=say(N_("exit 1 unless the digest is this one")))

    command(
        "rulesets",
        say(
            N_(
                "the presets and switches a --ruleset may name (GET /v1/rulesets; "
                "docs/rules.md §13)"
            )
        ),
    )
    command(
        "jwks",
        say(N_("the JWKS of the signing keys the environment configures (SIGNING_KEY_FILE...)")),
    )
    return parser


def _language(argv: Sequence[str]) -> str:
    """The ``--lang`` of ``argv``, read before the parser is built in that language (a value
    argparse would refuse falls back to English, and argparse then says why)."""
    for i, arg in enumerate(argv):
        value = arg[len("--lang=") :] if arg.startswith("--lang=") else None
        if arg == "--lang" and i + 1 < len(argv):
            value = argv[i + 1]
        if value in LANGUAGES:
            return value
    return ENGLISH


@contextlib.contextmanager
def parsing_in(language: str) -> Iterator[None]:
    """argparse's own words ("usage:", "the following arguments are required: ...") in
    ``language`` while the parser runs: argparse takes them from gettext's current domain (the
    Python documentation's "How to translate the argparse output"), here our ``argparse``
    catalog, in the language named by ``LANGUAGE``. Both are put back afterwards."""
    if language == ENGLISH:
        yield
        return
    domain = gettext.textdomain()
    wanted = os.environ.get("LANGUAGE")
    gettext.bindtextdomain(ARGPARSE_DOMAIN, str(LOCALE_DIR))
    gettext.textdomain(ARGPARSE_DOMAIN)
    os.environ["LANGUAGE"] = language
    try:
        yield
    finally:
        gettext.textdomain(domain)
        if wanted is None:
            os.environ.pop("LANGUAGE", None)
        else:
            os.environ["LANGUAGE"] = wanted


def _voice(language: str) -> human.Voice:
    """``language``'s catalog, and whether its tables write cards with Russian letters."""
    return human.Voice(translations(language), language != ENGLISH)


def _run(args: argparse.Namespace, voice: human.Voice) -> Outcome | bytes:
    given = getattr(args, "ruleset", None)
    ruleset = None if given is None else verdicts.ruleset_spec(given)
    match args.command:
        case "score":
            return verdicts.score(_cards(args.cards, args.lang), args.trump, voice, ruleset)
        case "compare":
            players = tuple(args.players)
            return verdicts.compare(
                _cards([args.first], args.lang),
                _cards([args.second], args.lang),
                args.trump,
                players,
                voice,
                ruleset,
            )
        case "validate":
            return verdicts.validate(_body_file(args.round), voice, ruleset)
        case "settle":
            return verdicts.settle(_body_file(args.round), voice, ruleset)
        case "adjudicate":
            return adjudicate.run(_body_file(args.record), voice, ruleset, args.trace)
        case "vectors":
            return vectors.run(args, voice, ruleset)
        case "reconcile":
            return reconcile.run(args, voice, ruleset)
        case "odds":
            return verdicts.odds(
                _cards(args.cards, args.lang),
                args.trump,
                _cards(args.seen, args.lang),
                args.opponents,
                args.samples,
                args.seed,
                voice,
                ruleset,
            )
        case "verify":
            return checks.verify(
                _json_file(args.record),
                _json_file(args.jwks),
                ruleset=None if ruleset is None else verdicts.resolved(ruleset).id,
                build=args.build,
            )
        case "rulesets":
            return verdicts.rulesets(voice)
        case "build-digest":
            if args.manifest:
                return checks.manifest_bytes(args.root)
            return checks.build_digest(args.root, expect=args.expect)
        case "jwks":
            return checks.jwks()
    raise AssertionError(args.command)  # pragma: no cover - argparse allows no other


def _write(data: bytes) -> None:
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the return value is the exit status (``ExitCode``)."""
    words = sys.argv[1:] if argv is None else argv
    language = _language(words)
    voice = _voice(language)
    try:
        with parsing_in(language):
            args = _parser(voice).parse_args(words)
    except SystemExit as exit:  # argparse: --help (0) or a usage error (2)
        return exit.code if isinstance(exit.code, int) else ExitCode.INPUT_ERROR
    try:
        outcome = _run(args, voice if args.lang == language else _voice(args.lang))
    except CliError as error:
        if args.json:
            _write(orjson.dumps(error.document_in(args.lang)) + b"\n")
        else:
            print(f"{PROG}: {error.human(args.lang)}", file=sys.stderr)  # escaped (safe.py)
        return ExitCode.INPUT_ERROR
    if isinstance(outcome, bytes):  # the manifest: exactly the digested bytes, no newline
        _write(outcome)
        return ExitCode.OK
    if args.json:  # the API's bytes, as orjson escapes them (its Accept-Language: --lang)
        _write(orjson.dumps(localize(outcome.payload, args.lang)[0]) + b"\n")
    else:  # every untrusted value was escaped where it was put in; this is the last guard
        _write((shown_lines(outcome.text) + "\n").encode())
    return outcome.exit
