"""Which hooks (``@validates_schema``, ``@pre_load``...) a marshmallow schema has registered.

marshmallow offers no public way to ask; the contract needs to know, to refuse deriving a check
for a schema with a hook it cannot mirror (``checks.py``) and to keep ``guard.explain`` away from
schemas whose schema-level validators could read a list it replaces. The answer is read from
``Schema._hooks``, a private attribute, here and nowhere else;
``tests/adapters/test_marshmallow_hooks.py`` checks its shape on the installed marshmallow.
"""

from __future__ import annotations

from marshmallow import Schema


def hook_names(schema: Schema, kind: str) -> tuple[str, ...]:
    """The names of ``schema``'s methods registered as ``kind`` hooks (a tag of
    ``marshmallow.decorators``: ``VALIDATES_SCHEMA``, ``PRE_LOAD``...), inherited ones included;
    empty when it has none."""
    return tuple(name for name, _many, _options in schema._hooks.get(kind, ()))
