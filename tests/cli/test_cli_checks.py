"""``verify`` on stored exchanges of the real API, and ``build-digest`` on a tree of files."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from flask.testing import FlaskClient
from quart_bezique.api.app import create_app
from quart_bezique.api.config import Config
from quart_bezique.cli import ExitCode
from quart_bezique.cli.checks import COVERS
from quart_bezique.integrity import build_digest, current_manifest, installed_root
from quart_bezique.integrity.manifest import running_python
from quart_bezique.receipts import Keyring, Signer, SigningKey, request_digest

from tests.cli.cli_support import run
from tests.receipts.tree_support import installed_tree

ENDPOINT = "/v1/hands/score"
REQUEST: dict[str, Any] = {"trump": "♠", "cards": ["ks", "QS", "JS", "JC"]}


@pytest.fixture(scope="module")
def api() -> Iterator[FlaskClient]:
    with create_app(Config(audit_log=False)).test_client() as client:
        yield client


@pytest.fixture(scope="module")
def signing_key() -> SigningKey:
    return SigningKey("2026-11", Ed25519PrivateKey.generate())


@pytest.fixture
def jwks_file(tmp_path: Path, signing_key: SigningKey) -> str:
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(Keyring(signing_key, (signing_key.public,)).jwks()))
    return str(path)


@pytest.fixture
def record(api: FlaskClient, signing_key: SigningKey) -> dict[str, Any]:
    """What a platform stores: the request it sent, the answer's exact text, the receipt."""
    response = api.post(ENDPOINT, json=REQUEST).data
    signer = Signer(signing_key, version="1.0.0", build=build_digest())
    receipt = signer.sign(ENDPOINT, request_digest(ENDPOINT, REQUEST), response)
    return {
        "endpoint": ENDPOINT,
        "request": REQUEST,
        "response": response.decode(),
        "receipt": receipt,
    }


def _write(tmp_path: Path, record: object) -> str:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record, ensure_ascii=False))
    return str(path)


def test_genuine_record_verifies(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, record: dict[str, Any], jwks_file: str
) -> None:
    path = _write(tmp_path, record)
    result = run(
        capsys,
        "--json",
        "verify",
        path,
        "--jwks",
        jwks_file,
        "--ruleset",
        "classic/1",
        "--build",
        build_digest(),
    )
    assert result.code == ExitCode.OK
    report = result.json()
    assert isinstance(report, dict) and report["ok"] is True and report["reason"] == "VALID"
    assert report["kid"] == "2026-11"
    checks = report["request_sha256"]
    assert checks["recorded"] == checks["recomputed"]
    human = run(capsys, "verify", path, "--jwks", jwks_file)
    assert human.code == ExitCode.OK and human.out.startswith("VALID receipt")


def test_the_cli_replays_the_verdict_the_receipt_covers(
    capsys: pytest.CaptureFixture[str], record: dict[str, Any]
) -> None:
    """Re-adjudicating offline gives the very bytes whose digest the receipt records."""
    replay = run(capsys, "--json", "score", *REQUEST["cards"], "--trump", REQUEST["trump"])
    assert replay.out.encode() == record["response"].encode() + b"\n"


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"response": '{"score":99}'}, "RESPONSE_MISMATCH"),
        ({"request": {"cards": ["KS", "QS", "JS", "JD"], "trump": "S"}}, "REQUEST_MISMATCH"),
        ({"endpoint": "/v1/hands/odds"}, "ENDPOINT_MISMATCH"),
        ({"receipt": "x.y.z"}, "MALFORMED_RECEIPT"),
    ],
)
def test_tampered_records_are_refused(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    record: dict[str, Any],
    jwks_file: str,
    change: dict[str, Any],
    reason: str,
) -> None:
    result = run(
        capsys, "--json", "verify", _write(tmp_path, {**record, **change}), "--jwks", jwks_file
    )
    assert result.code == ExitCode.REFUSED
    assert result.json()["reason"] == reason  # type: ignore[index]
    human = run(capsys, "verify", _write(tmp_path, {**record, **change}), "--jwks", jwks_file)
    assert human.out.startswith(f"INVALID receipt: {reason}")


def test_expectations_refuse(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, record: dict[str, Any], jwks_file: str
) -> None:
    path = _write(tmp_path, record)
    other = run(capsys, "--json", "verify", path, "--jwks", jwks_file, "--build", "0" * 64)
    assert other.code == ExitCode.REFUSED and other.json()["reason"] == "BUILD_MISMATCH"  # type: ignore[index]
    other = run(capsys, "--json", "verify", path, "--jwks", jwks_file, "--ruleset", "literal/1")
    assert other.code == ExitCode.REFUSED and other.json()["reason"] == "RULESET_MISMATCH"  # type: ignore[index]


