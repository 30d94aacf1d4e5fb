"""The layers of ``service/api`` import in one direction only:

    game <- contract <- envelope <- fastpath <- endpoints <- app (app, registry, openapi, errors)

The contract knows nothing of HTTP machinery; the envelope never imports an endpoint (it learns
about routes from the records the app hands it); nothing imports the app but its entry points.
Checked on the source's import statements, so a lazy import inside a function counts too."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

import pytest

API: Final = Path(__file__).resolve().parents[2] / "service" / "api"
LAYERS: Final = ("contract", "envelope", "fastpath", "endpoints", "app")
"""Lowest first: a module may import its own layer and the layers before it."""
APP_MODULES: Final = frozenset({"app", "registry", "openapi", "errors", "__main__", "wsgi"})
BASE: Final = frozenset({"config", "__init__"})
"""Read by every layer: the configuration (itself importing nothing of the layers)."""


def _layer(module: str) -> str:
    """``service.api.envelope.audit`` -> envelope; ``service.api.app`` -> app."""
    parts = module.split(".")
    assert parts[:2] == ["service", "api"], module
    if len(parts) == 2 or parts[2] in BASE:
        return "base"
    if parts[2] in LAYERS:
        return parts[2]
    assert parts[2] in APP_MODULES, f"{module}: a module outside the layers"
    return "app"


def _module_of(path: Path) -> str:
    relative = path.relative_to(API.parents[1]).with_suffix("")
    return ".".join(relative.parts).removesuffix(".__init__")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    package = (
        _module_of(path) if path.name == "__init__.py" else _module_of(path).rpartition(".")[0]
    )
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("service.api.") or name == "service.api"}


def _rank(layer: str) -> int:
    return -1 if layer == "base" else LAYERS.index(layer)


MODULES: Final = sorted(API.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(API)))
def test_imports_point_down_the_layers(path: Path) -> None:
    here = _layer(_module_of(path))
    for name in _imports(path):
        target = _existing(name)
        if target is None:
            continue
        there = _layer(target)
        assert _rank(there) <= max(_rank(here), -1) or here == "app", (
            f"{_module_of(path)} ({here}) imports {target} ({there})"
        )
        if here == "base":
            assert there == "base", f"{_module_of(path)} imports {target}"


def _existing(name: str) -> str | None:
    """The module ``name`` is (or whose attribute it is), if it is a module of the layers."""
    parts = name.split(".")
    while len(parts) > 2:
        candidate = API.parents[1].joinpath(*parts)
        if candidate.with_suffix(".py").exists() or (candidate / "__init__.py").exists():
            return ".".join(parts)
        parts.pop()
    return None


def test_every_module_belongs_to_a_layer() -> None:
    layers = {_layer(_module_of(path)) for path in MODULES}
    assert layers == {"base", *LAYERS}


def test_the_checker_sees_a_wrong_way_import(tmp_path: Path) -> None:
    """The test above can fail: an envelope module importing an endpoint is caught."""
    module = API / "envelope" / "routes.py"
    assert _layer(_module_of(module)) == "envelope"
    assert _rank(_layer("service.api.endpoints.hands")) > _rank("envelope")
    bad = tmp_path / "bad.py"
    bad.write_text("from service.api.endpoints import hands\n")
    tree_imports = _imports_text(bad)
    assert "service.api.endpoints.hands" in tree_imports


def _imports_text(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found
