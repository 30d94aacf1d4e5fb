"""``quart-bezique reconcile ARCHIVE``: a platform's history of rounds (JSON Lines of round
records, any size) judged against the reference on every core, every disagreement and every
unreadable line written to a report as it goes (docs/reconcile.md).

Standard output gets the summary (``summary.txt``; ``--json``: the report's summary line),
standard error the progress. Exit 0 when every record read matches its claim, 1 when any
disagrees or cannot be read, 2 for a usage error (the input or the folder unusable, a bad
``--shard``, ``--workers`` or ``--ruleset``): then nothing was judged.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, Final

from quart_bezique.game.messages import N_

from . import human
from .problems import CliError, ExitCode
from .verdicts import Outcome, Spec, resolved

DEFAULT_OUT: Final = Path("reconcile-report")
_SHARD: Final = re.compile(r"(\d+)/(\d+)")


def register(verdict_command: Callable[[str, str], argparse.ArgumentParser], voice: Any) -> None:
    """The subcommand, made by ``main``'s maker of verdict commands (``--json``, ``--lang``,
    ``--ruleset``: judge every record by this ruleset instead of its own)."""
    say = voice.say
    sub = verdict_command(
        "reconcile",
        say(
            N_(
                "judge an archive of round records (JSON Lines) against the reference and "
                "report every disagreement (docs/reconcile.md)"
            )
        ),
    )
    sub.add_argument(
        "archive", help=say(N_("the archive, one round record a line, or - for the standard input"))
    )
    sub.add_argument(
        "--out",
        type=Path,
        metavar="REPORT_DIR",
        default=DEFAULT_OUT,
        help=say(
            N_("the folder of report.jsonl and summary.txt (default {folder})"),
            folder=str(DEFAULT_OUT),
        ),
    )
    sub.add_argument(
        "--workers",
        type=int,
        metavar="N",
        default=None,
        help=say(N_("processes judging records (default: one per core)")),
    )
    sub.add_argument(
        "--shard",
        metavar="I/N",
        help=say(
            N_(
                "judge only the lines whose number modulo N is I (0 <= I < N; lines are "
                "numbered from 1), for one of N jobs sharing an archive"
            )
        ),
    )


def shard_of(text: str | None) -> Any:
    """``I/N`` as a ``Shard`` (None without one), or the usage error."""
    from quart_bezique.reconcile import Shard

    if text is None:
        return None
    match = _SHARD.fullmatch(text.strip())
    if match is None or not 0 <= int(match[1]) < int(match[2]):
        detail = N_("--shard must be I/N with 0 <= I < N, not {value}").format(value=text)
        raise CliError.input("INPUT_ERROR", detail)
    return Shard(int(match[1]), int(match[2]))


def run(args: argparse.Namespace, voice: human.Voice, ruleset: Spec | None) -> Outcome:
    """The whole run; every usage error is found before anything is judged."""
    from quart_bezique.reconcile.progress import ProgressDisplay
    from quart_bezique.reconcile.run import reconcile
    from quart_bezique.reconcile.words import Words

    if ruleset is not None:
        resolved(ruleset)  # refused now, as a body's ruleset is, not once per record
    shard = shard_of(args.shard)
    workers = args.workers if args.workers is not None else os.cpu_count() or 1
    if workers < 1:
        detail = N_("--workers must be 1 or more, not {value}").format(value=workers)
        raise CliError.input("INPUT_ERROR", detail)
    source, size = _opened(args.archive)
    words = Words(args.lang)
    display = ProgressDisplay(sys.stderr, words, total_bytes=size)
    try:
        finished = reconcile(
            source,
            args.out,
            name=args.archive,
            workers=workers,
            ruleset=ruleset,
            shard=shard,
            language=args.lang,
            progress=display,
        )
    except OSError as error:  # the folder cannot be written, or the input read
        detail = N_("the run stopped: {path}: {reason}").format(
            path=str(error.filename or args.archive),
            reason=error.strerror or N_("the system refused it"),
        )
        raise CliError.input("INPUT_ERROR", detail) from None
    finally:
        display.done()
        if source is not sys.stdin.buffer:
            source.close()
    exit = ExitCode.OK if finished.tally.clean else ExitCode.REFUSED
    return Outcome(finished.summary, finished.text, exit)


def _opened(path: str) -> tuple[IO[bytes], int | None]:
    """The archive, and its size when it is a file (the progress bar's 100 %)."""
    if path == "-":
        return sys.stdin.buffer, None
    try:
        source = open(path, "rb")  # noqa: SIM115 - closed by run()
    except OSError as error:
        detail = N_("{path} cannot be read: {reason}").format(
            path=path, reason=error.strerror or N_("the system refused to read it")
        )
        raise CliError.input("INPUT_ERROR", detail) from None
    try:
        size = os.fstat(source.fileno()).st_size or None
    except OSError:
        size = None
    return source, size
