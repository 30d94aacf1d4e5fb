"""What the contract says when it refuses a value: coded message templates, in plain words.

marshmallow's own messages are English sentences about its types ("Not a valid list.") with no
code. Every schema here, once built, has each field's and validator's messages replaced by a
coded ``Message`` (``speak``), so a refusal carries its code, template and values from where it is
raised: problem documents render any language from that, and ``error_codes.code_of`` reads the
code, never the wording. Field and validator classes stay marshmallow's own (the derived checks
dispatch on them), only their message attributes change, on the instances.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from marshmallow import Schema, fields, validate

from quart_bezique.api.contract.fields import HandsByPlayer
from quart_bezique.game.betting import MAX_MONEY
from quart_bezique.game.messages import N_, NP_, Message

SCHEMA_MESSAGES: Final[Mapping[str, Message]] = {
    "type": N_("must be an object with named fields").coded("NOT_AN_OBJECT"),
    "unknown": N_("is not a field of this request").coded("UNKNOWN_FIELD"),
}
"""The schema's own messages (a body that is not an object, a key it does not know)."""

_COMMON: Final[Mapping[str, Message]] = {
    "required": N_("is required").coded("MISSING_FIELD"),
    "null": N_("must be given a value").coded("NULL_NOT_ALLOWED"),
    "validator_failed": N_("is not an accepted value").coded("INVALID_VALUE"),
    "type": N_("must be an object with named fields").coded("NOT_AN_OBJECT"),
}
_BY_KIND: Final[Mapping[type[Any], Mapping[str, Message]]] = {
    fields.String: {
        "invalid": N_("must be text in quotes").coded("NOT_A_STRING"),
        "invalid_utf8": N_("must be text in UTF-8").coded("NOT_A_STRING"),
    },
    fields.Integer: {
        "invalid": N_("must be a whole number").coded("NOT_AN_INTEGER"),
        "too_large": N_("is too large a number").coded("OUT_OF_RANGE"),
    },
    fields.Float: {
        "invalid": N_("must be a number").coded("NOT_A_NUMBER"),
        "too_large": N_("is too large a number").coded("OUT_OF_RANGE"),
        "special": N_("must be a finite number").coded("NOT_A_NUMBER"),
    },
    fields.Boolean: {"invalid": N_("must be true or false").coded("NOT_A_BOOLEAN")},
    fields.List: {"invalid": N_("must be a list in square brackets").coded("NOT_AN_ARRAY")},
    fields.Mapping: {"invalid": N_("must be an object with named fields").coded("NOT_AN_OBJECT")},
    fields.Nested: {"type": N_("must be an object with named fields").coded("NOT_AN_OBJECT")},
}


def speak(schema: Schema) -> None:
    """Give every field of ``schema`` (nested lists' items included) and its validators the
    contract's coded messages. Nested schemas speak when they are built (``BaseSchema``)."""
    schema.error_messages = {**schema.error_messages, **SCHEMA_MESSAGES}
    for field in schema.fields.values():
        for each in _walk(field):
            _field(each)


def _walk(field: fields.Field[Any]) -> Iterator[fields.Field[Any]]:
    yield field
    inner = getattr(field, "inner", None)
    if isinstance(inner, fields.Field):
        yield from _walk(inner)
    if isinstance(field, HandsByPlayer):
        yield from _walk(field.hand)


def _field(field: fields.Field[Any]) -> None:
    words = dict(_COMMON)
    for kind in type(field).__mro__:
        words.update(_BY_KIND.get(kind, {}))
    for key, message in words.items():
        if key in field.error_messages and not isinstance(field.error_messages[key], Message):
            field.error_messages[key] = message
    is_text = isinstance(field, fields.String)
    for validator in field.validators:
        if type(validator) is validate.Length:
            _length(validator, is_text)
        elif type(validator) is validate.Range:
            _range(validator)
        elif type(validator) is validate.Regexp and not isinstance(validator.error, Message):
            validator.error = N_("is not written in the expected form").coded("INVALID_FORMAT")
        elif type(validator) is validate.OneOf and not isinstance(validator.error, Message):
            validator.error = N_("must be one of: {choices}").coded("NOT_ONE_OF")
            # The choices are values to send as written: quoted, never read as words.
            validator.choices_text = ", ".join(f'"{choice}"' for choice in validator.choices)


_LENGTH_WORDS: Final[Mapping[bool, tuple[Message, Message, Message, Message]]] = {
    True: (
        NP_("must have {min} to {max} character", "must have {min} to {max} characters", "max"),
        NP_("must have at least {min} character", "must have at least {min} characters", "min"),
        NP_("must have at most {max} character", "must have at most {max} characters", "max"),
        NP_("must have exactly {equal} character", "must have exactly {equal} characters", "equal"),
    ),
    False: (
        NP_("must hold {min} to {max} item", "must hold {min} to {max} items", "max"),
        NP_("must hold at least {min} item", "must hold at least {min} items", "min"),
        NP_("must hold at most {max} item", "must hold at most {max} items", "max"),
        NP_("must hold exactly {equal} item", "must hold exactly {equal} items", "equal"),
    ),
}
"""A length's words, for text (characters) and for a list (items): between, at least, at most,
exactly."""


def _length(validator: validate.Length, is_text: bool) -> None:
    between, least, most, exactly = _LENGTH_WORDS[is_text]
    validator.message_all = between.coded("WRONG_LENGTH")
    validator.message_min = least.coded("TOO_SHORT")
    validator.message_max = most.coded("TOO_LONG")
    validator.message_equal = exactly.coded("WRONG_LENGTH")


class _EitherBound(Message):
    """marshmallow words a two-sided ``Range`` with one message whichever bound was crossed; this
    one becomes the message of the bound the value actually crossed when the value is bound."""

    below: Message
    above: Message

    def format(self, *args: object, **params: Any) -> Message:
        value, low = params.get("input"), params.get("min")
        crossed_low = isinstance(value, int | float) and isinstance(low, int) and value < low
        return (self.below if crossed_low else self.above).format(*args, **params)


def _range(validator: validate.Range) -> None:
    """A bound of ``MAX_MONEY`` is the largest exact JSON integer, not a rule of the game: a
    person is told the amount is too large, not shown a 16-digit number."""
    below = N_("must be at least {min}").coded("OUT_OF_RANGE")
    above = (
        N_("is too large to be counted exactly").coded("OUT_OF_RANGE")
        if validator.max == MAX_MONEY
        else N_("must be at most {max}").coded("OUT_OF_RANGE")
    )
    if validator.min is not None and validator.max is not None:
        either = _EitherBound("must be from {min} to {max}")
        either.below, either.above = below, above
        validator.message_all = either
    validator.message_min = below
    validator.message_max = above
    validator.error = None
