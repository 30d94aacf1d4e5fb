"""The templates of messages made outside the HTTP layer's marked modules
(``service/quart_bezique/api/contract/i18n/foreign.py``, read by ``pybabel extract``) are each in
the Russian catalog with a translation, and each is listed once."""

from __future__ import annotations

from quart_bezique.api.contract.i18n import RUSSIAN, foreign
from quart_bezique.api.contract.i18n.catalog import entries

LISTS: dict[str, tuple[str, ...]] = {
    name: value
    for name, value in vars(foreign).items()
    if name.isupper() and isinstance(value, tuple)
}


def test_the_module_lists_the_sources_it_names() -> None:
    assert set(LISTS) == {
        "MARSHMALLOW",
        "SCHEMAS",
        "HTTP",
        "CARDS",
        "BETTING",
        "SETTLEMENT",
        "ODDS",
    }
    assert all(LISTS.values()), [name for name, templates in LISTS.items() if not templates]


def test_every_listed_template_has_a_russian_translation() -> None:
    russian = entries(RUSSIAN)
    untranslated = [t for templates in LISTS.values() for t in templates if not russian.get(t)]
    assert untranslated == []
    same = [t for templates in LISTS.values() for t in templates if russian[t] == t]
    assert same == []


def test_no_template_is_listed_twice() -> None:
    listed = [t for templates in LISTS.values() for t in templates]
    assert len(listed) == len(set(listed))
