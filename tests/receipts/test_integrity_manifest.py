"""The build manifest: one digest per build, the same from the running process and from the
files, moved by any change to what can run -- sources, bytecode, data, the gunicorn
configuration, the dependencies' files and versions, the Python version and implementation, the
ruleset -- and the running process refusing to describe itself when a loaded module ran from
outside it."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import py_compile
import subprocess
import sys
import types
from dataclasses import replace
from pathlib import Path

import pytest
from quart_bezique.integrity import (
    FORMAT,
    ManifestError,
    build_digest,
    current_manifest,
    installed_root,
    running_manifest,
    tree_manifest,
)
from quart_bezique.integrity import manifest as manifest_module
from quart_bezique.integrity.manifest import (
    config_of,
    differences,
    running_implementation,
    running_python,
    tagged_implementation,
)

from tests.receipts.tree_support import (
    HONEST,
    RENDER,
    TAMPERED,
    dist_info,
    installed_tree,
    site_packages,
    timestamp_pyc,
    venv_site_packages,
    write_pyvenv,
)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_installed_root_holds_the_running_package() -> None:
    assert (installed_root() / "quart_bezique" / "integrity" / "manifest.py").is_file()


def test_cached_once_per_process() -> None:
    assert current_manifest() is current_manifest()
    assert build_digest() == current_manifest().digest


@pytest.fixture(scope="module")
def copied(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This installation's files, as an image holds them (``site-packages`` of a venv)."""
    return installed_tree(tmp_path_factory.mktemp("image") / "venv")


def test_running_and_tree_manifests_agree(copied: Path) -> None:
    """Computed now, as the copy was: the process's cached manifest is from its first use, and
    a test run may have added or removed a file since (the service's never changes in an image)."""
    running = manifest_module.installed_manifest()
    from_files = tree_manifest(copied)  # the copy's files and metadata only
    assert from_files == running
    assert from_files.digest == running.digest
    assert running.python == running_python()
    assert running.implementation == running_implementation()
    # The copy's pyvenv.cfg is the standard venv's, naming no implementation: the extension
    # modules' tags (orjson, msgspec, ...) say it, as they do for the image.
    assert from_files.implementation_from.startswith("the extension modules' filename tags: ")
    names = set(running.files)
    assert {p.relative_to(copied).as_posix() for p in (copied / "quart_bezique").rglob("*")} >= {
        n for n in names if n.startswith("quart_bezique/")
    }
    for dependency in ("flask", "werkzeug", "marshmallow", "gunicorn", "orjson", "cryptography"):
        assert f"{dependency}/__init__.py" in names, dependency
    for dependency in ("prometheus_client", "apispec", "yaml"):
        assert f"{dependency}/__init__.py" in names, dependency
    assert "gunicorn.conf.py" in names
    assert {
        "apispec", "cryptography", "flask", "gunicorn", "marshmallow", "orjson",
        "prometheus-client", "pyyaml", "werkzeug", "jinja2", "click", "markupsafe",
    } <= set(running.dependencies)  # fmt: skip


def test_canonical_form_is_documented(copied: Path) -> None:
    manifest = tree_manifest(copied)
    data = manifest.canonical()
    document = json.loads(data)
    assert data == json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
    assert list(document) == [
        "dependencies", "files", "format", "implementation", "python", "ruleset", "version",
    ]  # fmt: skip
    assert document["format"] == FORMAT == "quart-bezique-manifest/3"
    assert document["python"] == running_python()
    assert document["implementation"] == running_implementation()
    assert list(document["files"]) == sorted(document["files"])
    assert document["files"]["quart_bezique/__init__.py"] == sha256(
        copied / "quart_bezique" / "__init__.py"
    )
    assert document["files"]["flask/app.py"] == sha256(copied / "flask" / "app.py")
    assert manifest.digest == hashlib.sha256(data).hexdigest()


