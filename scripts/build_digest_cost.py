"""What the build digest costs at start-up, before and after it covered every file that can run.

    .venv/bin/python -m scripts.build_digest_cost [--runs N]

The master computes the manifest once, before forking its workers (gunicorn's preload), so its
time adds to every start. "before" hashes what the format-1 manifest hashed (the package's files
without bytecode, and the dependency metadata); "after" is ``installed_manifest()`` itself (the
package with its bytecode, the configuration, the dependency closure's files, the check of the
loaded modules). Both run in this process with the web app imported, files in the page cache
(as on a container's start from a pulled image). Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import quart_bezique.wsgi  # noqa: F401  (the modules a serving master has loaded)
from quart_bezique.integrity import manifest
from quart_bezique.integrity.manifest import file_digest, installed_manifest, installed_root


def before() -> int:
    """The format-1 work: the package's files, bytecode skipped, and the metadata reads."""
    package = installed_root() / manifest.PACKAGE
    count = 0
    for directory, dirs, names in os.walk(package):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in names:
            if not name.endswith((".pyc", ".pyo")):
                file_digest(os.path.join(directory, name))
                count += 1
    own = manifest._find(manifest.DISTRIBUTION, None)
    assert own is not None
    for requirement in own.requires or ():
        if "extra ==" not in requirement:
            manifest._find(manifest.normalise(requirement.split(";")[0].split(">")[0]), None)
    return count


def after() -> int:
    return len(installed_manifest().files)


def timed(work: Callable[[], int], runs: int) -> tuple[float, int]:
    times = []
    count = 0
    for _ in range(runs):
        start = time.perf_counter()
        count = work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    located = installed_manifest().located
    size = sum(os.path.getsize(path) for path in located)
    old_ms, old_files = timed(before, runs)
    new_ms, new_files = timed(after, runs)
    print(f"before (format 1): {old_files} files, median {old_ms:.1f} ms of {runs}")
    print(f"after  (format 2): {new_files} files, {size / 1e6:.1f} MB, median {new_ms:.1f} ms")
    print(f"added to each start (once, in the master): {new_ms - old_ms:.1f} ms")


if __name__ == "__main__":
    main()
