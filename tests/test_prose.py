"""The prose around the code stays true: short module docstrings, no cost figures, no dead names.

A module docstring says why the module exists; what a user needs (a format, a contract, a field
list) belongs in docs/. A timing or size quoted in a comment goes stale unseen, so measured costs
live in docs/performance.md. A name the code no longer has misleads every reader who looks for it.
"""

from __future__ import annotations

import ast
import doctest
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SERVICE = ROOT / "service"
MAX_DOCSTRING_LINES = 10


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _modules() -> list[Path]:
    return sorted(p for p in SERVICE.rglob("*.py") if "__pycache__" not in p.parts)


# ------------------------------------------------------------------------------------------------
# (a) module docstrings of at most ten lines
# ------------------------------------------------------------------------------------------------


def docstring_lines(source: str) -> int:
    """Lines of a module's docstring (0 without one), as ``ast.get_docstring`` cleans it."""
    docstring = ast.get_docstring(ast.parse(source))
    return len(docstring.splitlines()) if docstring else 0


@pytest.mark.parametrize("path", _modules(), ids=_relative)
def test_module_docstring_is_short(path: Path) -> None:
    lines = docstring_lines(path.read_text(encoding="utf-8"))
    assert lines <= MAX_DOCSTRING_LINES, (
        f"{_relative(path)}: its docstring has {lines} lines; say why the module exists in at "
        f"most {MAX_DOCSTRING_LINES}, and move what users need to docs/"
    )


def test_docstring_lines_counts_the_docstring() -> None:
    long = '"""Why.\n\n' + "more\n" * MAX_DOCSTRING_LINES + '"""\nX = 1\n'
    assert docstring_lines(long) == MAX_DOCSTRING_LINES + 2
    assert docstring_lines('"""Why."""\n') == 1
    assert docstring_lines("X = 1  # no docstring\n") == 0


# ------------------------------------------------------------------------------------------------
# (b) no cost figures in docstrings and comments
# ------------------------------------------------------------------------------------------------

COST_FIGURE = re.compile(
    r"(?<![\w.])\d+(?:[.,]\d+)*\s?(?:µs|us|ms|ns|MiB|KiB|GiB|MB|KB|GB)\b"
    r"|(?<![\w.])\d+(?:\.\d+)?\s?[x×]\s+(?:faster|slower)\b",
)
"""A number with a time or size unit, or a speed ratio. Only comments and docstrings are read:
limits written as code (``MAX_DEPTH = 254``, ``64 * MIB``) are design, not measurements."""

COST_FIGURE_EXCEPTIONS: dict[tuple[str, str], str] = {}
"""(file, the text matched) -> why it is not a measured cost. None so far: say a design limit by
its constant's name (``HEAD_MAX_BYTES``) rather than by its value with a unit."""