def test_a_swapped_pyc_whose_header_matches_runs_and_moves_the_digest(tmp_path: Path) -> None:
    """The finding: bytecode beside an untouched source, with the header the interpreter checks
    (the source's mtime and size), runs instead of the source; it must be in the digest."""
    tree = site_packages(tmp_path)
    source = tree / RENDER
    assert HONEST in source.read_text()
    py_compile.compile(str(source), doraise=True)  # honest bytecode, as pip compiles it
    honest = tree_manifest(tree).digest
    cached = Path(importlib.util.cache_from_source(str(source)))
    cached.write_bytes(timestamp_pyc(source, source.read_text().replace(HONEST, TAMPERED)))
    tampered = tree_manifest(tree)
    assert tampered.digest != honest
    assert tampered.files[cached.relative_to(tree).as_posix()] == sha256(cached)
    # ... and the interpreter does run it: the tampered renderer adds 100 to a score.
    probe = (
        "import types, quart_bezique.wire.render as r;"
        "h = types.SimpleNamespace(cards=[], trump=None, score=16, combinations=[], loose=[]);"
        "print(r.scored_hand(h)['score'])"
    )
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tree, env=env, capture_output=True, timeout=120
    )
    assert done.stdout.strip() == b"116", done.stderr.decode()


def test_any_bytecode_anywhere_in_the_package_moves_the_digest(tmp_path: Path) -> None:
    tree = site_packages(tmp_path)
    digests = {tree_manifest(tree).digest}
    (tree / "quart_bezique" / "__pycache__").mkdir()
    (tree / "quart_bezique" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    digests.add(tree_manifest(tree).digest)
    (tree / "quart_bezique" / "stray.pyc").write_bytes(b"\0")
    digests.add(tree_manifest(tree).digest)
    assert len(digests) == 3


def test_any_change_moves_the_digest(tmp_path: Path) -> None:
    tree = site_packages(tmp_path)
    digests = {tree_manifest(tree).digest}
    rules = tree / "quart_bezique" / "game" / "scoring.py"
    rules.write_bytes(rules.read_bytes() + b"#")
    digests.add(tree_manifest(tree).digest)
    (tree / "quart_bezique" / "api" / "endpoints" / "static" / "extra.js").write_text("")
    digests.add(tree_manifest(tree).digest)
    assert len(digests) == 3


def test_the_gunicorn_configuration_and_its_bytecode_are_covered(tmp_path: Path) -> None:
    tree = site_packages(tmp_path)
    without = tree_manifest(tree)
    config = tree / "gunicorn.conf.py"
    config.write_bytes(config_of(installed_root()).read_bytes())
    with_config = tree_manifest(tree)
    assert with_config.files["gunicorn.conf.py"] == sha256(config)
    config.write_bytes(config.read_bytes() + b"\nworkers = 64\n")
    changed = tree_manifest(tree)
    (tree / "__pycache__").mkdir()
    (tree / "__pycache__" / "gunicorn.conf.cpython-311.pyc").write_bytes(b"\0")
    compiled = tree_manifest(tree)
    assert len({without.digest, with_config.digest, changed.digest, compiled.digest}) == 4


def test_the_configuration_gunicorn_executed_is_the_one_described(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under gunicorn the running manifest names the file ``-c`` loaded (``__config__``), not
    the copy beside the package: an image whose two copies differ serves another digest."""
    other = tmp_path / "gunicorn.conf.py"
    other.write_text("workers = 1\n")
    config = types.ModuleType("__config__")
    config.__file__ = str(other)
    monkeypatch.setitem(sys.modules, "__config__", config)
    manifest = running_manifest(installed_root())
    assert manifest.files["gunicorn.conf.py"] == sha256(other)
    assert manifest.digest != current_manifest().digest


def test_a_dependency_file_its_bytecode_and_its_version_move_the_digest(tmp_path: Path) -> None:
    def tree(name: str, version: str) -> Path:
        root = site_packages(tmp_path / name, requires=["fakedep"], versions={})
        dist_info(root, "fakedep", version, files={"fakedep/__init__.py": b"X = 1\n"})
        return root

    base = tree_manifest(tree("a", "1.0"))
    assert base.files["fakedep/__init__.py"] == hashlib.sha256(b"X = 1\n").hexdigest()
    assert dict(base.dependencies) == {"fakedep": "1.0"}
    changed = tree("b", "1.0")
    (changed / "fakedep" / "__init__.py").write_bytes(b"X = 2\n")
    compiled = tree("c", "1.0")
    (compiled / "fakedep" / "__pycache__").mkdir()
    (compiled / "fakedep" / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"\0")
    added = tree("d", "1.0")
    (added / "fakedep" / "extra.py").write_bytes(b"")
    hook = tree("e", "1.0")
    (hook / "zz-startup.pth").write_text("import os\n")
    newer = tree("f", "1.1")
    digests = [tree_manifest(t).digest for t in (changed, compiled, added, hook, newer)]
    assert len({base.digest, *digests}) == 6


def test_the_python_version_is_in_the_digest(tmp_path: Path) -> None:
    def tree(name: str, version: str | None) -> Path:
        venv = tmp_path / name
        root = site_packages(venv_site_packages(venv), requires=[], versions={})
        if version is not None:
            write_pyvenv(venv, version)
        return root

    one, two, none = tree("a", "3.11.7"), tree("b", "3.11.9"), tree("c", None)
    assert tree_manifest(one).python == "3.11.7"
    (tmp_path / "b" / "pyvenv.cfg").write_text("version_info = 3.11.9.final.0\n")  # virtualenv
    assert tree_manifest(two).python == "3.11.9"
    assert tree_manifest(none).python is None
    assert len({tree_manifest(t).digest for t in (one, two, none)}) == 3
    assert current_manifest().python == running_python()


def test_the_implementation_is_named_as_running() -> None:
    version = sys.implementation.version
    assert running_implementation() == f"{sys.implementation.name} {version[0]}.{version[1]}"
    assert current_manifest().implementation == running_implementation()
    assert current_manifest().implementation_from.startswith("sys.implementation of this ")


@pytest.mark.parametrize(
    ("name", "implementation"),
    [
        ("orjson.cpython-311-x86_64-linux-gnu.so", "cpython 3.11"),
        ("_core.cpython-312-darwin.so", "cpython 3.12"),
        ("_speedups.cpython-313t-x86_64-linux-gnu.so", "cpython 3.13"),
        ("_speedups.cp312-win_amd64.pyd", "cpython 3.12"),
        ("_yaml.pypy39-pp73-x86_64-linux-gnu.so", "pypy 7.3"),
        ("_rust.abi3.so", None),  # the stable ABI: any CPython
        ("libscipy_openblas64_-32a4b2a6.so", None),
        ("speedups.so", None),
        ("render.cpython-311.pyc", None),
        ("notes.cpython-311-x86_64-linux-gnu.txt", None),
    ],
)
def test_an_extension_modules_tag_names_its_implementation(
    name: str, implementation: str | None
) -> None:
    assert tagged_implementation(name) == implementation


def test_the_python_implementation_is_in_the_digest(tmp_path: Path) -> None:
    """Read from ``pyvenv.cfg`` when it names one, else from the extension modules' tags; the
    same files under another implementation are another build, and ``differences`` says so."""

    def tree(name: str, pyvenv: str | None, extensions: tuple[str, ...] = ()) -> Path:
        venv = tmp_path / name
        root = site_packages(venv_site_packages(venv), requires=["fakedep"], versions={})
        files = {"fakedep/__init__.py": b""} | {f"fakedep/{e}": b"\x7fELF" for e in extensions}
        dist_info(root, "fakedep", "1.0", files=files)
        if pyvenv is not None:
            (venv / "pyvenv.cfg").write_text(pyvenv)
        return root

    stdlib_venv = "home = /usr/local/bin\nversion = 3.11.7\n"
    virtualenv = "implementation = CPython\nversion_info = 3.11.7.final.0\n"
    pypy = "implementation = PyPy\nversion_info = 3.10.14.final.0\n"
    cpython_ext = ("_speedups.cpython-311-x86_64-linux-gnu.so", "_rust.abi3.so")
    pypy_ext = ("_speedups.pypy310-pp73-x86_64-linux-gnu.so",)

    named = tree_manifest(tree("named", virtualenv))
    assert named.implementation == "cpython 3.11"
    assert named.implementation_from == "pyvenv.cfg: implementation = CPython, version = 3.11.7"
    tagged = tree_manifest(tree("tagged", stdlib_venv, cpython_ext))
    assert tagged.implementation == "cpython 3.11"
    assert tagged.implementation_from == (
        "the extension modules' filename tags: cpython-311-x86_64-linux-gnu on 1 file"
    )
    on_pypy = tree_manifest(tree("pypy", pypy, cpython_ext + pypy_ext))
    assert on_pypy.implementation == "pypy 7.3"  # the CPython module cannot be loaded there
    mixed = tree_manifest(tree("mixed", stdlib_venv, cpython_ext + pypy_ext))
    assert mixed.implementation is None
    assert mixed.implementation_from == (
        "unknown: the extension modules are tagged for cpython 3.11, pypy 7.3"
    )
    untold = tree_manifest(tree("untold", pypy, cpython_ext))
    assert untold.implementation is None
    assert untold.implementation_from == (
        "unknown: pyvenv.cfg names PyPy but not its version, and no extension module is tagged "
        "for it (they are for cpython 3.11)"
    )
    assert tree_manifest(tree("bare", stdlib_venv)).implementation is None
    assert tree_manifest(tree("none", None)).implementation is None

    # Equal in everything else, the implementation alone moves the digest.
    other = replace(tagged, implementation="pypy 7.3", implementation_from="elsewhere")
    assert other.files == tagged.files and other.python == tagged.python
    assert other.digest != tagged.digest
    assert differences(other, tagged) == [
        "implementation: pypy 7.3 (elsewhere) here, cpython 3.11 (the extension modules' "
        "filename tags: cpython-311-x86_64-linux-gnu on 1 file) there"
    ]
    # ... and where it was read does not: the same build, read two ways, is one digest.
    assert replace(tagged, implementation_from="elsewhere").digest == tagged.digest


def test_dependencies_are_followed_through_the_server_extra_and_transitively(
    tmp_path: Path,
) -> None:
    requires = [
        "PyYAML>=6.0",
        "Flask_Login[x]>=1; python_version >= '3'",
        'web>=1; extra == "server"',
        'pytest>=8; extra == "test"',
        "windows-only; sys_platform == 'win32'",
        "legacy; python_version < '3.0'",
        "absent>=1",
        "later>=1; python_full_version >= '3.8.1'",
    ]
    write_pyvenv(tmp_path / "venv", "3.11.7")
    tree = site_packages(
        venv_site_packages(tmp_path / "venv"),
        requires=requires,
        versions={"pyyaml": "6.0.1", "flask-login": "0.6", "legacy": "1.0"},
    )
    dist_info(tree, "web", "2.0", ["inner>=1", 'plugin; extra == "fast"'])
    dist_info(tree, "inner", "3.0")
    assert dict(tree_manifest(tree).dependencies) == {
        "absent": None,  # required and missing: named, so the digest says so
        "flask-login": "0.6",
        "inner": "3.0",
        "later": None,
        "pyyaml": "6.0.1",
        "web": "2.0",
    }  # not: pytest (another extra), windows-only (not installed), legacy (for Python 2)


def test_code_loaded_from_outside_the_manifest_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module of the manifest's packages whose source, or whose bytecode (a
    ``PYTHONPYCACHEPREFIX`` elsewhere), is not a listed file: the build cannot say what runs."""
    manifest = manifest_module.installed_manifest()  # of the files as they are now
    assert manifest_module.unmanifested(manifest, {"quart_bezique"}, dict(sys.modules)) == []
    elsewhere = tmp_path / "render.py"
    elsewhere.write_text("")
    shadow = types.ModuleType("quart_bezique.shadow")
    shadow.__file__ = str(elsewhere)
    cached = tmp_path / "prefix" / "render.cpython-311.pyc"
    cached.parent.mkdir()
    cached.write_bytes(b"\0")
    redirected = types.ModuleType("flask.redirected")
    redirected.__file__ = str(installed_root() / "quart_bezique" / "__init__.py")
    redirected.__cached__ = str(cached)  # type: ignore[attr-defined]
    loaded = {"quart_bezique.shadow": shadow, "flask.redirected": redirected}
    problems = manifest_module.unmanifested(manifest, {"quart_bezique", "flask"}, loaded)
    assert problems == [
        f"flask.redirected ran from {cached}",
        f"quart_bezique.shadow ran from {elsewhere}",
    ]
    monkeypatch.setitem(sys.modules, "quart_bezique.shadow", shadow)
    with pytest.raises(
        ManifestError, match=r"not the manifested code: quart_bezique\.shadow ran from"
    ):
        manifest_module.installed_manifest()


def test_ruleset_is_read_from_the_tree(tmp_path: Path) -> None:
    tree = site_packages(tmp_path)
    path = tree / "quart_bezique" / "game" / "ruleset.py"
    path.write_text(
        path.read_text().replace("RULESET_VERSION: Final = 1", "RULESET_VERSION: Final = 2")
    )
    assert tree_manifest(tree).ruleset == "classic/2"
    path.write_text("RULESET = compute()\n")
    with pytest.raises(ManifestError, match="RULESET_NAME"):
        tree_manifest(tree)


def test_unusable_trees(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="no 'quart_bezique' package"):
        tree_manifest(tmp_path)
    tree = site_packages(tmp_path / "site")
    for info in tree.glob("quart_bezique-*.dist-info"):
        for child in info.iterdir():
            child.unlink()
        info.rmdir()
    dist_info(tree, "other", "1.0")
    with pytest.raises(ManifestError, match="distribution metadata"):
        tree_manifest(tree)
