"""Proving verdicts later: the public keys, the running build, and re-adjudication on demand.

- ``GET /.well-known/jwks.json``: the public keys receipts verify with (RFC 7517, OKP keys of
  RFC 8037), the active one first, earlier ones kept for rotation; ``{"keys": []}`` when no
  signing key is configured. Open: a verifier holds no API key.
- ``GET /v1/build``: the version, ruleset and build digest of the running code, with the manifest
  the digest is taken over (``service.integrity``), so that a regulator can compare it with a
  digest recomputed from the installed files (``quart-bezique build-digest``).
- ``POST /v1/verdicts/verify``: given an endpoint, the original request body and optionally the
  stored receipt or response digest, the service judges the request again, now, and says whether
  the recorded verdict is the one it gives: both digests, and the receipt's check with a precise
  reason code (``service.receipts.Reason``). A mismatch or a bad receipt is a verdict about the
  record (200), not an error in the request.

The re-adjudication sends the stored request down the named endpoint's own road: the same check,
schema, core and renderer give the same bytes as a direct call.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

import orjson
from flask import Response
from marshmallow import fields, validate

from service.api.contract.operation import BODY_ERRORS, Operation
from service.api.contract.problems import NOT_READY, Problem
from service.api.contract.schemas import BaseSchema
from service.api.endpoints.endpoint import Endpoint, Resources, View, static_json
from service.api.envelope.audit import PLAIN
from service.api.envelope.exchange import Exchange
from service.api.envelope.road import Handler, Judged, Road
from service.game.ruleset import RULESET
from service.receipts.header import Reason
from service.wire.canonical import SIGNED_ROUTES

JWKS_PATH: Final = "/.well-known/jwks.json"
VERIFY_PATH: Final = "/v1/verdicts/verify"
MAX_RECEIPT_CHARS: Final = 4096
_HEX64: Final = r"^[0-9a-f]{64}$"
EXAMPLE_RESPONSE_SHA256: Final = "429b2830e4519bffb4806a1269f98dd210467aafae0e39db2e317673582e0dc8"
"""SHA-256 of the score endpoint's answer to the example hand (a test keeps it true)."""


class VerifyRequestSchema(BaseSchema):
    """A stored verdict to check: what was asked, and what was recorded of the answer."""

    endpoint = fields.String(
        required=True,
        validate=validate.OneOf(sorted(SIGNED_ROUTES)),
        metadata={"description": "The verdict endpoint the request was sent to."},
    )
    ruleset = fields.String(
        required=True,
        validate=validate.OneOf([RULESET]),
        metadata={"description": "The ruleset the verdict was given under (the receipt says)."},
    )
    request = fields.Dict(
        required=True,
        metadata={"description": "The original request body, as sent (any key order or card "
                  "spelling: it is compared by its canonical form)."},
    )  # fmt: skip
    receipt = fields.String(
        validate=validate.Length(min=1, max=MAX_RECEIPT_CHARS),
        metadata={"description": "The `Verdict-Receipt` header stored with the verdict."},
    )
    response_sha256 = fields.String(
        validate=validate.Regexp(_HEX64),
        metadata={"description": "SHA-256 (hex) of the stored response body, if no receipt."},
    )


class DigestPairSchema(BaseSchema):
    recorded = fields.String(
        required=True, allow_none=True, metadata={"description": "From the record, if any."}
    )
    recomputed = fields.String(required=True, metadata={"description": "From the replay now."})


class ReceiptCheckSchema(BaseSchema):
    valid = fields.Boolean(required=True)
    reason = fields.String(
        required=True,
        validate=validate.OneOf([r.value for r in Reason]),
        metadata={"description": "`VALID`, or why the receipt is refused."},
    )
    kid = fields.String(required=True, allow_none=True)


class VerifyResponseSchema(BaseSchema):
    endpoint = fields.String(required=True)
    ruleset = fields.String(required=True)
    version = fields.String(required=True, metadata={"description": "This service's version."})
    build = fields.String(required=True, metadata={"description": "This build's digest."})
    status = fields.Integer(
        required=True, metadata={"description": "The HTTP status the request gets now."}
    )
    match = fields.Boolean(
        required=True,
        metadata={"description": "The recorded verdict is the one given now (and its receipt, "
                  "if one was given, is valid)."},
    )  # fmt: skip
    request_sha256 = fields.Nested(DigestPairSchema, required=True)
    response_sha256 = fields.Nested(DigestPairSchema, required=True)
    receipt = fields.Nested(ReceiptCheckSchema, required=True, allow_none=True)


