"""The repository stands alone: nothing it tracks points outside it, and rules citations resolve.

A user who clones the repository, and a dispute officer who must quote the rule the service
applied, have only what git tracks. So no tracked text file may send them elsewhere:

* to a path outside the checkout (the parent directory's shared folder, the rules file that lived
  there, an absolute path on the machine the code was written on);
* to a tracker issue by number (a bare number means nothing without the tracker).

The rules specification is docs/rules.md. Every citation of it (``docs/rules.md §N`` or
``§N.M``, and links such as ``rules.md#s7``) must name a section, rule or anchor that exists there.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
THIS = Path(__file__).resolve().relative_to(ROOT).as_posix()

# The name of the old rules file, spelled so that this source holds no reference to it.
_OLD_RULES_NAME = "RULES" + r"\.md"

_SHARED = "sha" + "red"
"""The parent directory's shared folder, spelled so that this source holds no reference to it."""

OUTSIDE = re.compile(
    r"\.\./"
    + _SHARED  # the parent directory's shared folder
    + "|"
    + _SHARED
    + "/RULES"
    rf"|\b{_OLD_RULES_NAME}\b"  # the old rules file itself (docs/rules.md is lower case)
    r"|(?<![\w.$}\)\]-])/work/"  # an absolute path on the authors' machine
)
"""References to a place outside the repository. ``/work/`` counts only as the start of an
absolute path, not inside a relative one such as ``$ROOT/work/`` or ``build/work/``."""

ISSUE = re.compile(r"\b[Ii]ssues? #?\d+")
"""A tracker issue by number: the word, an optional ``#``, digits (either case, either number)."""

CITATION = re.compile(r"docs/rules\.md((?:\s*(?:,|and|to|–|-)?\s*§\s*\d+(?:\.\d+)?)+)")
"""``docs/rules.md §7``, ``docs/rules.md §3–§7``, ``docs/rules.md §9 and §10``, ``§5.5``."""
SECTION = re.compile(r"§\s*(\d+(?:\.\d+)?)")
LINK = re.compile(r"rules\.md#([\w.-]+)")
"""Links into the specification from other files, e.g. ``docs/rules.md#s7`` or ``rules.md#s5-5``."""


@cache
def tracked_text_files() -> tuple[tuple[str, str], ...]:
    """Every git-tracked file that exists in the working tree and reads as UTF-8 text."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
    ).stdout.decode("utf-8")
    files = []
    for name in sorted(filter(None, listed.split("\0"))):
        path = ROOT / name
        if not path.is_file():
            continue  # deleted in the working tree, not yet committed
        data = path.read_bytes()
        if b"\0" in data:
            continue  # binary
        try:
            files.append((name, data.decode("utf-8")))
        except UnicodeDecodeError:
            continue
    return tuple(files)


def _offences(pattern: re.Pattern[str], skip: set[str]) -> list[str]:
    found = []
    for name, text in tracked_text_files():
        if name in skip:
            continue
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{name}:{line}: {match.group(0)!r}")
    return found


def _spec_anchors() -> tuple[set[str], set[str]]:
    """The spec's numbers (``7``, ``5.5``) and anchors (``s7``, ``s5-5``, heading slugs)."""
    text = RULES.read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', text))
    numbers = set()
    for anchor in anchors:
        numbered = re.fullmatch(r"s(\d+)(?:-(\d+))?", anchor)
        if numbered:
            major, minor = numbered.groups()
            numbers.add(major if minor is None else f"{major}.{minor}")
    for heading in re.findall(r"^#+ (.*)$", text, re.M):
        title = re.sub(r"<[^>]+>", "", heading).strip().lower()
        anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return numbers, anchors


def test_the_specification_has_every_numbered_section() -> None:
    numbers, anchors = _spec_anchors()
    assert {str(n) for n in range(1, 13)} <= numbers
    assert {"7-worked-examples", "s7", "s5-5", "s9-11", "s12"} <= anchors


