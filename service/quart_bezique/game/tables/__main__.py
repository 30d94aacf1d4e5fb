"""``python -m quart_bezique.game.tables build|check``: regenerate the shipped tables, or check
them.

``build`` runs the rules' definition over the whole hand space and writes the files and their
manifest into the package (``make tables``); ``check`` does the same in memory and exits 1 if any
shipped file differs from what the definition gives, naming it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import DIRECTORY, MANIFEST, build, digest, manifest_bytes, write


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m quart_bezique.game.tables")
    parser.add_argument("command", choices=("build", "check"))
    args = parser.parse_args(argv)
    if args.command == "build":
        for name, data in write().items():
            print(f"{DIRECTORY / name}: {len(data)} bytes, SHA-256 {digest(data)}")
        return 0
    files = build()
    expected = {**files, MANIFEST: manifest_bytes(files)}
    drifted = []
    for name, data in expected.items():
        path = DIRECTORY / name
        if not path.is_file() or path.read_bytes() != data:
            drifted.append(name)
    for name in drifted:
        print(f"{DIRECTORY / name} differs from the definition: run `make tables`", file=sys.stderr)
    return 1 if drifted else 0


if __name__ == "__main__":
    raise SystemExit(main())