class JwksKeySchema(BaseSchema):
    kty = fields.String(required=True, validate=validate.OneOf(["OKP"]))
    crv = fields.String(required=True, validate=validate.OneOf(["Ed25519"]))
    x = fields.String(required=True)
    kid = fields.String(required=True)
    alg = fields.String(required=True, validate=validate.OneOf(["EdDSA"]))
    use = fields.String(required=True, validate=validate.OneOf(["sig"]))


class JwksSchema(BaseSchema):
    keys = fields.List(fields.Nested(JwksKeySchema), required=True)


class BuildSchema(BaseSchema):
    version = fields.String(required=True)
    ruleset = fields.String(required=True)
    build = fields.String(required=True, metadata={"description": "SHA-256 of the manifest."})
    manifest = fields.Dict(
        required=True,
        metadata={"description": "The canonical manifest: every file that can run (the package, "
                  "its bytecode, gunicorn.conf.py, the runtime dependencies' files) with its "
                  "SHA-256, the dependencies' versions, the Python version, the ruleset."},
    )  # fmt: skip


JWKS_ANSWERS: dict[str, Any] = {"unsigned": {"keys": []}}
"""The service's answer (a test fetches it and compares)."""

JWKS = Operation(
    operation_id="jwks",
    summary="Receipt verification keys",
    tag="verification",
    description="The public keys (JWKS, Ed25519) that verify the `Verdict-Receipt` of verdicts; "
    "empty when the deployment signs nothing. Open (no API key).",
    response=JwksSchema,
    response_media="application/jwk-set+json",
    response_examples=JWKS_ANSWERS,
)

BUILD_ANSWERS = {
    "running": {
        "version": "1.0.0",
        "ruleset": "classic/1",
        "build": "a4aeffb49c501b32442116b69b377bea5ed1d8f8bc092cb23403474db1137327",
        "manifest": {
            "dependencies": {
                "apispec": "6.10.1",
                "blinker": "1.9.0",
                "cffi": "2.1.1",
                "click": "8.5.1",
                "cryptography": "50.0.2",
                "flask": "3.1.3",
                "gunicorn": "27.0.1",
                "itsdangerous": "2.2.0",
                "jinja2": "3.1.6",
                "markupsafe": "3.0.4",
                "marshmallow": "4.4.0",
                "orjson": "3.13.0",
                "packaging": "23.2",
                "prometheus-client": "0.26.0",
                "pycparser": "3.12",
                "pyyaml": "6.0.4",
                "werkzeug": "3.1.9",
            },
            "files": {
                "service/__init__.py": (
                    "5347c57fd0bd9ceeee2f03791f16d619068cb6e546b07bd17598be5df3aabbeb"
                ),
                "service/__main__.py": (
                    "dc1a0e9758d1c16b59e08231d6824d91e31c5a694ec9878f9a44f892bb321184"
                ),
                "service/api/__init__.py": (
                    "217fe2e201160099835fdef2d12c037139836d67b440bf3ee87ff58569af849e"
                ),
            },
            "format": "quart-bezique-manifest/2",
            "python": "3.11.7",
            "ruleset": "classic/1",
            "version": "1.0.0",
        },
    }
}
"""The service's answer, its manifest cut to three of its files. The digests and the Python
version name the build this was taken from: the test compares their form, every other value
exactly."""

BUILD = Operation(
    operation_id="build",
    summary="The running build",
    tag="verification",
    description="Version, ruleset and build digest of the running code, with the manifest the "
    "digest covers: compare it with `quart-bezique build-digest` run over the installed files.",
    response=BuildSchema,
    problems=(503,),
    response_examples=BUILD_ANSWERS,
)

VERIFY_ANSWERS = {
    "by_response_digest": {
        "endpoint": "/v1/hands/score",
        "ruleset": "classic/1",
        "version": "1.0.0",
        "build": "a4aeffb49c501b32442116b69b377bea5ed1d8f8bc092cb23403474db1137327",
        "status": 200,
        "match": True,
        "request_sha256": {
            "recorded": None,
            "recomputed": "5410c65f12643180a1ee7b25bb9a7e585e24f9d2e839f7df045bda7a107b4759",
        },
        "response_sha256": {
            "recorded": "429b2830e4519bffb4806a1269f98dd210467aafae0e39db2e317673582e0dc8",
            "recomputed": "429b2830e4519bffb4806a1269f98dd210467aafae0e39db2e317673582e0dc8",
        },
        "receipt": None,
    }
}
"""The service's answer to the request example of the same name (a test posts it and compares;
``build`` names the build this was taken from, so only its form is compared)."""

