"""``quart-bezique vectors --out DIR``: write the conformance corpus (docs/conformance.md) for a
ruleset and a seed, with its manifest; ``--json`` prints the manifest."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from quart_bezique.api.config import service_version
from quart_bezique.game.messages import N_
from quart_bezique.vectors import DEFAULT_SEED, write_corpus

from . import human
from .problems import CliError
from .safe import shown
from .verdicts import Outcome, Spec, resolved


def register(verdict_command: Callable[[str, str], argparse.ArgumentParser], voice: Any) -> None:
    """The subcommand, made by ``main``'s maker of verdict commands (``--json``, ``--lang``,
    ``--ruleset``: the corpus's ruleset, named as a request names one)."""
    say = voice.say
    sub = verdict_command(
        "vectors",
        say(N_("write the conformance vectors and their manifest (docs/conformance.md)")),
    )
    sub.add_argument(
        "--out",
        required=True,
        type=Path,
        metavar="DIR",
        help=say(N_("the folder to write them into")),
    )
    sub.add_argument(
        "--seed",
        type=int,
        metavar="N",
        default=DEFAULT_SEED,
        help=say(N_("the seed of the generated cases (default {seed})"), seed=DEFAULT_SEED),
    )


def run(args: argparse.Namespace, voice: human.Voice, ruleset: Spec | None) -> Outcome:
    """Write the corpus; a folder that cannot be written is an input error, as an unreadable
    file is."""
    rules = resolved(ruleset)
    if args.seed < 0:
        raise CliError.input(
            "INPUT_ERROR", N_("--seed must be 0 or more, not {seed}").format(seed=args.seed)
        )
    try:
        manifest = write_corpus(args.out, rules, args.seed, service_version())
    except OSError as error:
        detail = N_("{path} cannot be written: {reason}").format(
            path=str(args.out), reason=error.strerror or N_("the system refused to write it")
        )
        raise CliError.input("INPUT_ERROR", detail) from None
    return Outcome(manifest, text(manifest, args.out, voice))


def text(manifest: dict[str, Any], out: Path, voice: human.Voice) -> str:
    """What was written, for people: each file with its lines and digest."""
    say = voice.say
    head = say(
        N_("{folder}: vectors of {ruleset}, seed {seed}"),
        folder=shown(str(out)),
        ruleset=manifest["ruleset"]["id"],
        seed=manifest["seed"],
    )
    rows = [(name, entry["lines"], entry["sha256"]) for name, entry in manifest["files"].items()]
    table = human.table((say(N_("file")), say(N_("lines")), "SHA-256"), rows)
    where = say(N_("their manifest: {path}"), path=shown(str(out / "manifest.json")))
    return "\n".join((head, table, where))