def test_base64_members(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, record: dict[str, Any], jwks_file: str
) -> None:
    request = json.dumps(REQUEST).encode()
    coded = {
        "endpoint": ENDPOINT,
        "request_base64": base64.b64encode(request).decode(),
        "response_base64": base64.b64encode(record["response"].encode()).decode(),
        "receipt": record["receipt"],
    }
    assert run(capsys, "verify", _write(tmp_path, coded), "--jwks", jwks_file).code == ExitCode.OK


@pytest.mark.parametrize(
    "change",
    [
        {"request_base64": "e30="},
        {"extra": 1},
        {"endpoint": "v1"},
        {"receipt": 3},
        {"response": 3},
        {"response": None, "response_base64": "%%%"},
    ],
)
def test_unusable_records_are_input_errors(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    record: dict[str, Any],
    jwks_file: str,
    change: dict[str, Any],
) -> None:
    broken = {key: value for key, value in {**record, **change}.items() if value is not None}
    result = run(capsys, "--json", "verify", _write(tmp_path, broken), "--jwks", jwks_file)
    assert result.code == ExitCode.INPUT_ERROR
    assert result.json()["code"] == "INVALID_RECORD"  # type: ignore[index]


@pytest.mark.parametrize(
    "jwks", [[], {"keys": "x"}, {"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k", "x": "AA"}]}]
)
def test_unusable_jwks_is_an_input_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, record: dict[str, Any], jwks: object
) -> None:
    jwks_path = tmp_path / "bad-jwks.json"
    jwks_path.write_text(json.dumps(jwks))
    result = run(capsys, "--json", "verify", _write(tmp_path, record), "--jwks", str(jwks_path))
    assert result.code == ExitCode.INPUT_ERROR
    assert result.json()["code"] == "INVALID_JWKS"  # type: ignore[index]


# --------------------------------------------------------------------------------- build digest


def test_build_digest_of_this_installation(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "build-digest")
    assert result.code == ExitCode.OK
    assert result.out.splitlines()[0] == build_digest()
    report = run(capsys, "--json", "build-digest").json()
    assert report == {
        "digest": build_digest(),
        "version": current_manifest().version,
        "ruleset": "classic/1",
        "files": len(current_manifest().files),
        "dependencies": len(current_manifest().dependencies),
        "python": current_manifest().python,
        "implementation": current_manifest().implementation,
        "implementation_from": current_manifest().implementation_from,
        "root": str(installed_root()),
        "covers": COVERS,
    }


def test_manifest_output_hashes_to_the_digest(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "build-digest", "--manifest")
    assert hashlib.sha256(result.out.encode()).hexdigest() == build_digest()


def _tree(tmp_path: Path) -> Path:
    """A site-packages: a copy of the package and the installed distribution's metadata."""
    root = tmp_path / "site-packages"
    shutil.copytree(
        installed_root() / "quart_bezique",
        root / "quart_bezique",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    info = root / "quart_bezique-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: quart-bezique\nVersion: 1.0.0\nRequires-Dist: orjson\n"
    )
    orjson_info = root / "orjson-3.0.dist-info"
    orjson_info.mkdir()
    (orjson_info / "METADATA").write_text("Metadata-Version: 2.1\nName: orjson\nVersion: 3.0\n")
    return root


