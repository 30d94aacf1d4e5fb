"""The score and odds tables as shipped data: generated from the rules' definition, loaded checked.

A fresh process would otherwise run the declaration search over the whole hand space
(``scoring.build_tables``) and derive the odds models from it (``odds.build_models``) before it
could answer; those results are data, so the package carries them as files here and a process
only reads them. They never become a second source of the rules: ``make tables`` regenerates
them, and ``tests/game/test_tables_shipped.py`` requires the shipped bytes to be identical.
Loading is fail-closed (``TableError``): a damaged table would give wrong verdicts silently,
where a refusal to start is seen at once; reinstall, or run ``make tables`` after a deliberate
change to the rules' definition.
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from array import array
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Final

DIRECTORY: Final = Path(__file__).resolve().parent
MANIFEST: Final = "manifest.json"
FORMAT: Final = "quart-bezique-tables/1"
SCORES: Final = "scores.bin"
ODDS: Final = "odds.bin"
FILES: Final = (SCORES, ODDS)

_HEADER: Final = struct.Struct("<cI")
_ITEM_SIZES: Final = {"B": 1, "H": 2, "I": 4}
_REBUILD: Final = (
    "rebuild with `make tables` (python -m quart_bezique.game.tables build) or reinstall"
)


class TableError(RuntimeError):
    """A shipped table cannot be trusted: serving from it could give a wrong verdict."""


def pack(chunks: Iterable[array[int]]) -> bytes:
    """Chunks to a file's bytes, the same on every platform: a run of chunks, each a
    little-endian ``array`` after a header of its type code (one ASCII byte) and its length in
    items (``<I``). ``scoring`` and ``odds`` say what the chunks are; ``manifest.json`` records
    the SHA-256 of each file."""
    out = bytearray()
    for chunk in chunks:
        if _ITEM_SIZES.get(chunk.typecode) != chunk.itemsize:
            raise ValueError(f"array type {chunk.typecode!r} is not shipped")
        if sys.byteorder == "big":
            chunk = array(chunk.typecode, chunk)
            chunk.byteswap()
        out += _HEADER.pack(chunk.typecode.encode("ascii"), len(chunk))
        out += chunk.tobytes()
    return bytes(out)


def unpack(name: str, data: bytes) -> list[array[int]]:
    """A file's bytes back to its chunks; ``TableError`` if they do not parse exactly."""
    chunks: list[array[int]] = []
    view = memoryview(data)
    at = 0
    try:
        while at < len(view):
            code, count = _HEADER.unpack_from(view, at)
            typecode = code.decode("ascii")
            size = _ITEM_SIZES[typecode]
            at += _HEADER.size
            chunk = array(typecode)
            if chunk.itemsize != size or at + count * size > len(view):
                raise ValueError("chunk overruns the file")
            chunk.frombytes(view[at : at + count * size])
            if sys.byteorder == "big":
                chunk.byteswap()
            chunks.append(chunk)
            at += count * size
    except (struct.error, KeyError, UnicodeDecodeError, ValueError) as error:
        raise TableError(f"{DIRECTORY / name} is malformed ({error}): {_REBUILD}") from None
    return chunks


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _manifest(directory: Path) -> Mapping[str, str]:
    path = directory / MANIFEST
    try:
        document = json.loads(path.read_bytes())
    except (OSError, ValueError) as error:
        raise TableError(f"{path} cannot be read ({error}): {_REBUILD}") from None
    files = document.get("files") if isinstance(document, dict) else None
    if document.get("format") != FORMAT or not isinstance(files, dict):
        raise TableError(f"{path} is not a {FORMAT} manifest: {_REBUILD}")
    return files


def load(name: str, directory: Path = DIRECTORY) -> bytes:
    """A shipped file's bytes, once its SHA-256 matches the manifest's (else ``TableError``)."""
    expected = _manifest(directory).get(name)
    path = directory / name
    if not isinstance(expected, str):
        raise TableError(f"{directory / MANIFEST} records no digest for {name}: {_REBUILD}")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise TableError(f"{path} cannot be read ({error}): {_REBUILD}") from None
    found = digest(data)
    if found != expected:
        raise TableError(
            f"{path} does not match {MANIFEST} (SHA-256 {found}, expected {expected}): "
            f"the file is damaged or was altered; {_REBUILD}"
        )
    return data


def build() -> dict[str, bytes]:
    """Every file's bytes, generated from the definition now (the slow path: seconds)."""
    from .. import odds, scoring

    score_tables = scoring.build_tables()
    return {
        SCORES: scoring.encode_tables(score_tables),
        ODDS: odds.encode_models(odds.build_models(score_tables)),
    }


def manifest_bytes(files: Mapping[str, bytes]) -> bytes:
    """The manifest recording these files' digests, as written beside them."""
    document = {"format": FORMAT, "files": {name: digest(files[name]) for name in sorted(files)}}
    return (json.dumps(document, indent=2, sort_keys=True) + "\n").encode("utf-8")


def write(directory: Path = DIRECTORY) -> dict[str, bytes]:
    """Build every file and write it, with the manifest, into ``directory``."""
    files = build()
    for name, data in files.items():
        (directory / name).write_bytes(data)
    (directory / MANIFEST).write_bytes(manifest_bytes(files))
    return files
