"""The endpoint registry is the one source of every decision about a route: what Flask serves,
which road a JSON endpoint takes, what the envelope protects, audits and signs, and what the
contract documents."""

from __future__ import annotations

import pytest
from flask import Flask
from quart_bezique.api.config import Config
from quart_bezique.api.contract.operation import Operation
from quart_bezique.api.contract.schemas import request_schemas
from quart_bezique.api.endpoints.endpoint import ASSETS, Endpoint, Resources, View, serve, unique
from quart_bezique.api.envelope.middleware import Observer
from quart_bezique.api.envelope.routes import is_protected_template
from quart_bezique.api.registry import ENDPOINTS
from quart_bezique.wire.canonical import SIGNED_ROUTES


def _observer(app: Flask) -> Observer:
    observer = app.extensions["quart_bezique"].observer
    assert isinstance(observer, Observer)
    return observer


def test_flask_serves_exactly_the_registry_and_the_pages_assets(app: Flask) -> None:
    served = {
        (method, rule.rule)
        for rule in app.url_map.iter_rules()
        for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}
    }
    declared = {(e.method, e.path) for e in ENDPOINTS}
    assets = {("GET", e.path + ASSETS + "/<path:filename>") for e in ENDPOINTS if e.assets}
    assert served == declared | assets
    for endpoint in ENDPOINTS:  # exactly one dispatcher: Flask's view, or the envelope's road
        assert (endpoint.name in app.view_functions) == (endpoint.view is not None)


def test_each_route_is_enveloped_as_its_record_says(app: Flask) -> None:
    routes = _observer(app).router.routes
    for endpoint in ENDPOINTS:
        route = routes[endpoint.path]
        assert route.label == endpoint.path
        assert route.kind is endpoint.audit
        assert route.protected == is_protected_template(endpoint.path)
        assert (route.road is not None) == (endpoint.handler is not None)
        csp = dict(route.headers)["Content-Security-Policy"]
        if endpoint.page_csp is not None:
            assert csp == endpoint.page_csp
            asset = routes[endpoint.path + ASSETS + "/<path:filename>"]
            assert dict(asset.headers)["Content-Security-Policy"] == endpoint.page_csp
            assert asset.label == endpoint.path + ASSETS
        else:
            assert "default-src 'none'" in csp and "script-src" not in csp


def test_the_contract_documents_each_record(app: Flask) -> None:
    spec = app.extensions["quart_bezique"].spec
    documented = {(method.upper(), path) for path, item in spec["paths"].items() for method in item}
    assert documented == {(e.method, e.path) for e in ENDPOINTS}
    for endpoint in ENDPOINTS:
        operation = spec["paths"][endpoint.path][endpoint.method.lower()]
        assert operation["operationId"] == endpoint.operation.operation_id
        signed = "Verdict-Receipt" in operation["responses"]["200"].get("headers", {})
        assert signed == endpoint.is_verdict


def test_the_verdict_endpoints_are_the_wire_forms() -> None:
    """The receipts and the command line know the verdict endpoints from ``quart_bezique.wire``
    alone (no web import there): the registry's verdict records are exactly those paths."""
    assert {e.path for e in ENDPOINTS if e.is_verdict} == SIGNED_ROUTES
    assert all(e.handler is not None for e in ENDPOINTS if e.is_verdict)


def test_a_record_has_one_dispatcher() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Endpoint("GET", "/x", Operation("x", "s", "operations"))
    with pytest.raises(ValueError, match="exactly one"):
        Endpoint("GET", "/x", Operation("x", "s", "operations"), _view, handler=lambda r: None)  # type: ignore[arg-type,return-value]


def _view(_: Resources) -> View:
    def hello() -> str:
        return "hello"

    return hello


def _record(path: str, operation_id: str, method: str = "GET") -> Endpoint:
    return Endpoint(method, path, Operation(operation_id, "s", "operations"), _view)


def test_a_route_or_an_operation_id_declared_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="declared twice"):
        unique((_record("/a", "a"), _record("/a", "b")))
    with pytest.raises(ValueError, match="declared twice"):
        unique((_record("/a", "a"), _record("/b", "a")))
    assert len(unique((_record("/a", "a"), _record("/a", "b", "POST")))) == 2


def test_a_new_endpoint_is_one_record() -> None:
    """What adding an endpoint takes: a record, served under its operation id."""
    app = Flask("one-record")
    config = Config(build_tables=False)
    serve(app, (_record("/hello", "sayHello"),), Resources(config, request_schemas(config)))
    assert app.test_client().get("/hello").get_data() == b"hello"
    assert [r.rule for r in app.url_map.iter_rules() if r.endpoint == "sayHello"] == ["/hello"]
