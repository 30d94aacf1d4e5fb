"""Helpers shared by the contract-tool checks: the npm tools, run from the repository root, and
the live server the examples call."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.api.api_support import LiveServer, start_server

ROOT = Path(__file__).resolve().parents[2]

__all__ = ["API_KEY", "NPM_ENV", "ROOT", "LiveServer", "bin_path", "run", "start_server"]

API_KEY = "contract-check-key-0123456789"
"""The key the live server accepts (16+ characters, as the service's key rules require)."""

# The npm tools must not phone home or nag: Redocly CLI sends usage telemetry and checks for
# updates unless told not to; npm checks for its own updates.
NPM_ENV = {
    **os.environ,
    "REDOCLY_TELEMETRY": "off",
    "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
    "npm_config_update_notifier": "false",
    "npm_config_fund": "false",
    "npm_config_audit": "false",
    # npm's cache stays inside the checkout (git-ignored): nothing is written outside the repo.
    "npm_config_cache": str(ROOT / ".npm-cache"),
    "NO_COLOR": "1",
}


def run(*command: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in the repository root; output captured as text, never raising."""
    return subprocess.run(
        command, cwd=ROOT, env=env or NPM_ENV, capture_output=True, text=True, timeout=600
    )


def bin_path(name: str) -> str:
    return str(ROOT / "node_modules" / ".bin" / name)
