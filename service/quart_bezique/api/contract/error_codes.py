"""One error vocabulary: every item of a problem's ``errors[]`` carries a stable machine ``code``.

Integrators branch on codes, never on messages (messages are for people, reworded and
translated). The codes are the core's where the core decides (``INVALID_CARD``, ``SHOE_EXCEEDED``,
... from ``quart_bezique.game``), so a library user and an HTTP client branch on the same names. A
message learns its code where it is made (``coded(text, code)``, a ``str`` marshmallow keeps as
it is); marshmallow's own messages are recognised by their fixed text or template, in one table
here. Anything else would get ``INVALID_VALUE``; a test keeps every schema message off it.
"""

from __future__ import annotations

from typing import Any, Final

from marshmallow import ValidationError, validate

from quart_bezique.api.contract.i18n import N_

INVALID_VALUE: Final = "INVALID_VALUE"
"""The fallback: a refusal no rule here recognises (a test makes sure none reaches clients)."""


class Coded(str):
    """A message with its machine code."""

    code: str

    def __new__(cls, text: str, code: str) -> Coded:
        made = super().__new__(cls, text)
        made.code = code
        return made


def coded(text: str, code: str) -> Coded:
    return Coded(text, code)


_FIXED: Final[dict[str, str]] = {
    "Unknown field.": "UNKNOWN_FIELD",
    "Missing data for required field.": "MISSING_FIELD",
    "Field may not be null.": "NULL_NOT_ALLOWED",
    "Invalid input type.": "NOT_AN_OBJECT",
    "Not a valid mapping type.": "NOT_AN_OBJECT",
    "Not a valid integer.": "NOT_AN_INTEGER",
    "Not a valid string.": "NOT_A_STRING",
    "Not a valid list.": "NOT_AN_ARRAY",
    "Not a valid boolean.": "NOT_A_BOOLEAN",
    "Invalid value.": INVALID_VALUE,
}
"""marshmallow's fixed messages (and ours that say the same), by their exact text."""
_PREFIXES: Final[tuple[tuple[str, str], ...]] = (
    ("Length must be", "WRONG_LENGTH"),
    ("Shorter than minimum length", "TOO_SHORT"),
    ("Longer than maximum length", "TOO_LONG"),
    ("Must be greater than or equal to", "OUT_OF_RANGE"),
    ("Must be less than or equal to", "OUT_OF_RANGE"),
    ("Must be one of:", "NOT_ONE_OF"),
    ("String does not match expected pattern", "INVALID_FORMAT"),
    ("Not a valid integer", "NOT_AN_INTEGER"),
)
"""marshmallow's templated messages (``Length``, ``Range``, ``OneOf``, ``Regexp``), by prefix."""


def code_of(message: Any) -> str:
    """The code of one error message (``INVALID_VALUE`` if nothing recognises it)."""
    found = getattr(message, "code", None)
    if isinstance(found, str):
        return found
    text = str(message)
    fixed = _FIXED.get(text)
    if fixed is not None:
        return fixed
    for prefix, code in _PREFIXES:
        if text.startswith(prefix):
            return code
    return INVALID_VALUE


class CountOf(validate.Length):
    """A list length with its own code and a message saying what was expected and what was got
    ("a hand holds exactly 4 cards, got 3"); used where the core has a code for it."""

    def __init__(self, *, subject: str, items: str, code: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.subject = subject
        self.items = items
        self.code = code

    def __call__(self, value: Any) -> Any:
        try:
            return super().__call__(value)
        except ValidationError:
            raise ValidationError(coded(self._expected(len(value)), self.code)) from None

    def _expected(self, got: int) -> str:
        if self.equal is not None:
            template = N_("{subject} exactly {equal} {items}, got {count}")
        elif self.min is not None and self.max is not None:
            template = N_("{subject} {min} to {max} {items}, got {count}")
        elif self.min is not None:
            template = N_("{subject} at least {min} {items}, got {count}")
        else:
            template = N_("{subject} at most {max} {items}, got {count}")
        return template.format(
            subject=self.subject,
            items=self.items,
            equal=self.equal,
            min=self.min,
            max=self.max,
            count=got,
        )
