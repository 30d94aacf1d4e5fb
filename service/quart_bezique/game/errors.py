"""The one error family of the rules core.

Every refusal of the core is a ``RulesError`` carrying a stable machine-readable ``code`` and a
``path`` (keys and indexes into the caller's input, e.g. ``("hands", 3, "cards", 2)``). The HTTP
layer turns ``path`` into a JSON pointer and ``code`` into a problem document without knowing which
rule failed. Verdicts on betting sequences are *not* errors: they are values (see ``betting``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

PathElement = str | int


class RulesError(ValueError):
    """Input the rules refuse. ``code`` is stable and documented; ``message`` is for humans: the
    English text, and (as a ``messages.Message``) the template and values any language renders."""

    code: str = "RULES_ERROR"

    def __init__(
        self, message: str, *, code: str | None = None, path: Sequence[PathElement] = ()
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.path: tuple[PathElement, ...] = tuple(path)

    def at(self, *prefix: PathElement) -> RulesError:
        """Re-anchor the error under ``prefix`` (the caller knows where this input sat)."""
        self.path = tuple(prefix) + self.path
        return self

    def pointer(self) -> str:
        """The path as an RFC 6901 JSON pointer (``""`` for the whole document)."""
        return json_pointer(self.path)


def json_pointer(path: Iterable[PathElement]) -> str:
    """RFC 6901 pointer of a path of keys and indexes (``""`` is the whole document): the one
    spelling of a location in a request, for the core's refusals, the API's and the CLI's."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)
