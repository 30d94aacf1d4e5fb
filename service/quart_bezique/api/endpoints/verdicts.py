"""Proving verdicts later: the keys receipts verify with, the running build, re-adjudication.

A regulator holding a stored verdict needs three things from the service, each open or cheap:
the public keys (``GET /.well-known/jwks.json``; none when nothing is signed), the build that
answers now with the manifest its digest covers (``GET /v1/build``, to compare with
``quart-bezique build-digest`` over the installed files), and the verdict given again
(``POST /v1/verdicts/verify``). A mismatch or a bad receipt is a verdict about the record (200,
with ``quart_bezique.receipts.Reason``), not an error in the request. The re-adjudication sends the
stored request down the named endpoint's own road, so a direct call gives the same bytes.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

import orjson
from flask import Response
from marshmallow import fields, validate

from quart_bezique.api.contract.fields import RULESET_IDS
from quart_bezique.api.contract.i18n import ENGLISH, LANGUAGES
from quart_bezique.api.contract.operation import BODY_ERRORS, Operation
from quart_bezique.api.contract.problems import NOT_READY, Problem
from quart_bezique.api.contract.schemas import BaseSchema
from quart_bezique.api.endpoints.endpoint import Endpoint, Resources, View, static_json
from quart_bezique.api.envelope.road import Handler, Judged, Road
from quart_bezique.game.messages import N_
from quart_bezique.game.ruleset import RULESET
from quart_bezique.receipts.header import Reason
from quart_bezique.wire.canonical import SIGNED_ROUTES, request_digest

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
        validate=validate.OneOf(RULESET_IDS),
        metadata={
            "description": "The id of the ruleset the verdict was given under, as its answer "
            "and receipt name it (docs/rules.md §13.6). The request is replayed as it is, so "
            "under the ruleset it names itself; a receipt of another ruleset is refused."
        },
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
    ruleset = fields.String(
        required=True,
        metadata={
            "description": "The ruleset the replay followed (its answer's `ruleset`), or the "
            "named one when the replay was refused."
        },
    )
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
    language = fields.String(
        required=True,
        validate=validate.OneOf(LANGUAGES),
        metadata={
            "description": "The language the request was re-adjudicated in: `en`, unless the "
            "recorded answer holds a sentence for people (an invalid betting sequence's reason) "
            "given in another served language, whose replay then gave the recorded bytes."
        },
    )


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
                  "SHA-256, the dependencies' versions, the Python version and implementation, "
                  "the ruleset."},
    )  # fmt: skip


JWKS = Operation(
    operation_id="jwks",
    summary="Receipt verification keys",
    tag="verification",
    description="The public keys (JWKS, Ed25519) that verify the `Verdict-Receipt` of verdicts; "
    "empty when the deployment signs nothing. Open (no API key).",
    response=JwksSchema,
    response_media="application/jwk-set+json",
    answer_example="unsigned",
)

BUILD = Operation(
    operation_id="build",
    summary="The running build",
    tag="verification",
    description="Version, ruleset and build digest of the running code, with the manifest the "
    "digest covers: compare it with `quart-bezique build-digest` run over the installed files. "
    "The example's manifest is cut to three files, its interpreter version a stand-in, and its "
    "`build` is the digest of that manifest (the examples of `/` and of a verification too).",
    response=BuildSchema,
    problems=(503,),
    answer_example="running",
)

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
            raise Problem(NOT_READY, N_("the build manifest cannot be computed"))
        return static_json(build_body)

    return build


def _verify_handler(resources: Resources) -> Handler:
    """Re-adjudicates down the named endpoint's own road (``resources.roads``)."""
    keyring, manifest, version = resources.keyring, resources.manifest, resources.version
    roads = resources.roads
    jwks = orjson.loads(orjson.dumps(keyring.jwks() if keyring is not None else {"keys": []}))
    build_digest = manifest.digest if manifest is not None else ""

    def verify(body: Any) -> Judged:
        endpoint: str = body["endpoint"]
        status, answer, language = _replayed(roads(endpoint), body)
        recomputed = hashlib.sha256(answer).hexdigest()
        receipt_check: dict[str, Any] | None = None
        recorded_request: str | None = None
        recorded: str | None = body.get("response_sha256")
        match = recorded == recomputed
        if "receipt" in body:
            from quart_bezique.receipts import verify_receipt  # loads cryptography

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
                "ruleset": _followed(status, answer) or body["ruleset"],
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
                "language": language,
            }
        )

    return Handler(VerifyRequestSchema(), None, verify)


def _replayed(road: Road, body: Any) -> tuple[int, bytes, str]:
    """The stored request re-adjudicated: in English, and, when that answer holds a sentence
    for people (an invalid betting sequence's reason) and differs from the recorded one, in each
    other served language until one gives the recorded bytes. At most one replay per language;
    the answer names the language compared."""
    status, answer, spoken = road.replay(body["request"])
    if not spoken:
        return status, answer, ENGLISH
    recorded = _recorded_digest(body)
    if recorded is None or hashlib.sha256(answer).hexdigest() == recorded:
        return status, answer, ENGLISH
    for language in LANGUAGES:
        if language == ENGLISH:
            continue
        status_in, answer_in, _ = road.replay(body["request"], language)
        if hashlib.sha256(answer_in).hexdigest() == recorded:
            return status_in, answer_in, language
    return status, answer, ENGLISH


def _followed(status: int, answer: bytes) -> str | None:
    """The ruleset id a replayed verdict names (None for a refusal, which names none)."""
    if status != 200:
        return None
    found = orjson.loads(answer).get("ruleset")
    return found if isinstance(found, str) else None


def _recorded_digest(body: Any) -> str | None:
    """The response digest the record claims: its own, or the receipt's (read unverified: the
    receipt is verified against the replay afterwards)."""
    if body.get("response_sha256") is not None:
        return str(body["response_sha256"])
    if "receipt" not in body:
        return None
    from quart_bezique.receipts import claimed  # loads cryptography, as verifying does

    claims = claimed(body["receipt"])
    return None if claims is None else claims.response_sha256


ENDPOINTS = (
    Endpoint("GET", JWKS_PATH, JWKS, _jwks_view),
    Endpoint("GET", "/v1/build", BUILD, _build_view),
    Endpoint("POST", VERIFY_PATH, VERIFY, handler=_verify_handler),
)
