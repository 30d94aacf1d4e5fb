"""A verdict proved end to end, as a platform and a regulator would prove it.

The real gunicorn server (the repository's gunicorn.conf.py, a freshly generated Ed25519 signing
key in ``SIGNING_KEY_FILE``) answers one verdict over HTTP; the exchange is kept exactly as a
platform keeps it (the status, the ``Verdict-Receipt`` header, the body bytes) in the record format
``quart-bezique verify`` reads, beside the JWKS the server published. The server is then stopped:
everything after that is offline, with the installed command line only. The stored exchange must
verify, and must stop verifying when any one byte of it changes -- in the request, the response or
the receipt -- with the reason that names what changed. The build digest the server reported must
be the one the command line recomputes from the installed files.

Every position is altered in-process (``quart_bezique.cli.main``, the function the console script
runs: about a thousand checks, cheap); a deterministic sample of them, and the records that no
longer parse, go through the installed console script itself, so that its exit status is what a
script would see.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from quart_bezique.cli import ExitCode

from tests.api.api_support import start_server
from tests.cli.cli_support import run
from tests.receipts.tree_support import installed_tree

ENDPOINT: Final = "/v1/hands/score"
REQUEST: Final = b'{"cards":["KS","QS","JS","JC"],"trump":"S"}'
"""Sent as these exact bytes: every card and the trump already in canonical spelling."""
CLI: Final = Path(sys.executable).with_name("quart-bezique")
"""The console script ``pip install`` put beside this interpreter."""
B64URL: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
SAMPLE: Final = 24
"""Positions per part (request, response, receipt) checked through the console script."""


@dataclass(frozen=True)
class Served:
    """What the platform kept of one exchange, and what the server said about itself."""

    status: int
    content_type: str
    response: bytes
    receipt: str
    jwks: bytes
    index: dict[str, Any]
    manifest: dict[str, Any]
    """``GET /v1/build``'s manifest: names the files that differ, should the digests."""
    installed: Path
    """The installed package's files, copied just before the server started."""
    log: str
    stopped_with: int


def _signing_key(directory: Path) -> Path:
    """A new Ed25519 key in the PEM form ``openssl genpkey -algorithm ed25519`` writes."""
    path = directory / "signing-key.pem"
    key = Ed25519PrivateKey.generate()
    path.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    path.chmod(0o600)
    return path


def _get(conn: http.client.HTTPConnection, path: str) -> bytes:
    conn.request("GET", path)
    answer = conn.getresponse()
    body = answer.read()
    assert answer.status == 200, body
    return body


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Served:
    """One verdict fetched from a real server, which is then stopped."""
    directory = tmp_path_factory.mktemp("roundtrip")
    # Every file the manifest lists, laid out as an image's venv (tests/receipts/tree_support.py);
    # the server writes no bytecode meanwhile, which would be files the copy lacks.
    installed = installed_tree(directory / "venv")
    key = str(_signing_key(directory))
    server = start_server(directory, SIGNING_KEY_FILE=key, PYTHONDONTWRITEBYTECODE="1")
    try:
        conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
        conn.request("POST", ENDPOINT, body=REQUEST, headers={"Content-Type": "application/json"})
        answer = conn.getresponse()
        status, headers, body = answer.status, answer.headers, answer.read()
        jwks = _get(conn, "/.well-known/jwks.json")
        index = json.loads(_get(conn, "/"))
        manifest = json.loads(_get(conn, "/v1/build"))["manifest"]
        conn.close()
    finally:
        stopped_with = server.stop()
    return Served(
        status=status,
        content_type=headers["Content-Type"],
        response=body,
        receipt=headers["Verdict-Receipt"],
        jwks=jwks,
        index=index,
        manifest=manifest,
        installed=installed,
        log=server.log.read_text(),
        stopped_with=stopped_with,
    )


def _record(
    request: bytes | Any, response: bytes, receipt: str, *, exact: bool = True
) -> dict[str, Any]:
    """The record ``verify`` reads: exact bytes as base64, or (``exact=False``) the request as
    parsed JSON and the response as its text, the form docs/verification.md shows first."""
    if not exact:
        return {
            "endpoint": ENDPOINT,
            "request": json.loads(request),
            "response": response.decode("utf-8"),
            "receipt": receipt,
        }
    return {
        "endpoint": ENDPOINT,
        "request_base64": base64.b64encode(request).decode("ascii"),
        "response_base64": base64.b64encode(response).decode("ascii"),
        "receipt": receipt,
    }


