"""The checking commands: ``verify`` (a stored exchange against its receipt), ``build-digest``
(the build's manifest and digest, from this installation or a directory) and ``jwks`` (the keys
the environment configures, as the JWKS to publish)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from quart_bezique.integrity import (
    Manifest,
    ManifestError,
    current_manifest,
    differences,
    installed_root,
    source_checkout,
    tree_manifest,
)
from quart_bezique.receipts import (
    JwksError,
    ReceiptConfigError,
    Verification,
    keyring_from_env,
    verify_receipt,
)

from . import human
from .problems import CliError, ExitCode
from .records import parse_record
from .safe import shown
from .verdicts import Outcome, contract


def _digests(result: Verification) -> dict[str, Any]:
    return {
        "request_sha256": {
            "recorded": result.request.recorded,
            "recomputed": result.request.recomputed,
        },
        "response_sha256": {
            "recorded": result.response.recorded,
            "recomputed": result.response.recomputed,
        },
    }


def verify(
    record: Any, jwks: Any, *, ruleset: str | None = None, build: str | None = None
) -> Outcome:
    """Exit 0 when the receipt verifies, 1 when it does not (``reason`` says why)."""
    stored = parse_record(record)
    if not isinstance(jwks, dict):
        raise CliError.input("INVALID_JWKS", "the JWKS must be a JSON object with a keys list")
    try:
        result = verify_receipt(
            stored.receipt,
            stored.request,
            stored.response,
            jwks,
            endpoint=stored.endpoint,
            expected_ruleset=ruleset,
            expected_build=build,
        )
    except JwksError as error:
        raise CliError.input("INVALID_JWKS", str(error)) from None
    problem = _request_problem(stored.request)
    ok = result.ok and problem is None
    reason = REQUEST_REFUSED if result.ok and problem is not None else result.reason.value
    claims = None if result.claims is None else result.claims.as_dict()
    payload = {
        "ok": ok,
        "reason": reason,
        "kid": result.kid,
        "claims": claims,
        **_digests(result),
    }
    verdict = "VALID receipt" if ok else f"INVALID receipt: {reason}"
    if problem is not None:
        payload["request_problem"] = problem
        verdict += f"\n  the service refuses these request bytes: {shown(problem['detail'])}"
    rows: list[tuple[object, ...]] = [
        (name, value) for name, value in sorted((claims or {}).items()) if "sha256" not in name
    ]
    checks = [
        (f"{name} {side}", value or "-")
        for name, check in _digests(result).items()
        for side, value in check.items()
    ]
    text = "\n".join(
        [verdict, human.table(("claim", "value"), [*rows, *checks])]
        if claims is not None
        else [verdict, f"  kid {shown(result.kid or '-')}"]
    )
    return Outcome(payload, text, ExitCode.OK if ok else ExitCode.REFUSED)


REQUEST_REFUSED: Final = "REQUEST_REFUSED"
"""``verify``'s own reason: the receipt is genuine, but the record's request is bytes the service
refuses (a key repeated in one object, ...), so the record cannot show what was judged: two
readers of such bytes may see two different requests."""


def _request_problem(request: Any) -> dict[str, Any] | None:
    """The service's problem document for request bytes it would refuse to read, else None (a
    request stored as JSON was read strictly with the record itself)."""
    if not isinstance(request, bytes):
        return None
    try:
        contract().parse_json_input(request)
    except CliError as error:
        return error.document
    return None


COVERS = (
    "every file that can run: service/ with its bytecode, gunicorn.conf.py beside it, the runtime "
    "dependencies' files, versions and start-up hooks, the Python version (pyvenv.cfg of the "
    "venv holding the tree: copy the whole venv) and implementation (pyvenv.cfg, else the "
    "extension modules' filename tags); --manifest lists them"
)
"""What the build digest covers (``quart_bezique.integrity.manifest``, docs/verification.md)."""


def build_digest(root: Path | None, *, expect: str | None = None) -> Outcome:
    """The digest of this installation (``root`` None) or of the tree at ``root``; with
    ``expect``, exit 1 when it differs."""
    try:
        manifest = current_manifest() if root is None else tree_manifest(root)
    except ManifestError as error:
        raise CliError.input("MANIFEST_ERROR", str(error)) from None
    digest = manifest.digest
    payload = {
        "digest": digest,
        "version": manifest.version,
        "ruleset": manifest.ruleset,
        "files": len(manifest.files),
        "dependencies": len(manifest.dependencies),
        "python": manifest.python,
        "implementation": manifest.implementation,
        "implementation_from": manifest.implementation_from,
        "root": str(installed_root() if root is None else root),
        "covers": COVERS,
    }
    matches = expect is None or expect.lower() == digest
    if expect is not None:
        payload["expected"] = expect
        payload["matches"] = matches
    width = max(len(name) for name in payload)
    details = [f"  {name:<{width}} {value}" for name, value in payload.items() if name != "digest"]
    if not matches:
        why = _why(manifest, root, str(expect).lower())
        payload["why"] = why
        details += ["DIFFERS from the expected digest:", *(f"  {line}" for line in why)]
    return Outcome(
        payload, "\n".join([digest, *details]), ExitCode.OK if matches else ExitCode.REFUSED
    )


CHECKOUT: Final = (
    "{root} is a source checkout, not an installed build, so it cannot give an installed build's "
    "digest: its dependencies are not installed in it (the manifest records them as missing), it "
    "has no pyvenv.cfg above it and none of the dependencies' extension modules (its Python and "
    "implementation are unknown), its metadata is an egg-info where an installation has a "
    "dist-info and console scripts, and its bytecode is whatever was last compiled there. "
    "Recompute from the installed site-packages instead, inside a copy of the whole virtual "
    "environment (docs/verification.md)"
)


def _why(manifest: Manifest, root: Path | None, expect: str) -> list[str]:
    """Why a digest is not the expected one, in words: the parts that differ from this
    installation's manifest when that is the expected build, else where to look."""
    why = [CHECKOUT.format(root=root)] if root is not None and source_checkout(root) else []
    if root is not None:
        try:
            installed = current_manifest()
        except ManifestError:
            installed = None
        if installed is not None and installed.digest == expect:
            return [
                *why,
                "the expected digest is this installation's; the tree differs from it in",
                *(f"  {line}" for line in differences(manifest, installed)),
            ]
    return [
        *why,
        "a digest alone does not say what differs: compare this manifest (--manifest) with the "
        "expected build's (GET /v1/build answers it), as docs/verification.md shows",
    ]


def manifest_bytes(root: Path | None) -> bytes:
    """The canonical manifest, exactly the bytes the digest is taken over."""
    try:
        manifest = current_manifest() if root is None else tree_manifest(root)
    except ManifestError as error:
        raise CliError.input("MANIFEST_ERROR", str(error)) from None
    return manifest.canonical()


def jwks() -> Outcome:
    """The JWKS of the signing keys the environment configures (``SIGNING_KEY_FILE``, ...): what
    an operator publishes, and a check, before a roll-out, that the service will start with them."""
    try:
        keyring = keyring_from_env()
    except ReceiptConfigError as error:
        raise CliError.input("CONFIG_ERROR", str(error)) from None
    if keyring is None:
        raise CliError.input("CONFIG_ERROR", "SIGNING_KEY_FILE is not set: no receipts are signed")
    published = keyring.jwks()
    rows = [
        (k["kid"] + (" (active)" if k["kid"] == keyring.signing.kid else ""), k["x"])
        for k in published["keys"]
    ]
    return Outcome(published, human.table(("kid", "Ed25519 public key (x)"), rows, indent=""))
