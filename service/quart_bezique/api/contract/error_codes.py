"""One error vocabulary: every item of a problem's ``errors[]`` carries a stable machine ``code``.

Integrators branch on codes, never on messages (messages are for people, reworded and
translated). The codes are the core's where the core decides (``INVALID_CARD``, ``SHOE_EXCEEDED``,
... from ``quart_bezique.game``), so a library user and an HTTP client branch on the same names. A
message carries its code from where it is raised (a ``Message`` with ``code``: the core's, the
schemas', ``worded``'s for marshmallow's fields); nothing reads a code back out of wording.
A message without one gets ``INVALID_VALUE``; a test keeps every schema message off it.
"""

from __future__ import annotations

from typing import Any, Final

from marshmallow import ValidationError, validate

from quart_bezique.game.messages import Message

INVALID_VALUE: Final = "INVALID_VALUE"
"""The fallback: a refusal no rule here recognises (a test makes sure none reaches clients)."""


def coded(message: str, code: str) -> Message:
    """``message`` carrying ``code`` (a plain text becomes its own template)."""
    return (message if isinstance(message, Message) else Message(message)).coded(code)


def code_of(message: Any) -> str:
    """The code a message was raised with (``INVALID_VALUE`` if it carries none)."""
    found = getattr(message, "code", None)
    return found if isinstance(found, str) else INVALID_VALUE


class CountOf(validate.Length):
    """A list length with its own code and a message saying what was expected and what was got
    ("a hand holds exactly 4 cards, got 3"); used where the core has a code for it."""

    def __init__(self, *, words: Message, code: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.words = words
        self.code = code

    def __call__(self, value: Any) -> Any:
        try:
            return super().__call__(value)
        except ValidationError:
            raise ValidationError(coded(self._expected(len(value)), self.code)) from None

    def _expected(self, got: int) -> Message:
        wanted = self.equal if self.equal is not None else self.max if self.max is not None else 0
        return self.words.format(equal=self.equal, min=self.min, max=self.max, count=got, n=wanted)
