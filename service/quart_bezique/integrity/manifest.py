"""The build manifest: every file whose bytes can run, as digests an outsider can recompute.

Regulated gaming asks that the software deciding outcomes be authenticated by a digest an
independent party recomputes from the files it was given. Python runs bytecode in place of a
source whose header it matches, so bytecode, the gunicorn configuration, the installed
dependencies and the interpreter (version and implementation: CPython and PyPy may answer
differently) are part of the build like the sources (``docs/verification.md``, "What the digest
covers"). The same manifest comes from the running process (``installed_manifest``, which refuses
when a loaded module ran from a file outside it) and from a tree such as an image's
``site-packages`` (``tree_manifest``), so the two can be compared.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Final

FORMAT: Final = "quart-bezique-manifest/3"
"""The manifest's layout; ``/3`` added ``implementation``, so no digest of an older layout can
equal one of this."""
DISTRIBUTION: Final = "quart-bezique"
PACKAGE: Final = "quart_bezique"
CONFIG: Final = "gunicorn.conf.py"
"""The gunicorn configuration, beside the package (the image keeps a copy there)."""
SOURCE_FOLDER: Final = "service"
"""The folder of a source checkout that holds the package (beside pyproject.toml)."""
CONFIG_MODULE: Final = "__config__"
"""The name gunicorn gives the configuration file it executes (``sys.modules``)."""
SERVER_EXTRA: Final = "server"
"""The extra the image installs (``'.[server]'``): its requirements are the web stack."""
UNKNOWN_VERSION: Final = "0+unknown"
PYVENV: Final = "pyvenv.cfg"
RUNNING_IMPLEMENTATION: Final = "sys.implementation of this interpreter"
"""Where a running process reads its implementation (``Manifest.implementation_from``)."""
_NAME: Final = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")
_EXTRA: Final = re.compile(r"""\bextra\s*==\s*["']([^"']*)["']""")
_STARTUP_HOOKS: Final = ("sitecustomize.py", "usercustomize.py")
RULESET_FILE: Final = "game/ruleset.py"


class ManifestError(ValueError):
    """The tree cannot be described (no ``service`` package, no distribution metadata), or the
    running process runs code the manifest does not cover."""


@dataclass(frozen=True, slots=True)
class Manifest:
    """What a build is made of; ``digest`` is the build digest."""

    version: str
    ruleset: str
    """``RULESET_NAME/RULESET_VERSION`` as the tree's ``service/quart_bezique/game/ruleset.py`` sets
    them."""
    python: str | None
    """The interpreter's version (``3.11.7``); for a tree, its ``pyvenv.cfg``'s (None: none)."""
    implementation: str | None
    """The interpreter's implementation and its version to the minor, as an extension module's
    filename tag gives them (``cpython 3.11``, ``pypy 7.3``); for a tree, read from its
    ``pyvenv.cfg`` or its extension modules' tags (``implementation_of``; None: unknown)."""
    files: Mapping[str, str]
    """Relative path (``service/...``, ``flask/...``, ``gunicorn.conf.py``) to its SHA-256."""
    dependencies: Mapping[str, str | None]
    """Runtime dependency (normalised name) to its installed version (None: missing)."""
    located: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    """Absolute path of each file to its key in ``files``: not part of the digest."""
    implementation_from: str = field(default="", compare=False)
    """Where ``implementation`` was read, in words (this interpreter, ``pyvenv.cfg``, the
    extension modules' tags, or why it is unknown): not part of the digest."""

    def canonical(self) -> bytes:
        """The bytes the build digest is taken over (``docs/verification.md``)."""
        document = {
            "dependencies": dict(self.dependencies),
            "files": dict(self.files),
            "format": FORMAT,
            "implementation": self.implementation,
            "python": self.python,
            "ruleset": self.ruleset,
            "version": self.version,
        }
        return json.dumps(
            document, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode("utf-8")

    @property
    def digest(self) -> str:
        """The build digest: SHA-256 (hex) of ``canonical()``."""
        return hashlib.sha256(self.canonical()).hexdigest()


def normalise(name: str) -> str:
    """PEP 503 normal form, so ``PyYAML`` and ``pyyaml`` are one dependency."""
    return re.sub(r"[-_.]+", "-", name).lower()


def file_digest(path: str | Path) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


class _Files:
    """Relative key to absolute path, gathered before anything is hashed (a key seen twice is
    one file: the package walk and its distribution's RECORD name the same paths)."""

    def __init__(self) -> None:
        self.paths: dict[str, str] = {}

    def add(self, key: str, path: str) -> None:
        self.paths.setdefault(key, path)

    def walk(self, base: str, top: str) -> None:
        """Every file under ``base/top``, bytecode and data included."""
        pending = [top]
        while pending:
            relative = pending.pop()
            try:
                entries = list(os.scandir(os.path.join(base, relative)))
            except OSError:
                continue
            for entry in entries:
                key = f"{relative}/{entry.name}"
                if entry.is_dir():
                    pending.append(key)
                elif entry.is_file():
                    self.add(key, entry.path)

    def bytecode_of(self, base: str, source: str) -> None:
        """The ``__pycache__`` files of a top-level module ``source`` (any interpreter's)."""
        stem = source[: -len(".py")]
        cache = os.path.join(base, "__pycache__")
        try:
            names = sorted(os.listdir(cache))
        except OSError:
            return
        for name in names:
            if name.startswith(stem + ".") and name.endswith(".pyc"):
                self.add(f"__pycache__/{name}", os.path.join(cache, name))

    def hashed(self) -> tuple[dict[str, str], dict[str, str]]:
        files = {key: file_digest(path) for key, path in sorted(self.paths.items())}
        located = {os.path.abspath(path): key for key, path in self.paths.items()}
        return files, located


def ruleset_of(root: Path) -> str:
    """The ruleset the tree's code implements, read from its ``ruleset.py`` without importing it
    (a tree under inspection is data, not code to run): ``RULESET_NAME/RULESET_VERSION``."""
    path = root / PACKAGE / RULESET_FILE
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        raise ManifestError(f"{path} cannot be read as Python") from None
    values: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign) and isinstance(node.value, ast.Constant):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    values[target.id] = node.value.value
    name, version = values.get("RULESET_NAME"), values.get("RULESET_VERSION")
    if not isinstance(name, str) or not isinstance(version, int):
        raise ManifestError(f"{path} does not set RULESET_NAME and RULESET_VERSION literally")
    return f"{name}/{version}"