VERIFY = Operation(
    operation_id="verifyVerdict",
    summary="Re-adjudicate a stored verdict",
    tag="verification",
    description="Judges the stored request again under the named ruleset and says whether the "
    "recorded verdict (its receipt, or its response digest) is the one given now. A receipt "
    "signed by an unknown key, altered, or made under another ruleset or endpoint is refused "
    "with its reason code (`UNKNOWN_KEY`, `BAD_SIGNATURE`, `RULESET_MISMATCH`, ...): a verdict, "
    "answered 200 with `match: false`.",
    request=VerifyRequestSchema,
    response=VerifyResponseSchema,
    problems=BODY_ERRORS,
    request_examples={
        "by_response_digest": {
            "endpoint": "/v1/hands/score",
            "ruleset": RULESET,
            "request": {"cards": ["KS", "QS", "JS", "JC"], "trump": "S"},
            "response_sha256": EXAMPLE_RESPONSE_SHA256,
        }
    },
    response_examples=VERIFY_ANSWERS,
)


def _jwks_view(resources: Resources) -> View:
    keyring = resources.keyring
    jwks_body = orjson.dumps(keyring.jwks() if keyring is not None else {"keys": []})

    def keys() -> Response:
        return Response(jwks_body, content_type="application/jwk-set+json")

    return keys


def _build_view(resources: Resources) -> View:
    manifest, version = resources.manifest, resources.version
    build_digest = manifest.digest if manifest is not None else ""
    build_body = (
        orjson.dumps(
            {
                "version": version,
                "ruleset": RULESET,
                "build": build_digest,
                "manifest": orjson.loads(manifest.canonical()),
            }
        )
        if manifest is not None
        else None
    )

    def build() -> Response:
        if build_body is None:
            raise Problem(NOT_READY, "the build manifest cannot be computed")
        return static_json(build_body)

    return build


def _verify_handler(resources: Resources) -> Handler:
    """Re-adjudicates down the named endpoint's own road (``resources.roads``)."""
    keyring, manifest, version = resources.keyring, resources.manifest, resources.version
    roads = resources.roads
    jwks = orjson.loads(orjson.dumps(keyring.jwks() if keyring is not None else {"keys": []}))
    build_digest = manifest.digest if manifest is not None else ""

    def verify(body: Any) -> Judged:
        from service.receipts import request_digest, verify_receipt  # loads cryptography

        endpoint: str = body["endpoint"]
        status, answer = _replay(roads(endpoint), body["request"])
        recomputed = hashlib.sha256(answer).hexdigest()
        receipt_check: dict[str, Any] | None = None
        recorded_request: str | None = None
        recorded: str | None = body.get("response_sha256")
        match = recorded == recomputed
        if "receipt" in body:
            checked = verify_receipt(
                body["receipt"],
                body["request"],
                answer,
                jwks,
                endpoint=endpoint,
                expected_ruleset=body["ruleset"],
            )
            recorded = checked.response.recorded
            recorded_request = checked.request.recorded
            match = checked.ok and (body.get("response_sha256") in (None, recomputed))
            receipt_check = {
                "valid": checked.ok,
                "reason": checked.reason.value,
                "kid": checked.kid,
            }
        return Judged(
            {
                "endpoint": endpoint,
                "ruleset": RULESET,
                "version": version,
                "build": build_digest,
                "status": status,
                "match": match,
                "request_sha256": {
                    "recorded": recorded_request,
                    "recomputed": request_digest(endpoint, body["request"]),
                },
                "response_sha256": {"recorded": recorded, "recomputed": recomputed},
                "receipt": receipt_check,
            }
        )

    return Handler(VerifyRequestSchema(), None, verify)


def _replay(road: Road, request: Any) -> tuple[int, bytes]:
    """The status and exact body a direct ``POST`` of ``request`` gets, as a client would get
    them: the request was parsed with this one (no key repeated, within every limit), so its
    endpoint's road takes it from its check on, under an exchange of its own that leaves no mark
    on this request's audit record."""
    status, _, answer = road.respond(request, None, Exchange("replay", PLAIN, audit_log=False))
    return int(status[:3]), answer


ENDPOINTS = (
    Endpoint("GET", JWKS_PATH, JWKS, _jwks_view),
    Endpoint("GET", "/v1/build", BUILD, _build_view),
    Endpoint("POST", VERIFY_PATH, VERIFY, handler=_verify_handler),
)
