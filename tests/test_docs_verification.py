"""docs/verification.md's shell commands work when pasted into bash, and print what the page says.

An auditor follows the page with nothing but a shell, so each block marked ``<!-- bash: run -->``
is run by bash in a fresh directory holding the files the page names, once with the page's own
example exchange (its printed output must be the ``<!-- bash: output -->`` block that follows)
and once with a receipt the service signs now with a fresh key (the same output, with this run's
key id, receipt digest and audit line). The blocks left unmarked need a cluster, an image or the
installed command, and are held to that list of tools.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    PublicFormat,
    load_pem_private_key,
    load_pem_public_key,
)
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.receipts import Keyring, Signer, SigningKey, thumbprint

DOC = Path(__file__).resolve().parent.parent / "docs" / "verification.md"
RUN = "<!-- bash: run -->"
OUTPUT = "<!-- bash: output -->"
TOOLS = ("bash", "openssl", "base64", "sha256sum", "python3", "cut", "tr", "grep", "cat")
OUTSIDE = frozenset({"docker", "kubectl", "curl", "quart-bezique", "diff"})
"""What the unmarked blocks may run: a registry, a cluster, the service or the installed command."""


@dataclass(frozen=True)
class Block:
    language: str
    text: str
    marker: str


def blocks(text: str) -> list[Block]:
    """Every fenced block of ``text`` (indented ones included), with the marker line above it."""
    found: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index].strip()
        if line.startswith("```"):
            marker = (
                lines[index - 1].strip() if index and lines[index - 1].startswith("<!--") else ""
            )
            end = index + 1
            while lines[end].strip() != "```":
                end += 1
            body = [
                entry.strip() if entry.startswith(" ") else entry
                for entry in lines[index + 1 : end]
            ]
            found.append(Block(line[3:], "\n".join(body) + "\n", marker))
            index = end
        index += 1
    return found


@dataclass(frozen=True)
class Runnable:
    script: str
    output: str


def runnables(text: str) -> list[Runnable]:
    """Each ``run`` block with the ``output`` block after it (empty when the next ``run`` block,
    or the end, comes first)."""
    found: list[Runnable] = []
    for block in blocks(text):
        if block.marker == RUN:
            found.append(Runnable(block.text, ""))
        elif block.marker == OUTPUT:
            assert found and not found[-1].output, "an output block follows the block it shows"
            found[-1] = Runnable(found[-1].script, block.text)
    return found


TEXT = DOC.read_text(encoding="utf-8")
RUNNABLES = runnables(TEXT)
RECEIPT = re.compile(r"^Verdict-Receipt: ([\w-]+\.[\w-]+\.[\w-]+)$", re.M)


@dataclass(frozen=True)
class Exchange:
    """The files the page's commands read, and the values that differ between exchanges."""

    receipt: str
    request: bytes
    response: bytes
    jwks: bytes
    audit: bytes

    @property
    def kid(self) -> str:
        match = re.search(rb'"kid":"([^"]+)"', self.jwks)
        assert match is not None
        return match.group(1).decode()

    @property
    def receipt_sha256(self) -> str:
        return hashlib.sha256(self.receipt.encode("ascii")).hexdigest()

    @property
    def audit_line(self) -> str:
        (line,) = [x for x in self.audit.decode().splitlines() if self.receipt_sha256 in x]
        return line

    def write(self, directory: Path) -> None:
        (directory / "receipt.txt").write_text(self.receipt + "\n", encoding="ascii")
        (directory / "request.json").write_bytes(self.request)
        (directory / "response.json").write_bytes(self.response)
        (directory / "jwks.json").write_bytes(self.jwks)
        (directory / "audit.log").write_bytes(self.audit)

    def shown(self, output: str, example: Exchange) -> str:
        """``output`` as the page prints it for ``example``, said of this exchange."""
        for old, new in (
            (example.audit_line, self.audit_line),
            (example.receipt_sha256, self.receipt_sha256),
            (example.kid, self.kid),
        ):
            output = output.replace(old, new)
        return output


def page_example() -> Exchange:
    """The exchange the page shows (its "A real exchange" and the audit line found for it)."""
    exchange = next(b.text for b in blocks(TEXT) if b.text.startswith("POST /v1/hands/score"))
    match = RECEIPT.search(exchange)
    assert match is not None
    request, response = [x for x in exchange.splitlines() if x.startswith("{")]
    jwks = next(b.text for b in blocks(TEXT) if b.text.startswith("GET /.well-known/jwks.json"))
    audit = next(x for r in RUNNABLES for x in r.output.splitlines() if x.startswith('{"ts"'))
    return Exchange(
        match.group(1),
        request.encode(),
        response.encode(),
        jwks.splitlines()[-1].encode(),
        audit.encode() + b"\n",
    )