def _pyvenv(root: Path) -> dict[str, str]:
    """The settings of the ``pyvenv.cfg`` of the virtual environment holding the tree ``root``
    (``<venv>/lib/pythonX.Y/site-packages``); empty without one."""
    if len(root.parents) < 3:
        return {}
    try:
        text = (root.parents[2] / PYVENV).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return {}
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip()] = value.strip()
    return values


def python_of(root: Path) -> str | None:
    """The Python version of the virtual environment holding the tree ``root``: its
    ``pyvenv.cfg``'s, or None without one."""
    values = _pyvenv(root)
    version = values.get("version") or values.get("version_info")  # virtualenv: 3.11.7.final.0
    return ".".join(version.split(".")[:3]) if version else None


def running_python() -> str:
    """This interpreter's version as ``pyvenv.cfg`` says it (``3.11.7``)."""
    return "{}.{}.{}".format(*sys.version_info[:3])


def running_implementation() -> str:
    """This interpreter's implementation as the manifest names it: ``sys.implementation``'s name
    and version to the minor (``cpython 3.11``, ``pypy 7.3``), all a tree's files can show."""
    version = sys.implementation.version
    return f"{sys.implementation.name} {version.major}.{version.minor}"


_EXTENSION: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\.(?P<tag>[A-Za-z0-9_-]+)\.(?:so|pyd)")
"""An extension module's file name: ``<module>.<tag>.so`` (``.pyd`` on Windows)."""
_IMPLEMENTATION_TAGS: Final = (
    # cpython-311-x86_64-linux-gnu, cpython-311-darwin, cpython-313t-x86_64-linux-gnu
    ("cpython", re.compile(r"cpython-(\d)(\d+)[a-z]*(?:-[A-Za-z0-9_-]+)?")),
    ("cpython", re.compile(r"cp(\d)(\d+)[a-z]*-[A-Za-z0-9_-]+")),  # cp311-win_amd64
    ("pypy", re.compile(r"pypy\d+-pp(\d)(\d+)-[A-Za-z0-9_-]+")),  # pypy39-pp73-x86_64-linux-gnu
)


