"""What a run says to people (``summary.txt``, the progress lines), in the language of ``--lang``.

Every sentence is an ``N_`` template, so ``make catalogs`` extracts it and the service's catalogs
translate it like any other message: one place for every word the service says, in every
language it speaks.
"""

from __future__ import annotations

from typing import Any, Final

from quart_bezique.api.contract.i18n.translations import translations
from quart_bezique.game.messages import N_, Message, Translations, render

ENGLISH: Final = "en"

TITLE: Final = N_("reconciliation of {input} against the reference (rules: {ruleset})")
OWN_RULES: Final = N_("each record's own")
SHARD: Final = N_("shard {index}/{count}: the lines whose number modulo {count} is {index}")
RECORDS: Final = N_("records")
MATCHING: Final = N_("matching the reference")
DISAGREEING: Final = N_("disagreeing")
UNREADABLE: Final = N_("unreadable")
UNCLAIMED: Final = N_("without a claim")
DIFFERENCES: Final = N_("differences reported")
LINES: Final = N_("lines read")
SECONDS: Final = N_("seconds")
RATE: Final = N_("rounds per second")
ALL_MATCH: Final = N_("every claim matches the reference")
SOME_DIFFER: Final = N_(
    "{count} records disagree or cannot be read: each of them is in {report}, line by line"
)
PROGRESS: Final = N_(
    "{records} records judged, {disagreeing} disagreeing, {unreadable} unreadable, "
    "{rate} per second"
)


class Words:
    """A language's catalog, and how that language writes a number."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.catalog: Translations = translations(language)

    def gettext(self, message: str, /) -> str:
        return self.catalog.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int, /) -> str:
        return self.catalog.ngettext(singular, plural, n)

    def say(self, message: Message, **values: Any) -> str:
        return render(message.format(**values) if values else message, self)

    def number(self, value: float | int | None) -> str:
        """A count as is; a rate with one decimal, and a decimal comma where the language
        writes one."""
        if value is None:
            return "-"
        if isinstance(value, int):
            return str(value)
        text = f"{value:.1f}"
        return text if self.language == ENGLISH else text.replace(".", ",")
