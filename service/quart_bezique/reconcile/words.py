"""What a run says to people (``summary.txt``, the progress lines) in English or Russian.

Every sentence is an ``N_`` template, so ``make catalogs`` extracts it and the service's catalogs
translate it like any other message. Until a catalog has a sentence, ``FALLBACK`` gives it: a
small table of this module's own Russian, used only where the catalog still answers with the
English template (a catalog's translation always wins). Ukrainian has no table here: it shows
the catalog's words, or English where the catalog has none yet.
"""

from __future__ import annotations

from collections.abc import Mapping
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

FALLBACK: Final[Mapping[str, Mapping[str, str]]] = {
    "ru": {
        TITLE.template: "сверка {input} с эталоном (правила: {ruleset})",
        OWN_RULES.template: "свои у каждой записи",
        SHARD.template: "часть {index}/{count}: строки, номер которых по модулю {count} равен "
        "{index}",
        RECORDS.template: "записей",
        MATCHING.template: "совпадают с эталоном",
        DISAGREEING.template: "расходятся с эталоном",
        UNREADABLE.template: "не прочитаны",
        UNCLAIMED.template: "без заявленного исхода",
        DIFFERENCES.template: "расхождений в отчёте",
        LINES.template: "прочитано строк",
        SECONDS.template: "секунд",
        RATE.template: "раундов в секунду",
        ALL_MATCH.template: "все заявленные исходы совпадают с эталоном",
        SOME_DIFFER.template: "записей, которые расходятся с эталоном или не прочитаны: "
        "{count}; каждая из них есть в {report}",
        PROGRESS.template: "проверено записей: {records}, расходятся: {disagreeing}, не "
        "прочитаны: {unreadable}, {rate} в секунду",
    }
}
"""This module's own Russian for its sentences, until the service's catalog has them."""


class Words:
    """A language's catalog, with ``FALLBACK`` for what it does not translate yet."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.catalog: Translations = translations(language)
        self.fallback = FALLBACK.get(language, {})

    def gettext(self, message: str, /) -> str:
        found = self.catalog.gettext(message)
        return self.fallback.get(message, found) if found == message else found

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