def tagged_implementation(name: str) -> str | None:
    """The implementation an extension module's file ``name`` was built for, as
    ``running_implementation`` names it (``orjson.cpython-311-x86_64-linux-gnu.so``:
    ``cpython 3.11``); None for any other file, and for a module of the stable ABI
    (``_rust.abi3.so``), which names no implementation."""
    found = _EXTENSION.fullmatch(name)
    if found is None:
        return None
    for implementation, tag in _IMPLEMENTATION_TAGS:
        version = tag.fullmatch(found.group("tag"))
        if version is not None:
            return f"{implementation} {version.group(1)}.{version.group(2)}"
    return None


def implementation_of(root: Path, files: Iterable[str]) -> tuple[str | None, str]:
    """The implementation that runs the tree ``root`` whose files are ``files`` (keys of
    ``Manifest.files``), and where it was read: the ``implementation`` of its ``pyvenv.cfg``
    (virtualenv and uv write one; for CPython its ``version`` gives the minor), else the tag of
    its extension modules when they all name one (``cpython-311-x86_64-linux-gnu``: what the
    interpreter loads). None when neither says, or the tags disagree."""
    values = _pyvenv(root)
    written = values.get("implementation", "")
    named = written.lower()
    python = python_of(root)
    if named == "cpython" and python is not None:
        major, minor = python.split(".")[:2]
        return (
            f"cpython {major}.{minor}",
            f"{PYVENV}: implementation = {written}, version = {python}",
        )
    tagged: dict[str, list[str]] = {}
    for key in sorted(files):
        implementation = tagged_implementation(key.rpartition("/")[2])
        if implementation is not None:
            tagged.setdefault(implementation, []).append(key)
    if named:
        kept = {k: v for k, v in tagged.items() if k.partition(" ")[0] == named}
        if not kept:
            others = f" (they are for {_some(tagged)})" if tagged else ""
            return None, (
                f"unknown: {PYVENV} names {written} but not its version, and no extension "
                f"module is tagged for it{others}"
            )
        tagged = kept
    if len(tagged) == 1:
        ((implementation, keys),) = tagged.items()
        found = _EXTENSION.fullmatch(keys[0].rpartition("/")[2])
        tag = found.group("tag") if found is not None else keys[0]
        count = f"{len(keys)} file{'s' if len(keys) > 1 else ''}"
        return implementation, f"the extension modules' filename tags: {tag} on {count}"
    if tagged:
        return None, f"unknown: the extension modules are tagged for {_some(tagged)}"
    return None, f"unknown: no implementation in {PYVENV} and no extension module tagged with one"


_PYTHON_MARKER: Final = re.compile(
    r"""\s*(python_version|python_full_version)\s*(<=|>=|==|!=|<|>)\s*["']([0-9.]+)["']\s*"""
)


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def _python_marker(marker: str, python: str | None) -> bool | None:
    """A marker made only of Python-version comparisons joined by ``and``, judged for
    ``python``; None for any other marker (or an unknown Python)."""
    if python is None or not marker.strip():
        return None
    result = True
    for clause in re.split(r"\band\b", marker):
        match = _PYTHON_MARKER.fullmatch(clause)
        if match is None:
            return None
        name, operator, wanted = match.groups()
        have = _release(python)[: 2 if name == "python_version" else 3]
        bound = _release(wanted)
        result = (
            result
            and {
                "<": have < bound,
                "<=": have <= bound,
                ">": have > bound,
                ">=": have >= bound,
                "==": have == bound,
                "!=": have != bound,
            }[operator]
        )
    return result


