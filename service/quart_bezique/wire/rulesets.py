"""The rulesets a caller may name, as one document (``GET /v1/rulesets``, ``quart-bezique
rulesets --json``).

Built here, below the web layer and without it, from the core's own ``SWITCHES`` and ``PRESETS``,
so the endpoint and the command line print the same bytes and neither can list a switch value or
a digest the core would not accept or compute. Every entry points at the rule in docs/rules.md
that defines it, so a reader of an id can find what each switch means.
"""

from __future__ import annotations

from typing import Any, Final

from quart_bezique.game.ruleset import CLASSIC, PRESETS, RULESET, SWITCHES

RULES_DOC: Final = "docs/rules.md"
PRESETS_ANCHOR: Final = "s13-5"
"""docs/rules.md §13.5 defines the presets (each switch has its own rule, ``Switch.anchor``)."""


def anchor(name: str) -> str:
    """A link into the rules as the document gives it (``docs/rules.md#s13-2``)."""
    return f"{RULES_DOC}#{name}"


def rulesets_document() -> dict[str, Any]:
    """The default ruleset's id, every switch (its values, the default's value, where it is
    stated) and every preset (its id, digest and switch values). A fresh dict each call: a caller
    may add to its copy without changing another's."""
    return {
        "default": RULESET,
        "switches": [
            {
                "name": switch.name,
                "values": list(switch.values),
                "default": getattr(CLASSIC, switch.name),
                "anchor": anchor(switch.anchor),
            }
            for switch in SWITCHES
        ],
        "presets": [
            {
                "id": ruleset.id,
                "sha256": ruleset.digest,
                "switches": ruleset.switches(),
                "anchor": anchor(PRESETS_ANCHOR),
            }
            for ruleset in PRESETS.values()
        ],
    }