def test_build_digest_of_a_tree_and_expect(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = _tree(tmp_path)
    first = run(capsys, "build-digest", "--root", str(root))
    digest = first.out.splitlines()[0]
    manifest = run(capsys, "build-digest", "--root", str(root), "--manifest")
    assert hashlib.sha256(manifest.out.encode()).hexdigest() == digest
    assert json.loads(manifest.out)["dependencies"] == {"orjson": "3.0"}
    assert run(capsys, "build-digest", "--root", str(root), "--expect", digest).code == ExitCode.OK
    (root / "quart_bezique" / "game" / "odds.py").write_text("")
    changed = run(capsys, "--json", "build-digest", "--root", str(root), "--expect", digest)
    assert changed.code == ExitCode.REFUSED
    assert changed.json()["matches"] is False  # type: ignore[index]


def test_a_tree_that_is_not_the_expected_build_says_what_differs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = _tree(tmp_path)
    result = run(capsys, "build-digest", "--root", str(root), "--expect", build_digest())
    assert result.code == ExitCode.REFUSED
    assert "DIFFERS from the expected digest:" in result.out
    assert "the expected digest is this installation's" in result.out
    installed = current_manifest()
    assert f"python: None here, {installed.python} there" in result.out
    assert (
        "implementation: None (unknown: no implementation in pyvenv.cfg and no extension module "
        f"tagged with one) here, {installed.implementation} ({installed.implementation_from}) there"
    ) in result.out
    assert f"orjson 3.0 here, {installed.dependencies['orjson']} there" in result.out
    assert f"flask unlisted here, {installed.dependencies['flask']} there" in result.out
    assert "only there" in result.out and "source checkout" not in result.out
    report = run(capsys, "--json", "build-digest", "--root", str(root), "--expect", "0" * 64)
    assert report.code == ExitCode.REFUSED
    (why,) = report.json()["why"]  # type: ignore[index]
    assert "GET /v1/build" in why and "--manifest" in why


def test_another_implementation_is_explained(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A copy of this installation whose venv says it runs under PyPy: every file and version
    is this build's, the implementation is named as a difference, with where each side read it,
    and the Python version, the same on both sides, is not."""
    root = installed_tree(tmp_path / "venv")
    (tmp_path / "venv" / "pyvenv.cfg").write_text(
        f"implementation = PyPy\nversion_info = {running_python()}.final.0\n"
    )
    result = run(capsys, "--json", "build-digest", "--root", str(root), "--expect", build_digest())
    assert result.code == ExitCode.REFUSED
    report = result.json()
    installed = current_manifest()
    assert report["implementation"] is None  # type: ignore[index]
    assert report["python"] == installed.python  # type: ignore[index]
    why = report["why"]  # type: ignore[index]
    assert why[0] == "the expected digest is this installation's; the tree differs from it in"
    assert why[1].startswith("  implementation: None (unknown: pyvenv.cfg names PyPy but not its ")
    assert why[1].endswith(
        f"(they are for {installed.implementation})) here, {installed.implementation} "
        f"({installed.implementation_from}) there"
    )
    assert not any(line.startswith("  python:") for line in why), why


def test_a_source_checkout_is_explained(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    _tree(tmp_path).rename(checkout / "service")
    (checkout / "pyproject.toml").write_text("[project]\nname = 'quart-bezique'\n")
    result = run(
        capsys,
        "--json",
        "build-digest",
        "--root",
        str(checkout / "service"),
        "--expect",
        build_digest(),
    )
    assert result.code == ExitCode.REFUSED
    why = result.json()["why"]  # type: ignore[index]
    assert why[0].startswith(f"{checkout / 'service'} is a source checkout, not an installed build")
    assert why[1] == "the expected digest is this installation's; the tree differs from it in"


def test_build_digest_of_no_tree(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    result = run(capsys, "--json", "build-digest", "--root", str(tmp_path))
    assert result.code == ExitCode.INPUT_ERROR
    assert result.json()["code"] == "MANIFEST_ERROR"  # type: ignore[index]


# --------------------------------------------------------------------------------- jwks


def test_jwks_of_the_configured_keys(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = Ed25519PrivateKey.generate()
    path = tmp_path / "signing.pem"
    path.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    monkeypatch.setenv("SIGNING_KEY_FILE", str(path))
    monkeypatch.setenv("SIGNING_KEY_ID", "2026-11")
    monkeypatch.delenv("SIGNING_PUBLIC_KEYS_FILE", raising=False)
    result = run(capsys, "--json", "jwks")
    assert result.code == ExitCode.OK
    published = result.json()
    signing = SigningKey("2026-11", key)
    assert published == Keyring(signing, (signing.public,)).jwks()
    human = run(capsys, "jwks")
    assert human.out.splitlines()[1].startswith("2026-11 (active)")


def test_jwks_without_configuration(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("SIGNING_KEY_FILE", "SIGNING_KEY_ID", "SIGNING_PUBLIC_KEYS_FILE"):
        monkeypatch.delenv(name, raising=False)
    assert run(capsys, "jwks").code == ExitCode.INPUT_ERROR
    monkeypatch.setenv("SIGNING_KEY_FILE", str(tmp_path / "absent.pem"))
    result = run(capsys, "--json", "jwks")
    assert result.code == ExitCode.INPUT_ERROR
    assert result.json()["code"] == "CONFIG_ERROR"  # type: ignore[index]