def _requirements(
    distribution: metadata.Distribution, extras: frozenset[str], python: str | None
) -> list[str]:
    """The normalised name of each requirement outside other extras and not excluded by a
    Python-version marker, marked ``?`` when it has another marker: only an installed one then
    counts (no general marker evaluator here: ``colorama`` is for Windows, and the tree's own
    files say whether it is there)."""
    found = []
    for requirement in distribution.requires or ():
        spec, _, marker = requirement.partition(";")
        extra = _EXTRA.search(marker)
        if extra is not None:
            if normalise(extra.group(1)) not in extras:
                continue
            marker = ""  # our own server extra: as if unconditional
        judged = _python_marker(marker, python)
        if judged is False:
            continue
        match = _NAME.match(spec)
        if match is not None:
            conditional = judged is None and bool(marker.strip())
            found.append(("?" if conditional else "") + normalise(match.group(1)))
    return found


def _find(name: str, path: list[str] | None) -> metadata.Distribution | None:
    """The first distribution called ``name`` on ``path`` (``sys.path`` when None)."""
    found = (
        metadata.distributions(name=name)
        if path is None
        else metadata.distributions(name=name, path=path)
    )
    return next(iter(found), None)


def _closure(
    own: metadata.Distribution, path: list[str] | None, python: str | None
) -> tuple[dict[str, str | None], list[metadata.Distribution]]:
    """The runtime dependencies, transitively: ours with the server extra, theirs without
    extras, for the Python the manifest names (``_requirements``)."""
    versions: dict[str, str | None] = {}
    found: list[metadata.Distribution] = []
    pending = _requirements(own, frozenset({SERVER_EXTRA}), python)
    while pending:
        wanted = pending.pop(0)
        conditional, name = wanted.startswith("?"), wanted.lstrip("?")
        if name in versions or name == DISTRIBUTION:
            continue
        distribution = _find(name, path)
        if distribution is None:
            if not conditional:
                versions[name] = None
            continue
        versions[name] = distribution.version
        found.append(distribution)
        pending.extend(_requirements(distribution, frozenset(), python))
    return dict(sorted(versions.items())), found


def _distribution_files(files: _Files, distribution: metadata.Distribution) -> list[str]:
    """Every file of an installed distribution: what its RECORD lists, everything under the
    top-level directories it installed (bytecode and files added later included) and the
    bytecode of its top-level modules. Returns its top-level import names."""
    base = str(distribution.locate_file(""))
    tops: set[str] = set()
    for entry in distribution.files or ():
        relative = entry.as_posix()
        parts = relative.split("/")
        if parts[0] == "..":  # a console script in the environment's bin/
            path = os.path.normpath(os.path.join(base, relative))
            if os.path.isfile(path):
                files.add(os.path.normpath(relative).replace(os.sep, "/"), path)
            continue
        if parts[0] == "__pycache__" or parts[0] == "":
            continue
        tops.add(parts[0])
    names = []
    for top in sorted(tops):
        path = os.path.join(base, top)
        if os.path.isdir(path):
            files.walk(base, top)
            if not top.endswith((".dist-info", ".egg-info", ".data")):
                names.append(top)
        elif os.path.isfile(path):
            files.add(top, path)
            names.append(top.split(".")[0])
            if top.endswith(".py"):
                files.bytecode_of(base, top)
    return names


def _startup_hooks(base: str) -> list[str]:
    """Files the interpreter runs at start from a site-packages: ``*.pth`` lines, customize."""
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []
    return [os.path.join(base, n) for n in names if n.endswith(".pth") or n in _STARTUP_HOOKS]


