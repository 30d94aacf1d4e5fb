"""A round's verdict as the wire carries it (``POST /v1/rounds/adjudicate``, ``--json``).

Built from the same pieces as the single-purpose endpoints' answers (``quart_bezique.wire.
render``), so a hand, a betting verdict or a settlement reads here exactly as it reads there.
"""

from __future__ import annotations

from typing import Any

from quart_bezique.wire import render

from .adjudicate import RoundVerdict


def verdict(result: RoundVerdict) -> dict[str, Any]:
    """``RoundVerdictSchema``: ``settlement`` always gives ``carried`` (a claim is compared
    with it), ``claim`` is null when the record claims nothing."""
    record = result.record
    settlement = result.settlement
    pair = result.betting.state.showdown
    out: dict[str, Any] = {
        "round_id": record.round_id,
        "trump": render.trump_code(record.trump),
        "hands": [{"player": p, **render.scored_hand(h)} for p, h in result.hands],
        "betting": render.betting(result.betting),
        "showdown": None
        if result.showdown is None or pair is None
        else render.showdown(result.showdown, pair),
        "settlement": None if settlement is None else render.settlement(settlement, named=True),
        "claim": None
        if result.differences is None
        else {
            "matches": not result.differences,
            "differences": [
                {"field": d.field, "claimed": d.claimed, "reference": d.reference}
                for d in result.differences
            ],
        },
    }
    return render.stamped(out, result.ruleset, record.named)