def test_no_tracked_file_points_outside_the_repository() -> None:
    offences = _offences(OUTSIDE, skip={THIS})
    assert not offences, "references outside the repository:\n" + "\n".join(offences)


def test_no_tracked_file_cites_a_tracker_issue_by_number() -> None:
    offences = _offences(ISSUE, skip={THIS})
    assert not offences, "tracker issue numbers:\n" + "\n".join(offences)


def test_every_rules_citation_names_an_existing_section() -> None:
    numbers, anchors = _spec_anchors()
    dangling = []
    for name, text in tracked_text_files():
        for match in CITATION.finditer(text):
            for number in SECTION.findall(match.group(1)):
                if number not in numbers:
                    dangling.append(f"{name}: {match.group(0)!r} (no §{number})")
        for match in LINK.finditer(text):
            if match.group(1) not in anchors:
                dangling.append(f"{name}: {match.group(0)!r} (no anchor)")
    assert not dangling, "citations of docs/rules.md that name nothing:\n" + "\n".join(dangling)


@pytest.mark.parametrize(
    ("text", "outside", "issue"),
    [
        ("see ../" + _SHARED + "/" + "RULES.md", True, False),
        ("the rules (" + "RULES" + ".md §7)", True, False),
        ("cp /work/main/x .", True, False),
        ('rootfs="$ROOT/work/rootfs"', False, False),
        ("docs/rules.md §7", False, False),
        ("fixed in " + "iss" + "ue 7", False, True),
        ("Iss" + "ue #12 and " + "iss" + "ue 5's targets", False, True),
        ("an issue with 7 cards", False, False),
    ],
)
def test_the_patterns_catch_what_they_mean(text: str, outside: bool, issue: bool) -> None:
    assert bool(OUTSIDE.search(text)) is outside
    assert bool(ISSUE.search(text)) is issue


# --- the specification says what the service does ---------------------------------------------


def _section(number: int) -> str:
    text = RULES.read_text(encoding="utf-8")
    start = text.index(f'<a id="s{number}"></a>')
    end = text.find(f'<a id="s{number + 1}"></a>', start)
    return text[start : end if end >= 0 else len(text)]


def _table_rows(text: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith("| ") and not line.startswith("|---")
    ]


def test_every_worked_example_of_section_7_is_what_the_service_scores() -> None:
    from quart_bezique.game.scoring import score_hand

    rows = [row for row in _table_rows(_section(7)) if re.fullmatch(r"7\.\d+", row[0])]
    assert [row[0] for row in rows] == [f"7.{i}" for i in range(1, len(rows) + 1)]
    assert len(rows) >= 21
    for number, hand, trump, score, _ in rows:
        result = score_hand(hand.split(), None if trump == "—" else trump)
        assert result.score == int(score), number


def test_the_reason_codes_of_section_9_are_exactly_the_services() -> None:
    from quart_bezique.game.betting import ReasonCode

    text = _section(9)
    reasons = text[text.index('<a id="s9-11"></a>') : text.index('<a id="s9-12"></a>')]
    listed = [row[0].strip("`") for row in _table_rows(reasons)[1:]]
    assert sorted(listed) == sorted(code.value for code in ReasonCode)


def test_the_odds_examples_of_section_12_are_what_the_service_answers() -> None:
    from quart_bezique.game.odds import hand_odds

    one = hand_odds(["KS", "QS", "JS", "JC"], "S")
    two = hand_odds(["KH", "QH", "KD", "10D"], None, ["QS", "JC", "QH", "JD"], 2)
    three = hand_odds(["KS", "QS", "JS", "JC"], None, [], 3)
    text = _section(12).replace(",", "")
    for odds in (one, two):
        assert f"wins {odds.wins} ties {odds.ties} losses {odds.losses} total {odds.total}" in text
    assert f"win {three.win} tie {three.tie} loss {three.loss:g}" in text
    assert (three.samples, three.seed) == (20_000, 0)