def _config_files(files: _Files, config: Path) -> None:
    """The gunicorn configuration and any bytecode of it beside it (``__pycache__``)."""
    if not config.is_file():
        return
    files.add(CONFIG, os.fspath(config))
    cache = config.parent / "__pycache__"
    stem = config.name[: -len(".py")] + "."
    if cache.is_dir():
        for pyc in sorted(cache.iterdir()):
            if pyc.name.startswith(stem) and pyc.name.endswith(".pyc"):
                files.add(f"__pycache__/{pyc.name}", os.fspath(pyc))


@dataclass(frozen=True, slots=True)
class _Described:
    manifest: Manifest
    modules: frozenset[str]
    """Top-level import names the manifest's files provide (``service``, ``flask``, ...)."""


Identify = Callable[[Iterable[str]], tuple[str | None, str]]
"""Names a manifest's implementation from its files' keys, and says where it was read."""


def _running_identity(files: Iterable[str]) -> tuple[str, str]:
    """This interpreter's implementation, whatever the files say: it is the one running them."""
    version = ".".join(str(part) for part in sys.implementation.version[:3])
    return (
        running_implementation(),
        f"{RUNNING_IMPLEMENTATION}: {sys.implementation.name} {version}",
    )


def _describe(
    root: Path, path: list[str] | None, config: Path, python: str | None, identify: Identify
) -> _Described:
    if not (root / PACKAGE / "__init__.py").is_file():
        raise ManifestError(f"{root} holds no {PACKAGE!r} package ({root / PACKAGE}/__init__.py)")
    own = _find(DISTRIBUTION, path)
    if own is None:
        where = "this environment" if path is None else str(root)
        raise ManifestError(f"no {DISTRIBUTION} distribution metadata (*.dist-info) in {where}")
    files = _Files()
    files.walk(os.fspath(root), PACKAGE)
    _config_files(files, config)
    dependencies, installed = _closure(own, path, python)
    modules = {PACKAGE}
    bases = set()
    for distribution in (own, *installed):
        modules.update(_distribution_files(files, distribution))
        bases.add(str(distribution.locate_file("")))
    for base in sorted(bases):
        for hook in _startup_hooks(base):
            files.add(os.path.basename(hook), hook)
    hashed, located = files.hashed()
    implementation, implementation_from = identify(hashed)
    manifest = Manifest(
        version=own.version or UNKNOWN_VERSION,
        ruleset=ruleset_of(root),
        python=python,
        implementation=implementation,
        files=hashed,
        dependencies=dependencies,
        located=located,
        implementation_from=implementation_from,
    )
    return _Described(manifest, frozenset(modules))


def _running_config(root: Path) -> Path:
    """The configuration gunicorn executed in this process, else the one beside ``service/``."""
    loaded = getattr(sys.modules.get(CONFIG_MODULE), "__file__", None)
    return Path(os.path.abspath(loaded)) if isinstance(loaded, str) else config_of(root)


def unmanifested(
    manifest: Manifest, modules: Iterable[str], loaded: Mapping[str, object]
) -> list[str]:
    """Loaded modules of the manifest's packages whose code came from a file it does not list:
    a source elsewhere, or bytecode read from outside it (``PYTHONPYCACHEPREFIX``)."""
    scope = frozenset(modules)
    resolved: dict[str, str] | None = None
    problems = []
    for name, module in sorted(loaded.items()):
        if name.partition(".")[0] not in scope and name != CONFIG_MODULE:
            continue
        candidates = [getattr(module, "__file__", None)]
        cached = getattr(module, "__cached__", None)
        if isinstance(cached, str) and os.path.isfile(cached):
            candidates.append(cached)
        for path in candidates:
            if not isinstance(path, str) or os.path.abspath(path) in manifest.located:
                continue
            if resolved is None:
                resolved = {os.path.realpath(p): k for p, k in manifest.located.items()}
            if os.path.realpath(path) not in resolved:
                problems.append(f"{name} ran from {path}")
    return problems


