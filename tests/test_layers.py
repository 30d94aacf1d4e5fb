"""The service is built in layers that import in one direction only (``ORDER``, lowest first), so
each can be read, tested and reused without the ones above it: the rules without the web, the
receipts without Flask, the contract without HTTP machinery, the envelope without any endpoint.
Read from the source with ``ast``: an import inside a function counts (a lazy import is still a
dependency), and so does one under ``TYPE_CHECKING``: a signature naming a higher layer's type is
a dependency of the design, mypy follows it, and it is where an upward import usually hides.
Peers share a rank: either may import the other, never both (no cycle between any layers).
And every name imported from ``service`` exists: after a module or a name is deleted, a stale
import only fails when it runs (lazily, or never under ``TYPE_CHECKING``), so the modules are
imported and every such name looked up, in a fresh interpreter."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
SERVICE: Final = ROOT / "service"
PACKAGE: Final = SERVICE / "quart_bezique"
NAME: Final = "quart_bezique"
GUNICORN_CONF: Final = ROOT / "gunicorn.conf.py"

ORDER: Final[tuple[tuple[str, ...], ...]] = (
    ("game",),
    ("records",),
    ("wire",),
    ("library",),
    ("api.config",),
    ("receipts", "integrity"),
    ("api.contract",),
    ("rounds", "vectors", "reconcile"),
    ("api.envelope",),
    ("api.fastpath",),
    ("api.endpoints",),
    ("api.app",),
    ("cli", "server", "wsgi"),
)
"""Lowest first; a module may import its own layer, its peers and the layers before it.
``library`` is ``service/quart_bezique/__init__.py``, the library API over the rules; ``api.config``
is read by everything above it; ``api.app`` assembles the endpoints (the app, the registry, the
OpenAPI builder, the error handlers, ``python -m quart_bezique.api``); cli, server (gunicorn.conf.py
too) and wsgi are the entry points, which nothing imports. ``records`` has no module yet: a package
``service/quart_bezique/records/`` would sit there."""
RANK: Final = {layer: rank for rank, peers in enumerate(ORDER) for layer in peers}
PACKAGES: Final = frozenset(
    {
        "game",
        "records",
        "wire",
        "receipts",
        "integrity",
        "rounds",
        "vectors",
        "reconcile",
        "cli",
        "server",
    }
)
API_LAYERS: Final = frozenset({"contract", "envelope", "fastpath", "endpoints"})
API_APP: Final = frozenset({"app", "registry", "openapi", "errors", "__main__"})


def layer_of(module: str) -> str:
    """The layer of a module, by its dotted name (``gunicorn.conf`` is the server's settings)."""
    parts = module.split(".")
    if module == "gunicorn.conf":
        return "server"
    if parts[0] != NAME:
        raise LookupError(f"{module}: not a module of the service")
    if module == NAME:
        return "library"
    if module == "quart_bezique.__main__":
        return "cli"
    if module == "quart_bezique.wsgi":
        return "wsgi"
    if parts[1] in PACKAGES:
        return parts[1]
    if parts[1] == "api":
        if len(parts) == 2 or parts[2] == "config":
            return "api.config"
        if parts[2] in API_LAYERS:
            return f"api.{parts[2]}"
        if parts[2] in API_APP:
            return "api.app"
    raise LookupError(f"{module}: in no layer (place it in ORDER)")


# ------------------------------------------------------------------------------ reading imports


@dataclass(frozen=True)
class Source:
    module: str
    text: str
    package: bool
    """An ``__init__.py``: its relative imports start from itself."""
    path: str


@dataclass(frozen=True)
class Import:
    """One name imported by ``source`` (line ``line``) from ``module``: ``name`` is None for an
    ``import module`` statement."""

    source: str
    line: int
    module: str
    name: str | None
    type_only: bool


def _module_of(path: Path) -> str:
    if path == GUNICORN_CONF:
        return "gunicorn.conf"
    return ".".join(path.relative_to(SERVICE).with_suffix("").parts).removesuffix(".__init__")


@cache
def service_sources() -> tuple[Source, ...]:
    """Every module of ``service/``, and gunicorn.conf.py."""
    return tuple(
        Source(
            _module_of(p),
            p.read_text(encoding="utf-8"),
            p.name == "__init__.py",
            p.relative_to(ROOT).as_posix(),
        )
        for p in (*sorted(PACKAGE.rglob("*.py")), GUNICORN_CONF)
    )


@cache
def known_modules() -> frozenset[str]:
    return frozenset(s.module for s in service_sources() if s.module != "gunicorn.conf")


def _type_only_nodes(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in (
            "TYPE_CHECKING",
            "typing.TYPE_CHECKING",
        ):
            for child in node.body:
                found.update(id(n) for n in ast.walk(child))
    return found


def imports_of(source: Source) -> list[Import]:
    """Every import statement of ``source``, wherever it is, relative ones made absolute."""
    tree = ast.parse(source.text)
    type_only = _type_only_nodes(tree)
    package = source.module if source.package else source.module.rpartition(".")[0]
    found: list[Import] = []
    for node in ast.walk(tree):
        typed = id(node) in type_only
        if isinstance(node, ast.Import):
            found.extend(
                Import(source.module, node.lineno, alias.name, None, typed) for alias in node.names
            )
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.extend(
                Import(source.module, node.lineno, module, alias.name, typed)
                for alias in node.names
            )
    return found


def target_of(imported: Import, known: frozenset[str]) -> str | None:
    """The service module an import loads: the submodule it names, else the longest known
    prefix of its module (None outside the service, or for a module that does not exist)."""
    if imported.name is not None and f"{imported.module}.{imported.name}" in known:
        return f"{imported.module}.{imported.name}"
    parts = imported.module.split(".")
    while parts:
        if ".".join(parts) in known:
            return ".".join(parts)
        parts.pop()
    return None


@dataclass(frozen=True)
class Edge:
    """An import from one layer into another."""

    source: str
    target: str
    line: int
    type_only: bool

    def __str__(self) -> str:
        typed = " (TYPE_CHECKING)" if self.type_only else ""
        return (
            f"{self.source} ({layer_of(self.source)}) line {self.line} imports {self.target} "
            f"({layer_of(self.target)}){typed}"
        )


def edges(found: Iterable[Source], known: frozenset[str]) -> list[Edge]:
    """The imports of ``found`` that cross from one layer into another."""
    crossing = []
    for source in found:
        for imported in imports_of(source):
            target = target_of(imported, known)
            if target is None or layer_of(target) == layer_of(source.module):
                continue
            crossing.append(Edge(source.module, target, imported.line, imported.type_only))
    return crossing


def upward(crossing: Iterable[Edge]) -> list[str]:
    return [str(e) for e in crossing if RANK[layer_of(e.target)] > RANK[layer_of(e.source)]]


def cycles(crossing: Sequence[Edge]) -> list[list[str]]:
    """The cycles of the graph of layers (each once, as the layers it passes through)."""
    graph: dict[str, set[str]] = {}
    for edge in crossing:
        graph.setdefault(layer_of(edge.source), set()).add(layer_of(edge.target))
    found: list[list[str]] = []
    seen: set[frozenset[str]] = set()

    def walk(path: list[str]) -> None:
        for nxt in sorted(graph.get(path[-1], ())):
            if nxt == path[0]:
                if frozenset(path) not in seen:
                    seen.add(frozenset(path))
                    found.append([*path, nxt])
            elif nxt not in path and nxt > path[0]:
                walk([*path, nxt])

    for start in sorted(graph):
        walk([start])
    return found


# ------------------------------------------------------------------------------ the service


def test_every_module_is_in_a_layer() -> None:
    unplaced = []
    for source in service_sources():
        try:
            layer_of(source.module)
        except LookupError as error:
            unplaced.append(str(error))
    assert unplaced == []
    assert {"game", "wire", "api.app", "server"} <= {layer_of(s.module) for s in service_sources()}


def test_imports_point_down_the_layers() -> None:
    assert upward(edges(service_sources(), known_modules())) == []


def test_no_cycle_between_layers() -> None:
    assert cycles(edges(service_sources(), known_modules())) == []


def test_the_layers_are_placed_as_designed() -> None:
    """A few placements the order above depends on, spelled out."""
    assert layer_of("quart_bezique") == "library"
    assert layer_of("quart_bezique.api") == layer_of("quart_bezique.api.config") == "api.config"
    assert (
        layer_of("quart_bezique.api.registry") == layer_of("quart_bezique.api.openapi") == "api.app"
    )
    assert (
        layer_of("quart_bezique.api.errors") == layer_of("quart_bezique.api.__main__") == "api.app"
    )
    assert layer_of("quart_bezique.__main__") == "cli"
    assert layer_of("gunicorn.conf") == "server"
    assert RANK["receipts"] == RANK["integrity"] < RANK["api.contract"]
    assert RANK["wire"] < RANK["receipts"] and RANK["api.config"] < RANK["api.contract"]


# ------------------------------------------------------------------------------ the checker


def _edges_of(*modules: tuple[str, str]) -> list[Edge]:
    """The crossing imports of made-up modules, given as (name, source text)."""
    made = [Source(name, text, False, name) for name, text in modules]
    known = known_modules() | {name for name, _ in modules}
    return edges(made, known)


def test_the_checker_sees_an_upward_import_wherever_it_is() -> None:
    found = upward(
        _edges_of(
            ("quart_bezique.api.envelope.made", "from quart_bezique.api.endpoints import hands\n"),
            ("quart_bezique.receipts.made", "def f():\n    from quart_bezique.api import app\n"),
            (
                "quart_bezique.wire.made",
                "if TYPE_CHECKING:\n    import quart_bezique.api.contract.checks\n",
            ),
            ("quart_bezique.api.contract.made", "from ..fastpath.batch import judge_hands\n"),
            ("quart_bezique.game.made", "from quart_bezique import score_hand\n"),
        )
    )
    assert found == [
        "quart_bezique.api.envelope.made (api.envelope) line 1 imports "
        "quart_bezique.api.endpoints.hands (api.endpoints)",
        "quart_bezique.receipts.made (receipts) line 2 imports quart_bezique.api.app (api.app)",
        "quart_bezique.wire.made (wire) line 2 imports quart_bezique.api.contract.checks "
        "(api.contract) (TYPE_CHECKING)",
        "quart_bezique.api.contract.made (api.contract) line 1 imports "
        "quart_bezique.api.fastpath.batch (api.fastpath)",
        "quart_bezique.game.made (game) line 1 imports quart_bezique (library)",
    ]


def test_the_checker_lets_imports_point_down_and_across_peers() -> None:
    crossing = _edges_of(
        ("quart_bezique.api.endpoints.made", "from quart_bezique.wire.canonical import form_of\n"),
        ("quart_bezique.receipts.made", "from quart_bezique.integrity import build_digest\n"),
        ("quart_bezique.cli.made", "from quart_bezique import score_hand\n"),
    )
    assert len(crossing) == 3
    assert upward(crossing) == []
    assert cycles(crossing) == []


def test_the_checker_sees_a_cycle_between_peers() -> None:
    crossing = _edges_of(
        ("quart_bezique.receipts.made", "from quart_bezique.integrity import build_digest\n"),
        ("quart_bezique.integrity.made", "from quart_bezique.receipts.header import Reason\n"),
    )
    assert upward(crossing) == []
    assert cycles(crossing) == [["integrity", "receipts", "integrity"]]


# ------------------------------------------------------------------------------ stale names

CHECK = """
import importlib, importlib.util, json, sys

modules, names = json.loads(sys.stdin.read())
problems = []


def load(module):
    try:
        return importlib.import_module(module)
    except Exception as error:
        problems.append(f"import {module}: {type(error).__name__}: {error}")
        return None


for module in modules:
    found = load(module)
    for name in getattr(found, "__all__", ()):
        if not hasattr(found, name):
            problems.append(f"{module}.__all__ names {name!r}, which it does not have")
for where, module, name in names:
    found = load(module)
    if found is None or name is None or hasattr(found, name):
        continue
    if hasattr(found, "__path__") and importlib.util.find_spec(f"{module}.{name}") is not None:
        continue
    problems.append(f"{where}: {module} has no {name!r}")
print("PROBLEMS " + json.dumps(problems))
"""


def unresolved(modules: Sequence[str], names: Sequence[tuple[str, str, str | None]]) -> list[str]:
    """Imports each module and looks each (where, module, name) up, in a fresh interpreter (the
    tables are not built: importing ``quart_bezique.wsgi`` creates an app)."""
    env = {**os.environ, "BUILD_TABLES": "false"}
    done = subprocess.run(
        [sys.executable, "-c", CHECK],
        input=json.dumps([list(modules), list(names)]),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=True,
        timeout=300,
    )
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("PROBLEMS ")]
    problems: list[str] = json.loads(line.removeprefix("PROBLEMS "))
    return problems


def service_names() -> list[tuple[str, str, str | None]]:
    """Every (where, module, name) imported from the service (by gunicorn.conf.py too)."""
    return [
        (f"{source.path}:{imported.line}", imported.module, imported.name)
        for source in service_sources()
        for imported in imports_of(source)
        if imported.module == NAME or imported.module.startswith(NAME + ".")
    ]


def test_every_module_imports_and_every_imported_name_exists() -> None:
    modules = sorted(known_modules())
    names = service_names()
    assert len(modules) > 100 and len(names) > 300
    assert unresolved(modules, names) == []


def test_the_name_check_sees_deleted_modules_and_names() -> None:
    found = unresolved(
        ["quart_bezique.api.fastpath.shortcut"],
        [
            ("a.py:1", "quart_bezique.api.endpoints.batch_text", None),
            ("a.py:2", "quart_bezique.api.envelope.audit", "KINDS"),
            ("a.py:3", "quart_bezique.api.envelope", "body"),
            ("a.py:4", "quart_bezique.receipts", "request_digest"),
        ],
    )
    assert [p.split(":")[0] for p in found] == [
        "import quart_bezique.api.fastpath.shortcut",
        "import quart_bezique.api.endpoints.batch_text",
        "a.py",
    ]
    assert found[2] == "a.py:2: quart_bezique.api.envelope.audit has no 'KINDS'"
