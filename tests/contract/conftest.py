"""Fixtures of the contract-tool checks (`make contract-check`): the npm tools, installed from the
lock, and one live gunicorn server with API keys that the three examples call."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.contract.contract_support import API_KEY, ROOT, LiveServer, bin_path, run, start_server


@pytest.fixture(scope="session", autouse=True)
def contract_check_only() -> None:
    """These checks install npm packages and start a server: `make contract-check` runs them once
    (it sets QB_CONTRACT_CHECK=1); `make unit`, which collects every test directory, skips them."""
    if os.environ.get("QB_CONTRACT_CHECK") != "1":
        pytest.skip("run by `make contract-check` (QB_CONTRACT_CHECK=1), not by `make unit`")


@pytest.fixture(scope="session")
def npm_installed(contract_check_only: None) -> None:
    """`npm ci`: exactly the versions package-lock.json pins (and a failure if package.json and the
    lock disagree). Install scripts are off: none of these tools needs one, and one of their
    dependencies would otherwise report the install to an analytics service."""
    if shutil.which("npm") is None:
        reason = "npm is not installed: the contract-tool checks need Node.js 20.19+ and npm"
        if os.environ.get("QB_CONTAINER_TEST_REQUIRED") == "1":
            pytest.fail(f"{reason} (CI requires them)")
        pytest.skip(reason)
    done = run("npm", "ci", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="session")
def typescript_example(npm_installed: None) -> Path:
    """The TypeScript example compiled to JavaScript (examples/typescript/dist, git-ignored), after
    its types were generated from the committed openapi.yaml and it type-checked; its path."""
    generated = run(
        bin_path("openapi-typescript"),
        "openapi.yaml",
        # openapi-typescript 7 would otherwise make every request field that has a `default`
        # required, so a client would have to send what the contract says it may leave out.
        "--default-non-nullable",
        "false",
        "-o",
        "examples/typescript/generated/api.d.ts",
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    checked = run(bin_path("tsc"), "--strict", "--noEmit", "-p", "examples/typescript")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # Checked just above: the emit alone, to run it with node (no TypeScript loader needed).
    built = run(bin_path("tsc"), "-p", "examples/typescript", "--noCheck")
    assert built.returncode == 0, built.stdout + built.stderr
    return ROOT / "examples" / "typescript" / "dist" / "client.mjs"


@pytest.fixture(scope="session")
def keyed_server(
    contract_check_only: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """The real service under gunicorn, with API keys on, so the examples must send theirs."""
    server = start_server(tmp_path_factory.mktemp("contract-gunicorn"), API_KEYS=API_KEY)
    yield server
    server.stop()