def config_of(root: Path) -> Path:
    """The gunicorn configuration of the tree at ``root``: beside the package when installed (the
    image copies it there), at the top of a source checkout, whose package sits in ``service/``."""
    beside = root / CONFIG
    above = root.parent / CONFIG
    if not beside.is_file() and root.name == SOURCE_FOLDER and above.is_file():
        return above
    return beside


def installed_root() -> Path:
    """The directory holding the ``service`` package this process runs."""
    return Path(__file__).resolve().parent.parent.parent


def running_manifest(root: Path) -> Manifest:
    """The manifest of the code at ``root`` and of the dependencies this process imports, with
    the gunicorn configuration it executed; not checked against what is loaded."""
    config = _running_config(root)
    return _describe(root, None, config, running_python(), _running_identity).manifest


def installed_manifest() -> Manifest:
    """The manifest of the running code; ``ManifestError`` when a module of the manifest's
    packages (or gunicorn's configuration) was loaded from a file the manifest does not list."""
    root = installed_root()
    described = _describe(root, None, _running_config(root), running_python(), _running_identity)
    problems = unmanifested(described.manifest, described.modules, dict(sys.modules))
    if problems:
        raise ManifestError(
            "the running code is not the manifested code: " + "; ".join(problems[:5])
        )
    return described.manifest


def tree_manifest(root: Path) -> Manifest:
    """The manifest of a directory tree holding ``service/`` and the ``*.dist-info`` metadata
    (an image's ``site-packages``): independent of whatever this process has installed."""
    return _describe(
        root,
        [os.fspath(root)],
        config_of(root),
        python_of(root),
        lambda files: implementation_of(root, files),
    ).manifest


def _some(names: Iterable[str], shown: int = 3) -> str:
    listed = sorted(names)
    more = f", and {len(listed) - shown} more" if len(listed) > shown else ""
    return ", ".join(listed[:shown]) + more


def differences(mine: Manifest, theirs: Manifest) -> list[str]:
    """What makes ``mine`` another build than ``theirs``, one part per line, in words: the
    version, ruleset, Python or its implementation (with where each side's was read), each
    dependency's version, and the files (only in one of them, or with other bytes). Empty when
    the digests are equal."""
    found = [
        f"{name}: {getattr(mine, name)} here, {getattr(theirs, name)} there"
        for name in ("version", "ruleset", "python")
        if getattr(mine, name) != getattr(theirs, name)
    ]
    if mine.implementation != theirs.implementation:

        def read(manifest: Manifest) -> str:
            where = manifest.implementation_from
            return f"{manifest.implementation}" + (f" ({where})" if where else "")

        found.append(f"implementation: {read(mine)} here, {read(theirs)} there")

    def installed(deps: Mapping[str, str | None], name: str) -> str:
        if name not in deps:
            return "unlisted"
        return deps[name] or "missing"

    changed = [
        f"{n} {installed(mine.dependencies, n)} here, {installed(theirs.dependencies, n)} there"
        for n in sorted(set(mine.dependencies) | set(theirs.dependencies))
        if installed(mine.dependencies, n) != installed(theirs.dependencies, n)
    ]
    if changed:
        found.append("dependencies: " + "; ".join(changed))
    only_mine = set(mine.files) - set(theirs.files)
    only_theirs = set(theirs.files) - set(mine.files)
    other = {k for k in set(mine.files) & set(theirs.files) if mine.files[k] != theirs.files[k]}
    parts = [
        f"{len(keys)} {label} ({_some(keys)})"
        for keys, label in (
            (only_mine, "only here"),
            (only_theirs, "only there"),
            (other, "with other bytes"),
        )
        if keys
    ]
    if parts:
        found.append("files: " + "; ".join(parts))
    return found


def source_checkout(root: Path) -> bool:
    """Whether ``root`` is a source checkout's package folder (``service/`` beside
    ``pyproject.toml``) rather than an installed ``site-packages``."""
    return root.name == SOURCE_FOLDER and (root.parent / "pyproject.toml").is_file()
