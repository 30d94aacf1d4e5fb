"""``quart-bezique adjudicate RECORD``: a round record judged as ``POST /v1/rounds/adjudicate``
judges it (docs/round-record.md).

The file is read as the service reads a body, loaded by the endpoint's own schema and judged by
``quart_bezique.rounds``, so ``--json`` prints the HTTP answer's bytes and a refusal is its
problem document. ``--ruleset SPEC`` replaces the record's ``ruleset`` member, ``--trace`` sets
the request's ``trace``. Exit 1 when the betting is invalid or the claim differs, else 0.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from quart_bezique.game.messages import N_

from . import human
from .problems import ExitCode
from .safe import shown
from .verdicts import Outcome, Spec, contract

if TYPE_CHECKING:
    from quart_bezique.rounds import RoundVerdict


def register(verdict_command: Callable[[str, str], argparse.ArgumentParser], voice: Any) -> None:
    """The subcommand, made by ``main``'s own maker of verdict commands (``--json``, ``--lang``,
    ``--ruleset``)."""
    say = voice.say
    sub = verdict_command(
        "adjudicate", say(N_("judge a whole round record (POST /v1/rounds/adjudicate)"))
    )
    sub.add_argument("record", help=say(N_("a round record (JSON), or - for the standard input")))
    sub.add_argument(
        "--trace",
        action="store_true",
        help=say(N_("also give the betting's state after each action")),
    )


def run(body: Any, voice: human.Voice, ruleset: Spec | None, trace: bool = False) -> Outcome:
    """The verdict on a parsed record, as the endpoint gives it (the record's reader loads the
    API's schemas: imported here, as ``contract`` is, so other commands never pay for them)."""
    from quart_bezique.rounds import RecordError, adjudicate_record
    from quart_bezique.rounds.record import accepted, record_schemas
    from quart_bezique.rounds.render import verdict

    request = body
    if isinstance(body, dict):
        request = {**body, **({"ruleset": ruleset} if ruleset is not None else {})}
        if trace:
            request["trace"] = True
    rules = contract()
    loaded = dict(rules.loaded(record_schemas(rules.CONFIG).request, request))
    with_trace = loaded.pop("trace", False) is True
    try:
        found = adjudicate_record(accepted(loaded), trace=with_trace)
    except RecordError as error:
        raise rules.refused(error.problem) from None
    failed = not found.betting.valid or found.matches is False
    return Outcome(verdict(found), text(found, voice), ExitCode.REFUSED if failed else ExitCode.OK)


def text(found: RoundVerdict, voice: human.Voice) -> str:
    """The verdict for people: the round, every hand, the betting, the settlement, the claim."""
    say = voice.say
    ruleset = found.ruleset.id
    round_id = found.record.round_id
    head = say(
        N_("round {round}; {trump} (rules {ruleset})"),
        round=shown(round_id) if round_id is not None else "-",
        trump=human.trump(found.record.trump, voice),
        ruleset=ruleset,
    )
    hands = human.table(
        (say(N_("player")), say(N_("cards")), say(N_("points"))),
        [(p, human.cards(h.cards, voice), h.score) for p, h in found.hands],
    )
    parts = [head, hands, human.betting(found.betting, ruleset, voice)]
    if found.settlement is not None:
        parts.append(human.settlement(found.settlement, ruleset, voice))
    else:
        parts.append(say(N_("not settled: the betting is invalid or has not ended")))
    if found.differences is not None:
        if not found.differences:
            parts.append(say(N_("the claim matches the verdict")))
        else:
            parts.append(say(N_("the claim differs from the verdict:")))
            parts.append(
                human.table(
                    (say(N_("field")), say(N_("claimed")), say(N_("reference"))),
                    [
                        (d.field or "/", _json(d.claimed), _json(d.reference))
                        for d in found.differences
                    ],
                )
            )
    return "\n".join(parts)


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()
