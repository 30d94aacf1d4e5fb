"""Messages as data: English text that keeps its template and values, so any language can be
rendered from what was meant rather than parsed back out of what was written.

A ``Message`` *is* the English ``str`` (library users, logs and tests read it as before) and also
carries ``template`` and ``params``. Values that are messages themselves are rendered in the same
language; plain strings (a player's id, text quoted from a request) never are. ``str.format`` is
overridden so that code written as ``N_("... {x}").format(x=...)`` (marshmallow's validators
included) keeps the structure. Rendering takes any ``gettext``-style object (``Translations``);
the core imports no catalog.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any, Protocol


class Translations(Protocol):
    """What rendering needs of a language: ``gettext.NullTranslations`` and its subclasses."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...


@lru_cache(maxsize=1024)
def _fields(template: str) -> frozenset[str]:
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


class Message(str):
    """English text, with the template and the values it was made from.

    ``plural`` (with ``count`` naming the value that chooses the form) makes it a plural message:
    the English text uses ``template`` when that value is 1 and ``plural`` otherwise; other
    languages choose by their own plural rule."""

    template: str
    params: Mapping[str, object]
    plural: str | None
    counted_by: str | None
    code: str | None

    def __new__(
        cls,
        template: str,
        params: Mapping[str, object] | None = None,
        *,
        plural: str | None = None,
        count: str | None = None,
        code: str | None = None,
    ) -> Message:
        wanted = _fields(template) | (_fields(plural) if plural else frozenset())
        kept = {k: v for k, v in (params or {}).items() if k in wanted}
        chosen = template
        if plural is not None and count is not None and kept.get(count) != 1:
            chosen = plural
        complete = bool(wanted) and wanted <= kept.keys()
        made = super().__new__(cls, str.format(chosen, **kept) if complete else chosen)
        made.template, made.params = template, kept
        made.plural, made.counted_by, made.code = plural, count, code
        return made

    def format(self, *args: object, **params: Any) -> Message:
        """The same template with (more) values bound: ``N_(t).format(x=1)`` stays a message.
        Positional values have no name a translation could place, so they are refused."""
        if args:
            raise TypeError("message templates take named values only")
        merged = {**self.params, **params}
        return Message(
            self.template, merged, plural=self.plural, count=self.counted_by, code=self.code
        )

    def coded(self, code: str) -> Message:
        """This message carrying a machine code (a field error's ``code``)."""
        return Message(
            self.template, self.params, plural=self.plural, count=self.counted_by, code=code
        )

    def render(self, language: Translations) -> str:
        """This message in ``language``, every nested message too."""
        if self.plural is not None and self.counted_by is not None:
            n = self.params.get(self.counted_by)
            text = language.ngettext(self.template, self.plural, n if isinstance(n, int) else 2)
        else:
            text = language.gettext(self.template)
        if not self.params and not _fields(text):
            return text
        return text.format(**{k: render(v, language) for k, v in self.params.items()})


class Joined(str):
    """Messages joined by a separator that is itself a message (", or " is translated too)."""

    items: tuple[object, ...]
    separator: str

    def __new__(cls, items: Iterable[object], separator: str) -> Joined:
        kept = tuple(items)
        made = super().__new__(cls, str(separator).join(str(item) for item in kept))
        made.items, made.separator = kept, separator
        return made

    def render(self, language: Translations) -> str:
        return render(self.separator, language).join(render(i, language) for i in self.items)


def render(value: object, language: Translations) -> str:
    """``value`` in ``language``: messages are translated; any other text (a name, a quoted
    input) and numbers are shown as they are."""
    if isinstance(value, Message | Joined):
        return value.render(language)
    return str(value)


def N_(template: str) -> Message:
    """A translatable template (``pybabel extract -k N_`` lists it); ``.format`` binds values."""
    return Message(template)


def NP_(singular: str, plural: str, count: str, /, **params: object) -> Message:
    """A plural message (``pybabel extract -k NP_:1,2``): ``count`` names the value that picks
    the form."""
    return Message(singular, params, plural=plural, count=count)