def fresh() -> Exchange:
    """A verdict the service signs now, with a fresh key: the request as a client sends it
    (keys in another order, spaces), the exact answer, the published keys and its audit line."""
    private = Ed25519PrivateKey.generate()
    key = SigningKey(thumbprint(private.public_key()), private)
    lines: list[bytes] = []
    signer = Signer(key, version="1.0.0", build="0" * 64)
    app = create_app(
        Config(), audit_sink=lines.append, signing=(signer, Keyring(key, (key.public,)))
    )
    client = app.test_client()
    request = b'{"trump": "S", "cards": ["KS", "QS", "JS", "JC"]}'
    response = client.post(
        "/v1/hands/score", data=request, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 200
    jwks = client.get("/.well-known/jwks.json").get_data()
    return Exchange(
        response.headers["Verdict-Receipt"],
        request,
        response.get_data(),
        jwks,
        b"".join(line.rstrip(b"\n") + b"\n" for line in lines),
    )


def bash(script: str, directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", script],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_tools_are_here() -> None:
    assert [tool for tool in TOOLS if shutil.which(tool) is None] == []


def test_the_page_marks_its_shell_commands() -> None:
    scripts = [r.script for r in RUNNABLES]
    assert len(scripts) == 3
    assert any("sha256sum" in s and "audit.log" in s for s in scripts)
    assert any("openssl pkeyutl -verify" in s for s in scripts)
    assert any("openssl genpkey" in s for s in scripts)


@pytest.mark.parametrize("index", range(len(RUNNABLES)))
def test_a_block_prints_what_the_page_says_for_its_example(index: int, tmp_path: Path) -> None:
    runnable = RUNNABLES[index]
    page_example().write(tmp_path)
    ran = bash(runnable.script, tmp_path)
    assert (ran.returncode, ran.stderr) == (0, "")
    assert ran.stdout == runnable.output


@pytest.mark.parametrize("index", range(len(RUNNABLES)))
def test_a_block_prints_the_same_for_a_receipt_signed_now(index: int, tmp_path: Path) -> None:
    runnable, example, now = RUNNABLES[index], page_example(), fresh()
    now.write(tmp_path)
    ran = bash(runnable.script, tmp_path)
    assert (ran.returncode, ran.stderr) == (0, "")
    assert ran.stdout == now.shown(runnable.output, example)
    assert now.kid != example.kid


def _verifying() -> Runnable:
    (found,) = [r for r in RUNNABLES if "openssl pkeyutl -verify" in r.script]
    return found


def test_a_changed_response_loses_its_line(tmp_path: Path) -> None:
    now = fresh()
    now.write(tmp_path)
    (tmp_path / "response.json").write_bytes(now.response.replace(b"16", b"17"))
    ran = bash(_verifying().script, tmp_path)
    assert "request_sha256: as signed" in ran.stdout
    assert "response_sha256" not in ran.stdout


def test_another_key_under_the_same_kid_fails_the_signature(tmp_path: Path) -> None:
    now = fresh()
    other = fresh()
    now.write(tmp_path)
    (tmp_path / "jwks.json").write_bytes(other.jwks.replace(other.kid.encode(), now.kid.encode()))
    ran = bash(_verifying().script, tmp_path)
    assert "Signature Verification Failure" in ran.stdout
    assert "Signature Verified Successfully" not in ran.stdout


def test_the_generated_key_is_one_the_service_reads(tmp_path: Path) -> None:
    (generating,) = [r for r in RUNNABLES if "openssl genpkey" in r.script]
    ran = bash(generating.script, tmp_path)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")
    private = load_pem_private_key((tmp_path / "signing.pem").read_bytes(), password=None)
    public = load_pem_public_key((tmp_path / "signing.pub.pem").read_bytes())
    assert isinstance(private, Ed25519PrivateKey) and isinstance(public, Ed25519PublicKey)
    raw = PublicFormat.Raw
    assert private.public_key().public_bytes(Encoding.Raw, raw) == public.public_bytes(
        Encoding.Raw, raw
    )


def test_the_other_shell_blocks_need_a_cluster_an_image_or_the_command() -> None:
    """An unmarked block runs only tools the test cannot have; a new plain shell block is marked."""
    for block in blocks(TEXT):
        if block.language != "sh" or block.marker == RUN:
            continue
        commands = [
            line.split()[0]
            for line in re.sub(r"\\\n", " ", block.text).splitlines()
            if line.strip() and not line.startswith((" ", "#"))
        ]
        assert set(commands) <= OUTSIDE, block.text


def test_no_block_expands_a_receipt_as_a_variable() -> None:
    """``"$eyJ…"`` is an empty shell variable: its digest is that of nothing."""
    assert re.search(r"\$eyJ", TEXT) is None