@pytest.fixture(scope="module")
def files(served: Served, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The platform's copy: the record and the JWKS, as files."""
    directory = tmp_path_factory.mktemp("stored")
    (directory / "jwks.json").write_bytes(served.jwks)
    record = _record(REQUEST, served.response, served.receipt, exact=False)
    (directory / "record.json").write_text(json.dumps(record, ensure_ascii=False))
    return directory


def _installed_cli(*args: str) -> tuple[int, dict[str, Any]]:
    """The console script, in its own process, with ``--json``: exit status and answer."""
    done = subprocess.run(
        [str(CLI), "--json", *args], capture_output=True, timeout=120, check=False
    )
    assert done.stdout, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return done.returncode, answer


# ------------------------------------------------------------------------------ the exchange


def test_the_server_signed_the_verdict_and_stopped_cleanly(served: Served) -> None:
    assert served.status == 200 and served.content_type == "application/json"
    assert json.loads(served.response)["score"] == 16
    assert served.receipt.count(".") == 2
    assert served.stopped_with == 0, served.log


def test_the_stored_verdict_verifies_offline_with_the_installed_command(
    served: Served, files: Path
) -> None:
    code, answer = _installed_cli(
        "verify", str(files / "record.json"), "--jwks", str(files / "jwks.json")
    )
    assert code == ExitCode.OK, answer
    assert answer["ok"] is True and answer["reason"] == "VALID"
    (key,) = json.loads(served.jwks)["keys"]
    assert answer["kid"] == key["kid"]
    claims = answer["claims"]
    assert claims["endpoint"] == ENDPOINT and claims["build"] == served.index["build"]
    assert claims["version"] == served.index["version"]
    assert claims["ruleset"] == served.index["ruleset"]
    digest = hashlib.sha256(served.response).hexdigest()
    assert answer["response_sha256"] == {"recorded": digest, "recomputed": digest}


def test_the_exact_bytes_form_of_the_record_verifies_too(
    served: Served, files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = files / "exact.json"
    path.write_text(json.dumps(_record(REQUEST, served.response, served.receipt)))
    result = run(capsys, "--json", "verify", str(path), "--jwks", str(files / "jwks.json"))
    assert result.code == ExitCode.OK, result.out


def test_the_audit_line_of_the_verdict_is_found_by_the_receipt_digest(served: Served) -> None:
    """docs/verification.md: the audit line names a receipt by the SHA-256 of its text."""
    digest = hashlib.sha256(served.receipt.encode("ascii")).hexdigest()
    lines = [json.loads(line) for line in served.log.splitlines() if line.startswith("{")]
    (line,) = [line for line in lines if line.get("receipt", {}).get("sha256") == digest]
    (key,) = json.loads(served.jwks)["keys"]
    assert line["receipt"]["kid"] == key["kid"]
    assert line["endpoint"] == ENDPOINT and line["status"] == 200
    assert line["response_sha256"] == hashlib.sha256(served.response).hexdigest()


# ------------------------------------------------------------------------------ one byte changed


def _bumped(data: bytes, at: int) -> bytes:
    """``data`` with the byte at ``at`` replaced by the next byte value: ``K`` becomes ``L``,
    ``"`` becomes ``#``. For the request below that is never an equivalent request (no card or
    trump turns into another spelling of itself), so every change must be refused."""
    return data[:at] + bytes([(data[at] + 1) % 256]) + data[at + 1 :]


def _next_char(receipt: str, at: int) -> str:
    """The receipt with the character at ``at`` replaced by the next base64url character (a dot
    by ``A``): still a receipt's alphabet, so the refusal is about meaning, not spelling."""
    char = receipt[at]
    new = "A" if char == "." else B64URL[(B64URL.index(char) + 1) % len(B64URL)]
    return receipt[:at] + new + receipt[at + 1 :]


def _b64url(segment: str) -> bytes:
    """Strict base64url (RFC 7515 §2): unpadded, and the one canonical spelling of its bytes."""
    if not segment or "=" in segment:
        raise ValueError("empty or padded")
    data = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    if base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii") != segment:
        raise ValueError("not the canonical spelling (padding bits set)")
    return data


def _receipt_reason(receipt: str, kid: str) -> str:
    """Why an altered receipt must be refused, found with the standard library alone, in the
    order docs/verification.md gives: not three strict base64url parts whose first two are JSON,
    or a header other than exactly ``alg``, ``kid``, ``typ`` -> ``MALFORMED_RECEIPT``; another
    ``alg`` -> ``ALGORITHM_NOT_ALLOWED``; another ``kid`` -> ``UNKNOWN_KEY``; otherwise the
    signature no longer covers what it signs -> ``BAD_SIGNATURE``."""
    segments = receipt.split(".")
    try:
        if len(segments) != 3:
            raise ValueError("not three parts")
        header = json.loads(_b64url(segments[0]))
        json.loads(_b64url(segments[1]))
        _b64url(segments[2])
    except ValueError:
        return "MALFORMED_RECEIPT"
    if (
        not isinstance(header, dict)
        or set(header) != {"alg", "kid", "typ"}
        or header["typ"] != "verdict-receipt+jws"
        or not all(isinstance(header[name], str) for name in ("alg", "kid"))
    ):
        return "MALFORMED_RECEIPT"
    if header["alg"] != "EdDSA":
        return "ALGORITHM_NOT_ALLOWED"
    return "UNKNOWN_KEY" if header["kid"] != kid else "BAD_SIGNATURE"


@dataclass(frozen=True)
class Alteration:
    part: str
    at: int
    record: dict[str, Any]
    reason: str
    """The one reason the change must be refused with."""


def alterations(served: Served) -> Iterator[Alteration]:
    """Every one-byte change of the request, the response and the receipt."""
    response, receipt = served.response, served.receipt
    (key,) = json.loads(served.jwks)["keys"]
    for at in range(len(REQUEST)):
        record = _record(_bumped(REQUEST, at), response, receipt)
        yield Alteration("request", at, record, "REQUEST_MISMATCH")
    for at in range(len(response)):
        record = _record(REQUEST, _bumped(response, at), receipt)
        yield Alteration("response", at, record, "RESPONSE_MISMATCH")
    for at in range(len(receipt)):
        altered = _next_char(receipt, at)
        record = _record(REQUEST, response, altered)
        yield Alteration("receipt", at, record, _receipt_reason(altered, key["kid"]))


def _sampled(items: list[Alteration]) -> list[Alteration]:
    """``SAMPLE`` positions per part, evenly spread, the first and the last included."""
    chosen: list[Alteration] = []
    for part in ("request", "response", "receipt"):
        ours = [item for item in items if item.part == part]
        picks = {round(i * (len(ours) - 1) / (SAMPLE - 1)) for i in range(SAMPLE)}
        chosen += [ours[i] for i in sorted(picks)]
    return chosen


def _check(
    verify: Callable[[Path], tuple[int, dict[str, Any]]], items: list[Alteration], where: Path
) -> dict[str, int]:
    """Verify each altered record; collect every deviation, then fail with all of them."""
    wrong: list[str] = []
    seen: dict[str, int] = {}
    for item in items:
        path = where / f"{item.part}-{item.at}.json"
        path.write_text(json.dumps(item.record))
        code, answer = verify(path)
        reason = str(answer.get("reason"))
        seen[reason] = seen.get(reason, 0) + 1
        if code != ExitCode.REFUSED or answer.get("ok") is not False or reason != item.reason:
            wrong.append(f"{item.part}[{item.at}]: exit {code}, {reason} (want {item.reason})")
    assert not wrong, "\n".join(wrong)
    return seen


def _verify_in_process(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> Callable[[Path], tuple[int, dict[str, Any]]]:
    jwks = str(files / "jwks.json")

    def verify(path: Path) -> tuple[int, dict[str, Any]]:
        result = run(capsys, "--json", "verify", str(path), "--jwks", jwks)
        answer: dict[str, Any] = json.loads(result.out)
        return result.code, answer

    return verify


def test_a_sample_of_altered_bytes_is_refused_with_the_reason_that_names_it(
    served: Served, files: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``SAMPLE`` positions per part, in process: the fast loop's share of the test below."""
    items = _sampled(list(alterations(served)))
    seen = _check(_verify_in_process(files, capsys), items, tmp_path)
    assert {"REQUEST_MISMATCH", "RESPONSE_MISMATCH", "BAD_SIGNATURE"} <= set(seen)


@pytest.mark.slow
def test_every_altered_byte_is_refused_with_the_reason_that_names_it(
    served: Served, files: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exhaustive (over 900 records): ``make test`` runs it, ``make check`` the sample above."""
    verify = _verify_in_process(files, capsys)
    (key,) = json.loads(served.jwks)["keys"]
    # The oracle passes the unaltered receipt up to its signature: it does not refuse everything.
    assert _receipt_reason(served.receipt, key["kid"]) == "BAD_SIGNATURE"
    items = list(alterations(served))
    assert len(items) == len(REQUEST) + len(served.response) + len(served.receipt) > 900
    seen = _check(verify, items, tmp_path)
    # Each mechanism was really exercised, not only the first check in the line.
    assert seen["REQUEST_MISMATCH"] == len(REQUEST)
    assert seen["RESPONSE_MISMATCH"] == len(served.response)
    assert seen["BAD_SIGNATURE"] > len(served.receipt) // 2
    assert seen["UNKNOWN_KEY"] > 0 and seen["MALFORMED_RECEIPT"] > 0


@pytest.mark.slow
def test_a_sample_of_altered_bytes_is_refused_by_the_installed_command(
    served: Served, files: Path, tmp_path: Path
) -> None:
    jwks = str(files / "jwks.json")
    items = _sampled(list(alterations(served)))
    assert len(items) >= 3 * SAMPLE - 3  # the request is short enough for a few collisions
    _check(lambda path: _installed_cli("verify", str(path), "--jwks", jwks), items, tmp_path)


@pytest.mark.parametrize(
    ("damage", "code"),
    [
        # The receipt's closing quote becomes `#`: the file is no longer JSON at all.
        (lambda text, receipt: text.replace(f'{receipt}"', f"{receipt}#"), "MALFORMED_JSON"),
        # The member name `receipt` becomes `receipu`: JSON still, but not a record.
        (lambda text, receipt: text.replace('"receipt"', '"receipu"'), "INVALID_RECORD"),
    ],
    ids=["not-json", "not-a-record"],
)
def test_a_record_that_no_longer_parses_gives_no_verdict(
    served: Served,
    files: Path,
    tmp_path: Path,
    damage: Callable[[str, str], str],
    code: str,
) -> None:
    """Exit 2, not 1: nothing was checked, so nothing can be said about the receipt."""
    text = (files / "record.json").read_text()
    damaged = damage(text, served.receipt)
    assert (
        len(damaged) == len(text) and sum(a != b for a, b in zip(text, damaged, strict=True)) == 1
    )
    path = tmp_path / "damaged.json"
    path.write_text(damaged)
    status, answer = _installed_cli("verify", str(path), "--jwks", str(files / "jwks.json"))
    assert status == ExitCode.INPUT_ERROR
    assert answer["code"] == code


# ------------------------------------------------------------------------------ the build


def test_the_served_build_is_the_digest_recomputed_from_the_installed_files(
    served: Served,
) -> None:
    """With the server stopped, the command line recomputes the digest from the files alone.
    The files are those the server started from (copied just before, in a development checkout:
    there an edit to any file of ``service/`` meanwhile changes the digest, as it should)."""
    root = str(served.installed)
    code, answer = _installed_cli("build-digest", "--root", root)
    assert code == ExitCode.OK, answer
    if answer["digest"] != served.index["build"]:
        done = subprocess.run(
            [str(CLI), "build-digest", "--root", root, "--manifest"], capture_output=True
        )
        ours = json.loads(done.stdout)
        differ = sorted(
            name
            for name in {*ours["files"], *served.manifest["files"]}
            if ours["files"].get(name) != served.manifest["files"].get(name)
        )
        pytest.fail(f"digests differ; files that differ: {differ or 'none (dependencies?)'}")
    assert answer["version"] == served.index["version"]
    assert answer["ruleset"] == served.index["ruleset"]
    expected = ["build-digest", "--root", root, "--expect", served.index["build"]]
    assert _installed_cli(*expected)[0] == ExitCode.OK
    wrong = ["build-digest", "--root", root, "--expect", "0" * 64]
    assert _installed_cli(*wrong)[0] == ExitCode.REFUSED