def prose(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment and of every string statement (module, class, function and
    attribute docstrings) in ``source``."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            yield node.lineno, node.value.value


def cost_figures(name: str, source: str) -> list[str]:
    found = []
    for line, text in prose(source):
        for match in COST_FIGURE.finditer(text):
            if (name, match[0]) not in COST_FIGURE_EXCEPTIONS:
                found.append(f"{name}:{line}: {match[0]!r}")
    return found


@pytest.mark.parametrize("path", [*_modules(), ROOT / "gunicorn.conf.py"], ids=_relative)
def test_no_cost_figures_in_prose(path: Path) -> None:
    found = cost_figures(_relative(path), path.read_text(encoding="utf-8"))
    assert not found, f"cost figures belong in docs/performance.md: {found}"


def test_cost_figures_are_found_in_prose_only() -> None:
    source = (
        '"""Takes ~1.8 ms."""\n'
        "LIMIT = 64 * 1024 * 1024  # 33 MiB measured\n"
        "def f() -> None:\n"
        '    """2.5x faster than before, 20 µs."""\n'
        'TEXT = "not prose: 5 ms"\n'
        "DEPTH = 254  # orjson serialises no deeper\n"
    )
    assert [figure.split(": ", 1)[1] for figure in cost_figures("m.py", source)] == [
        "'33 MiB'",
        "'1.8 ms'",
        "'2.5x faster'",
        "'20 µs'",
    ]


# ------------------------------------------------------------------------------------------------
# (c) no names of removed modules and functions
# ------------------------------------------------------------------------------------------------

REMOVED = re.compile(
    r"\bshortcut\b|JsonShortcut|\bbatch_text\b|\bread_json\b|\bjson_response\b"
    r"|\bstatic_json_response\b|\bpause_for_batches\b|\bput_back\b|\btake_body\b|\b_Replay\b"
    r"|\b_read_raw\b|\b_answer_raw\b|pre-dispatch|\bcanonical_body\b|\baudit\.KINDS\b"
    r"|\baudit\.body_digest\b|\bbody_digest\s*\(|\bbatch_body_digest\b|\bresidue\b"
    r"|\bPRE_DISPATCH_BUDGET\b|\bscore_value\b|\bbatch_scores\b|\bbatch_breakdowns\b"
    r"|\bservice\.api\.contract\.render\b|api/contract/render\b"
    r"|\b(?:service|quart_bezique)\.api\.audit\b(?!\")|(?:service|quart_bezique)/api/audit\b"
)
"""Modules and functions the one-road redesign removed. ``Exchange.body_digest`` is an attribute
that exists (only the removed function, called or qualified, is matched)."""

REMOVED_NAME_EXCEPTIONS: dict[str, str] = {
    'getLogger("quart_bezique.api.audit")': "a logger's name, which operators' logging "
    "configuration may select by; not the removed module",
}
"""Text that contains a removed name without naming the removed thing, and why."""

SCANNED = ("service", "docs", "scripts", "README.md")
"""Not CHANGELOG.md: it is history, and names what each release removed."""
_BINARY = (".png", ".jpg", ".jpeg", ".gif", ".pyc", ".ico", ".woff", ".woff2", ".mo")


def _scanned_files() -> list[Path]:
    files: list[Path] = []
    for name in SCANNED:
        top = ROOT / name
        candidates = [top] if top.is_file() else sorted(top.rglob("*"))
        files += [
            p
            for p in candidates
            if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith(_BINARY)
        ]
    return files


def removed_names(text: str) -> list[str]:
    for allowed in REMOVED_NAME_EXCEPTIONS:
        text = text.replace(allowed, "")
    return [
        f"line {text.count(chr(10), 0, match.start()) + 1}: {match[0]!r}"
        for match in REMOVED.finditer(text)
    ]


@pytest.mark.parametrize("path", _scanned_files(), ids=_relative)
def test_no_removed_names(path: Path) -> None:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:  # not text: nothing to read names in
        return
    found = removed_names(text)
    assert not found, f"{_relative(path)} names what no longer exists: {found}"


def test_removed_names_are_told_from_what_exists() -> None:
    text = (
        "exchange.body_digest = digest(form, parsed)\n"
        'log = logging.getLogger("quart_bezique.api.audit")\n'
        "see audit.body_digest(path, body) and shortcut.take_body\n"
        "from quart_bezique.api.audit import canonical_body\n"
        "a shortcuts list; score_values\n"
    )
    assert removed_names(text) == [
        "line 3: 'audit.body_digest'",
        "line 3: 'shortcut'",
        "line 3: 'take_body'",
        "line 4: 'quart_bezique.api.audit'",
        "line 4: 'canonical_body'",
    ]


# ------------------------------------------------------------------------------------------------
# Interactive examples in docs/ name what exists, and print what they show
# ------------------------------------------------------------------------------------------------


def _pycon_blocks() -> list[tuple[str, str]]:
    return [
        (f"{_relative(doc)} block {i}", block)
        for doc in sorted((ROOT / "docs").glob("*.md"))
        for i, block in enumerate(
            re.findall(r"```pycon\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
        )
    ]


def test_docs_have_interactive_examples() -> None:
    assert any(name.startswith("docs/verification.md") for name, _ in _pycon_blocks())


@pytest.mark.parametrize(("name", "block"), _pycon_blocks(), ids=[n for n, _ in _pycon_blocks()])
def test_docs_interactive_example_runs_as_shown(name: str, block: str) -> None:
    test = doctest.DocTestParser().get_doctest(block, {}, name, name, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{name} does not print what it shows"
