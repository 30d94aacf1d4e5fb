"""The service's own ``.po`` reader (``quart_bezique.api.contract.i18n.po``) reads a catalog exactly
as Babel, which writes the catalogs, reads it: the shipped ones, and any Babel writes (long strings
wrapped over several lines, escapes, fuzzy and obsolete entries, comments). What it cannot read
exactly it refuses."""

from __future__ import annotations

import io

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from hypothesis import given, settings
from hypothesis import strategies as st
from quart_bezique.api.contract.i18n import LANGUAGES, catalog, po

Triple = tuple[str, str, bool]


def babel_reading(data: bytes) -> list[Triple]:
    found = read_po(io.BytesIO(data))
    return [
        (m.id, m.string, m.fuzzy)
        for m in found
        if isinstance(m.id, str) and m.id and isinstance(m.string, str)
    ]


def our_reading(data: bytes) -> list[Triple]:
    return [(e.msgid, e.msgstr, e.fuzzy) for e in po.read(data) if e.msgid]


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_the_shipped_catalogs_read_as_babel_reads_them(language: str) -> None:
    data = (catalog.LOCALE_DIR / language / "LC_MESSAGES" / f"{catalog.DOMAIN}.po").read_bytes()
    ours = our_reading(data)
    assert ours == babel_reading(data)
    assert len(ours) > 100  # the catalog is really there, and read whole


TEXT = st.text(
    alphabet=st.sampled_from('ab {}:,.-"\\\n\t\rКрасный♥é0\u2028\x85\x0b'), min_size=1, max_size=120
)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(TEXT, st.tuples(TEXT, st.booleans()), min_size=1, max_size=8),
    st.dictionaries(TEXT, TEXT, max_size=3),
    st.sampled_from([76, 0]),
)
def test_any_catalog_babel_writes_reads_as_babel_reads_it(
    messages: dict[str, tuple[str, bool]], obsolete: dict[str, str], width: int
) -> None:
    written = Catalog(locale="ru", project="quart-bezique")
    for msgid, (msgstr, fuzzy) in messages.items():
        written.add(msgid, msgstr, flags=["fuzzy"] if fuzzy else [], auto_comments=["a note"])
    for msgid, msgstr in obsolete.items():
        if msgid not in messages:
            written.obsolete[msgid] = written.add(msgid, msgstr)
            del written[msgid]
    out = io.BytesIO()
    write_po(out, written, width=width, include_previous=False)
    data = out.getvalue()
    ours = our_reading(data)
    assert ours == babel_reading(data)
    assert [(i, s, f) for i, (s, f) in messages.items()] == ours


def test_the_catalog_keeps_translated_entries_that_are_not_fuzzy() -> None:
    data = (
        b'msgid ""\nmsgstr ""\n"Language: ru\\n"\n\n'
        b'#, python-brace-format\nmsgid "kept {x}"\nmsgstr "\xd0\xb4\xd0\xb0 {x}"\n\n'
        b'#, fuzzy, python-brace-format\nmsgid "fuzzy"\nmsgstr "no"\n\n'
        b'msgid "untranslated"\nmsgstr ""\n\n'
        b'#~ msgid "gone"\n#~ msgstr "old"\n'
    )
    assert our_reading(data) == babel_reading(data)
    assert our_reading(data) == [("kept {x}", "да {x}", False), ("fuzzy", "no", True),
                                 ("untranslated", "", False)]  # fmt: skip


def test_strings_continue_over_lines_with_babels_escapes() -> None:
    data = b'msgid ""\n"one \\"two\\" "\n"three\\\\n\\n"\nmsgstr "\\t\\r\\q"\n'
    assert our_reading(data) == babel_reading(data) == [('one "two" three\\n\n', "\t\r\\q", False)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (b'msgid "a"\nmsgid_plural "as"\nmsgstr[0] "x"\n', "msgid_plural is not supported"),
        (b'msgctxt "c"\nmsgid "a"\nmsgstr "x"\n', "msgctxt is not supported"),
        (b'msgid "a"\nmsgstr "x"\n\nmsgid "a"\nmsgstr "y"\n', "in the catalog twice"),
        (b'msgid "a"\n\nmsgstr "x"\n', "an entry without its msgstr"),
        (b'msgid "a"\nmsgid "b"\nmsgstr "x"\n', "a second msgid before a msgstr"),
        (b'msgstr "x"\n', "a msgstr without its msgid"),
        (b'"x"\n', "a continued string outside any entry"),
        (b'msgid "a\nmsgstr "x"\n', "expected a quoted string"),
        (b'msgid "a"\nmsgstr x\n', "expected a quoted string"),
        (b'msgid "a"\nmsgstr "x"\nnonsense\n', "not a line of a catalog"),
        (b'msgid "a"\n', "an entry without its msgstr"),
        (b'msgid "\xff"\nmsgstr ""\n', "is not UTF-8"),
    ],
)
def test_what_it_cannot_read_exactly_it_refuses(text: bytes, found: str) -> None:
    with pytest.raises(po.CatalogError, match=found):
        po.read(text, "test.po")
